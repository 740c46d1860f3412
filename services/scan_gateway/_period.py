"""Column labels to periods: «На 31 декабря 2024 г.» → (absolute, 2024-12-31).

A label prints its date (absolute: the day, or the last day of the period), or names it
relative to the reporting date as the blank forms do («На отчетную дату отчетного периода»,
«За аналогичный период предыдущего года»).
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from typing import Literal

__all__ = ["PeriodKind", "date_in_text", "fold", "parse_period_label"]

PeriodKind = Literal[
    "absolute",
    "relative:current",
    "relative:prev_year_end",
    "relative:prev_prev_year_end",
    "relative:prev_period",
    "none",
]

_MONTH_STEMS = (
    ("янв", 1),
    ("фев", 2),
    ("мар", 3),
    ("апр", 4),
    ("мая", 5),
    ("май", 5),
    ("июн", 6),
    ("июл", 7),
    ("авг", 8),
    ("сен", 9),
    ("окт", 10),
    ("ноя", 11),
    ("дек", 12),
)
_MONTH = r"(январ\w*|феврал\w*|март\w*|апрел\w*|ма[йя]\w*|июн\w*|июл\w*|август\w*|сентябр\w*|октябр\w*|ноябр\w*|декабр\w*)"
_ON_DATE = re.compile(rf"(?<!\d)(\d{{1,2}})\s+{_MONTH}\s+(\d{{4}})")
_NUMERIC = re.compile(r"(?<!\d)(\d{1,2})[.\s/](\d{1,2})[.\s/](\d{4})(?!\d)")
_RANGE = re.compile(rf"\bза\s+{_MONTH}\s*[-–—]\s*{_MONTH}\s+(\d{{4}})")
_YEAR = re.compile(r"\bза\s+(\d{4})\s*(?:г|год)")
_RELATIVE: tuple[tuple[re.Pattern[str], PeriodKind], ...] = (
    (re.compile(r"года?,?\s+предшествующ\w+\s+предыдущему"), "relative:prev_prev_year_end"),
    (re.compile(r"аналогичный\s+период\s+предыдущего\s+года"), "relative:prev_period"),
    (re.compile(r"31\s+декабря\s+предыдущего\s+года"), "relative:prev_year_end"),
    (re.compile(r"отчетн\w+\s+(?:дату|период)"), "relative:current"),
)


_OCR_ZA = re.compile(r"(?<![\w])[з3][аa](?=\s)")


def fold(text: str) -> str:
    """Lower case, ё → е, one space between words; OCR's «3a» for «за» is read as «за»."""
    folded = " ".join(text.replace("\u00a0", " ").lower().replace("ё", "е").split())
    return _OCR_ZA.sub("за", folded)


def _month(word: str) -> int:
    return next(number for stem, number in _MONTH_STEMS if word.startswith(stem[:3]))


def _date(year: int, month: int, day: int) -> dt.date | None:
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def _month_end(year: int, month: int) -> dt.date:
    return dt.date(year, month, calendar.monthrange(year, month)[1])


def date_in_text(text: str) -> dt.date | None:
    """The date a label or a title prints, or None."""
    s = fold(text)
    if m := _ON_DATE.search(s):
        return _date(int(m.group(3)), _month(m.group(2)), int(m.group(1)))
    if m := _NUMERIC.search(s):
        return _date(int(m.group(3)), int(m.group(2)), int(m.group(1)))
    if m := _RANGE.search(s):
        return _month_end(int(m.group(3)), _month(m.group(2)))
    if m := _YEAR.search(s):
        return dt.date(int(m.group(1)), 12, 31)
    return None


def parse_period_label(label: str) -> tuple[PeriodKind, dt.date | None]:
    """`(period_kind, period_date)` of a column label."""
    found = date_in_text(label)
    if found is not None:
        return "absolute", found
    s = fold(label)
    for pattern, kind in _RELATIVE:
        if pattern.search(s):
            return kind, None
    return "none", None
