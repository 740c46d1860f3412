"""Full or simplified form, decided from the structure of the set of codes.

No code is unique to the simplified form: it reuses full-form codes with an aggregated meaning.
What differs is the structure: the full form prints section totals and detail lines the
simplified one has no place for.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Final

from services.arm_statements.catalogue import LINES, parent_code
from services.arm_statements.line import FormVariant
from services.arm_statements.names import name_candidates

__all__ = ["detect_form_variant"]


def _codes_of(document_type: str, *, simplified: bool) -> frozenset[str]:
    return frozenset(
        line.code
        for line in LINES.values()
        if line.document_type == document_type and line.in_simplified == simplified
    )


_SIMPLIFIED: Final = {t: _codes_of(t, simplified=True) for t in ("BALANCE", "INCOME")}
# Codes of the full form that the simplified form has no line for: totals and details.
_FULL_ONLY: Final = {t: _codes_of(t, simplified=False) for t in ("BALANCE", "INCOME")}
# 1600 and 1700 are in both forms and say nothing about the structure.
_NEUTRAL: Final = frozenset({"1600", "1700"})
# Section III of the NKO simplified form is 1350 + 1360 without a 1300 line; 1300 printed with
# any component of section III is the full form, unless the simplified form's aggregated lines
# are printed too and no total: the tax-office blank КНД 0710096 prints 1300 «Капитал и
# резервы» with the NKO's 1350 / 1360 under it (БФ «Марии Леонтьевой» 2021).
_SECTION_III_PARTS: Final = frozenset({"1350", "1360"})


def _aggregates(document_type: str, known: set[str]) -> bool:
    """Simplified lines outside section III and the neutral 1600 / 1700 are printed."""
    return bool((known & _SIMPLIFIED[document_type]) - _NEUTRAL - _SECTION_III_PARTS - {"1300"})


def _from_codes(document_type: str, codes: Collection[str]) -> FormVariant | None:
    known: set[str] = set()
    for code in codes:
        own = code if code in LINES else parent_code(code)
        if own is not None and LINES[own].document_type == document_type:
            known.add(own)
    if known & _FULL_ONLY[document_type]:
        return "full"
    if "1300" in known and known & _SECTION_III_PARTS and not _aggregates(document_type, known):
        return "full"
    if (known & _SIMPLIFIED[document_type]) - _NEUTRAL:
        return "simplified"
    return None


def _from_names(document_type: str, names: Collection[str | None]) -> FormVariant | None:
    full = simplified = 0
    for name in names:
        if not name:
            continue
        in_full = bool(name_candidates(name, document_type, "full"))
        in_simplified = bool(name_candidates(name, document_type, "simplified"))
        full += in_full and not in_simplified
        simplified += in_simplified and not in_full
    if full > simplified:
        return "full"
    if simplified > full:
        return "simplified"
    return None


def detect_form_variant(
    document_type: str,
    codes: Collection[str],
    names: Collection[str | None] | None = None,
) -> FormVariant | None:
    """``full`` | ``simplified`` | None for a BALANCE or INCOME; None for anything else.

    Codes decide first: any section total (1100, 1200, 1400, 1500, 2100, 2200, 2300 …) or detail
    line of the full form only (1110, 1180, 1220, 1240, 2210 …), or 1300 together with one of
    its components and none of the simplified form's aggregated lines, means ``full``; otherwise codes of the simplified form's lines (beyond the
    neutral 1600 / 1700) mean ``simplified``. Org-added five-digit codes count as their parent;
    legacy and unknown codes are ignored. When codes cannot tell, the names vote: a name only
    the full form prints («Итого по разделу I», «Себестоимость продаж») against one only the
    simplified form prints («Материальные внеоборотные активы», «Капитал»). A tie is None.
    """
    if document_type not in ("BALANCE", "INCOME"):
        return None
    by_codes = _from_codes(document_type, codes)
    if by_codes is not None or not names:
        return by_codes
    return _from_names(document_type, names)
