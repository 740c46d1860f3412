"""Dates in statement texts: column labels, title lines and the «Дата» cell of the «Коды» block.

A label either prints its date («На 31 декабря 2024 г.», «За Январь - Сентябрь 2025 г.»:
absolute, the period's last day) or names it relative to the reporting date, as the blank
forms of order 66n do («На отчетную дату отчетного периода», «За аналогичный период
предыдущего года»).
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from typing import Literal

from services.tabular_parser.excel.model import CellValue
from services.tabular_parser.statements._text import cell_text, fold

__all__ = [
    "PeriodKind",
    "date_from_cells",
    "date_in_text",
    "parse_period_label",
    "resolve_relative",
]

PeriodKind = Literal[
    "absolute",
    "relative:current",
    "relative:prev_year_end",
    "relative:prev_prev_year_end",
    "relative:prev_period",
    "none",
]

_MONTHS = (
    ("янв", 1),
    ("фев", 2),
    ("мар", 3),
    ("апр", 4),
    ("ма", 5),
    ("июн", 6),
    ("июл", 7),
    ("авг", 8),
    ("сен", 9),
    ("окт", 10),
    ("ноя", 11),
    ("дек", 12),
)
_MONTH = r"(январ[ьяе]|феврал[ьяе]|марта?|апрел[ьяе]|ма[йяе]|июн[ьяе]|июл[ьяе]|августа?|сентябр[ьяе]|октябр[ьяе]|ноябр[ьяе]|декабр[ьяе])"
_ON_DATE = re.compile(rf"(?<!\d)(\d{{1,2}})\s+{_MONTH}\s+(\d{{4}})")
_RANGE = re.compile(rf"\bза\s+{_MONTH}\s*[-–—]\s*{_MONTH}\s+(\d{{4}})")
_ONE_MONTH = re.compile(rf"\bза\s+{_MONTH}\s+(\d{{4}})")
_QUARTERS = re.compile(
    r"\bза\s+(?:(\d)\s*(?:-?й\s+)?квартал|(\d{1,2})\s+месяц\w*|(1\s+)?полугоди\w*)\s+(\d{4})"
)
_YEAR = re.compile(r"\bза\s+(\d{4})\s*(?:г|год)")
_NUMERIC_DATE = re.compile(r"(?<!\d)(\d{1,2})\.(\d{1,2})\.(\d{4})(?!\d)")

_RELATIVE: tuple[tuple[re.Pattern[str], PeriodKind], ...] = (
    (re.compile(r"года?,?\s+предшествующ\w+\s+предыдущему"), "relative:prev_prev_year_end"),
    (re.compile(r"аналогичный\s+период\s+предыдущего\s+года"), "relative:prev_period"),
    (re.compile(r"31\s+декабря\s+предыдущего\s+года"), "relative:prev_year_end"),
    (re.compile(r"отчетн\w+\s+(?:дату|период)"), "relative:current"),
)


def _month(word: str) -> int:
    for stem, number in _MONTHS:
        if word.startswith(stem):
            return number
    msg = f"not a month: {word}"
    raise ValueError(msg)


def _month_end(year: int, month: int) -> dt.date:
    return dt.date(year, month, calendar.monthrange(year, month)[1])


def _safe_date(year: int, month: int, day: int) -> dt.date | None:
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def date_in_text(text: str) -> dt.date | None:
    """The date a label or title prints: a day («на 31 декабря 2024 г.», «31.12.2024») or the
    last day of a period («за Январь - Сентябрь 2025 г.», «за 9 месяцев 2025 г.», «за 2024 г.»).
    """
    s = fold(text)
    if m := _ON_DATE.search(s):
        return _safe_date(int(m.group(3)), _month(m.group(2)), int(m.group(1)))
    if m := _NUMERIC_DATE.search(s):
        return _safe_date(int(m.group(3)), int(m.group(2)), int(m.group(1)))
    if m := _RANGE.search(s):
        return _month_end(int(m.group(3)), _month(m.group(2)))
    if m := _QUARTERS.search(s):
        year = int(m.group(4))
        if m.group(1):
            quarter = int(m.group(1))
            return _month_end(year, 3 * quarter) if 1 <= quarter <= 4 else None
        if m.group(2):
            months = int(m.group(2))
            return _month_end(year, months) if 1 <= months <= 12 else None
        return _month_end(year, 6)
    if m := _ONE_MONTH.search(s):
        return _month_end(int(m.group(2)), _month(m.group(1)))
    if m := _YEAR.search(s):
        return dt.date(int(m.group(1)), 12, 31)
    return None


def parse_period_label(label: str) -> tuple[PeriodKind, dt.date | None]:
    """``(period_kind, period_date)`` of a column label; relative labels carry no date yet."""
    found = date_in_text(label)
    if found is not None:
        return "absolute", found
    s = fold(label)
    for pattern, kind in _RELATIVE:
        if pattern.search(s):
            return kind, None
    return "none", None


def resolve_relative(kind: PeriodKind, report_date: dt.date | None) -> dt.date | None:
    """The date a relative label stands for, given the reporting date (None when unknown)."""
    if report_date is None:
        return None
    if kind == "relative:current":
        return report_date
    if kind == "relative:prev_year_end":
        return dt.date(report_date.year - 1, 12, 31)
    if kind == "relative:prev_prev_year_end":
        return dt.date(report_date.year - 2, 12, 31)
    if kind == "relative:prev_period":
        last = calendar.monthrange(report_date.year - 1, report_date.month)[1]
        return dt.date(report_date.year - 1, report_date.month, min(report_date.day, last))
    return None


def date_from_cells(values: list[CellValue]) -> tuple[dt.date | None, str | None]:
    """The date printed in the cells right of «Дата (число, месяц, год)», and its raw text.

    1C prints one date cell (a real date or "31.12.2024"); paper-like layouts print day, month
    and year in three cells.
    """
    texts = [cell_text(v) for v in values if cell_text(v)]
    if not texts:
        return None, None
    first = next(v for v in values if cell_text(v))
    if isinstance(first, dt.datetime):
        return first.date(), texts[0]
    if isinstance(first, dt.date):
        return first, texts[0]
    if found := date_in_text(texts[0]):
        return found, texts[0]
    if m := re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", texts[0]):
        return _safe_date(int(m.group(1)), int(m.group(2)), int(m.group(3))), texts[0]
    if len(texts) >= 3 and all(t.isdigit() for t in texts[:3]):
        day, month, year = (int(t) for t in texts[:3])
        raw = " ".join(texts[:3])
        if year < 100:
            year += 2000
        return _safe_date(year, month, day), raw
    return None, " ".join(texts)
