"""Which line codes a scanned form may print: catalogue codes, an organisation's five-digit
break-down of one, and the lines of the НКО report on the target use of funds (0710003 in the
tax-office set, 6100–6400), which the statements catalogue does not hold.

A code cell OCR read as four clean digits is still a guess when no form prints that code
(«2219» for 2210): the layout reads such a cell again, and the mapper flags what stays unknown.
"""

from __future__ import annotations

from services.arm_statements import lookup_line, parent_code

__all__ = ["TARGET_USE_CODES", "known_code"]

TARGET_USE_CODES = frozenset(
    {
        "6100",
        "6200",
        "6210",
        "6215",
        "6220",
        "6230",
        "6240",
        "6250",
        "6300",
        "6310",
        "6311",
        "6312",
        "6313",
        "6320",
        "6321",
        "6322",
        "6323",
        "6324",
        "6325",
        "6326",
        "6330",
        "6350",
        "6400",
    }
)
"""Lines of «Отчет о целевом использовании средств» (order 66n, full and simplified)."""


def known_code(code: str) -> bool:
    """A code some form prints: a catalogue line, a break-down of one, or a target-use line."""
    return (
        lookup_line(code) is not None or parent_code(code) is not None or code in TARGET_USE_CODES
    )
