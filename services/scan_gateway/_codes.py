"""Which line codes a scanned form may print: catalogue codes, an organisation's five-digit
break-down of one, and the lines of the НКО report on the target use of funds (0710003 in the
tax-office set, 6100–6400; ``arm_statements.TARGET_USE_LINES``).

A code cell OCR read as four clean digits is still a guess when no form prints that code
(«2219» for 2210): the layout reads such a cell again, and the mapper flags what stays unknown.
"""

from __future__ import annotations

from services.arm_statements import TARGET_USE_LINES, lookup_line, parent_code

__all__ = ["TARGET_USE_CODES", "known_code"]

TARGET_USE_CODES = frozenset(TARGET_USE_LINES)
"""Lines of «Отчет о целевом использовании средств» (the shared catalogue's)."""


def known_code(code: str) -> bool:
    """A code some form prints: a catalogue line, a break-down of one, or a target-use line."""
    return (
        lookup_line(code) is not None or parent_code(code) is not None or code in TARGET_USE_CODES
    )
