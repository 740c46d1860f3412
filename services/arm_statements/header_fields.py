"""A statement header's fields as text: ИНН check digits, the «Коды» codes, units and ОКЕИ.

Where a form prints its header (cells right of a label, words of an OCR line) is each
service's business; what the printed text means is the same for both, and lives here. The
report date is read by ``periods.report_date_in_texts``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from services.arm_statements.text import fold

__all__ = [
    "CODE_LENGTHS",
    "HEADER_FIELDS",
    "INN_LENGTHS",
    "code_digits",
    "inn_checksum_ok",
    "normalize_units",
    "okei_for_units",
    "units_for_okei",
]

HEADER_FIELDS: Final[tuple[str, ...]] = (
    "organization_name",
    "inn",
    "report_date",
    "units",
    "okud",
    "okpo",
    "okopf",
    "okfs",
    "okei",
    "address",
)
"""The contract's header fields, in its order (each with ``_text`` and ``_confidence``)."""

INN_LENGTHS: Final[tuple[int, ...]] = (10, 12)
"""An organisation's ИНН has 10 digits, an individual entrepreneur's 12."""

CODE_LENGTHS: Final[Mapping[str, tuple[int, ...]]] = MappingProxyType(
    {"okud": (7,), "okpo": (8, 10), "okopf": (5,), "okfs": (2,), "okei": (3,)}
)
"""Digits a «Коды» code has (ОКПО: 8 for an organisation, 10 for an entrepreneur)."""

_UNITS_BY_OKEI: Final[Mapping[str, str]] = MappingProxyType(
    {"383": "руб.", "384": "тыс. руб.", "385": "млн. руб."}
)
_OKEI_BY_UNITS: Final[Mapping[str, str]] = MappingProxyType(
    {units: okei for okei, units in _UNITS_BY_OKEI.items()}
)
_INN_WEIGHTS = (3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8)


def inn_checksum_ok(inn: str) -> bool:
    """The control digits of a 10- or 12-digit ИНН hold (any other length: False)."""
    digits = [int(c) for c in inn]

    def control(weights: tuple[int, ...]) -> int:
        return sum(w * d for w, d in zip(weights, digits, strict=False)) % 11 % 10

    if len(digits) == 10:
        return control(_INN_WEIGHTS[2:]) == digits[9]
    if len(digits) == 12:
        return control(_INN_WEIGHTS[1:]) == digits[10] and control(_INN_WEIGHTS) == digits[11]
    return False


def code_digits(text: str, *, length: int | None = None) -> str:
    """The digits of a printed code or ИНН ("" when none).

    With ``length``, a text that is only digits and shorter gets its leading zeros back: a
    number cell drops them (ОКУД 0710001 is stored as 710001).
    """
    digits = re.sub(r"\D", "", text)
    if length is not None and 0 < len(digits) < length and text.isdigit():
        digits = digits.zfill(length)
    return digits


def normalize_units(text: str) -> str | None:
    """«в тыс. рублей» → «тыс. руб.»; «в млн. руб.» → «млн. руб.»; «в рублях» → «руб.»."""
    s = fold(text)
    if "млн" in s or "миллион" in s:
        return "млн. руб."
    if "тыс" in s:
        return "тыс. руб."
    if "руб" in s:
        return "руб."
    return None


def units_for_okei(okei: str | None) -> str | None:
    """The units an ОКЕИ code stands for (383 → «руб.», 384 → «тыс. руб.», 385 → «млн. руб.»)."""
    return _UNITS_BY_OKEI.get(okei) if okei is not None else None


def okei_for_units(units: str | None) -> str | None:
    """The ОКЕИ code of normalised units («тыс. руб.» → 384), or None."""
    return _OKEI_BY_UNITS.get(units) if units is not None else None
