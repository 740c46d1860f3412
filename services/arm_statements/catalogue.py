"""Lookups over the line catalogue: official lines, organisation-added and legacy codes, and the
lines of the НКО target-use report (6100 … 6400), which are no balance / ОФР lines."""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal

from services.arm_statements._catalogue_data import (
    LEGACY_BALANCE_CODES,
    LEGACY_INCOME_CODES,
    LEGACY_INCOME_TO_66N,
    LINES_DATA,
    TARGET_USE_LINES_DATA,
)
from services.arm_statements.line import DocumentType, Line
from services.arm_statements.text import fold

__all__ = [
    "LEGACY_INCOME_MAPPED",
    "LINES",
    "TARGET_USE_LINES",
    "CodeKind",
    "classify_code",
    "legacy_income_line",
    "legacy_line_name",
    "lookup_line",
    "parent_code",
    "print_order",
    "target_use_line",
]

CodeKind = Literal["catalogue", "org_added", "legacy", "unknown"]

LINES: Mapping[str, Line] = MappingProxyType({line.code: line for line in LINES_DATA})
"""Every four-digit line of the full balance and ОФР, in print order."""

TARGET_USE_LINES: Mapping[str, Line] = MappingProxyType(
    {line.code: line for line in TARGET_USE_LINES_DATA}
)
"""Every line of «Отчет о целевом использовании средств» (0710003 / 0710006), in print order."""

LEGACY_INCOME_MAPPED: frozenset[str] = frozenset(LEGACY_INCOME_TO_66N)
"""The 67n «Отчет о прибылях и убытках» codes that map onto a 66n line (``legacy_income_line``)."""

_ORDER: Mapping[str, int] = MappingProxyType({code: i for i, code in enumerate(LINES)})
_FIVE = re.compile(r"^\d{5}$")
_THREE = re.compile(r"^\d{3}$")


def lookup_line(code: str) -> Line | None:
    """The catalogue line of a four-digit code, or None (five-digit codes: see parent_code)."""
    return LINES.get(code)


def target_use_line(code: str) -> Line | None:
    """The target-use report's line of a code (6100 … 6400), or None."""
    return TARGET_USE_LINES.get(code)


def parent_code(code: str) -> str | None:
    """The four-digit line an organisation-added five-digit code breaks down (11501 → 1150).

    None when the code is not five digits or its first four digits are not a catalogue line.
    """
    if _FIVE.match(code) and code[:4] in LINES:
        return code[:4]
    return None


def classify_code(code: str) -> CodeKind:
    """What kind of code a printed «Код» is; pre-2011 three-digit codes are ``legacy``."""
    if code in LINES:
        return "catalogue"
    if parent_code(code) is not None:
        return "org_added"
    if _THREE.match(code):
        return "legacy"
    return "unknown"


def legacy_line_name(document_type: DocumentType, code: str) -> str | None:
    """The name of a pre-2011 three-digit code (out of scope for checks), or None."""
    table = LEGACY_BALANCE_CODES if document_type == "BALANCE" else LEGACY_INCOME_CODES
    return table.get(code)


def legacy_income_line(code: str, name: str | None) -> str | None:
    """The 66n ОФР line a 67n «Отчет о прибылях и убытках» line is (010 → 2110), or None.

    Only when the code is one the 67n form printed with a one-to-one successor and the printed
    name says the same (its stem: «Выручка (нетто) от продажи …» for 010); a tax line, or a
    3-digit code of another legacy form, gives None."""
    found = LEGACY_INCOME_TO_66N.get(code)
    if found is None or not name:
        return None
    current, stem = found
    return current if stem in fold(name) else None


def print_order(code: str) -> int | None:
    """Position of a line (or of the parent of a five-digit code) in the printed form."""
    own = _ORDER.get(code)
    if own is not None:
        return own
    parent = parent_code(code)
    return None if parent is None else _ORDER[parent]
