"""Column labels and dates of a scan: the shared ``arm_statements`` periods, read as OCR text.

OCR prints «за» as «3a», garbles a month name's ending and splits a numeric date by spaces or
slashes; ``ocr=True`` reads all of these (see ``arm_statements.periods``).
"""

from __future__ import annotations

import datetime as dt

from services.arm_statements import PeriodKind
from services.arm_statements import date_in_text as _date_in_text
from services.arm_statements import parse_period_label as _parse_period_label

__all__ = ["PeriodKind", "date_in_text", "parse_period_label"]


def date_in_text(text: str) -> dt.date | None:
    """The date a label or a title prints, or None."""
    return _date_in_text(text, ocr=True)


def parse_period_label(label: str) -> tuple[PeriodKind, dt.date | None]:
    """`(period_kind, period_date)` of a column label."""
    return _parse_period_label(label, ocr=True)
