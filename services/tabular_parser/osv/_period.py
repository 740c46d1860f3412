"""Report periods as 1C prints them in an ОСВ title («за Июль 2019 г.», «1 квартал 2025 г.»…).

A period is a range of two *points*; each point is itself a span (a month, a quarter, a date)
so that «Октябрь 2024 г. - Сентябрь 2025 г.» is the start of the left span to the end of the
right one. A left point without a year («Январь - Сентябрь 2025 г.») borrows the right's year.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from dataclasses import dataclass

from services.arm_statements.periods import month_number

__all__ = ["Period", "parse_period"]


@dataclass(frozen=True, slots=True)
class Period:
    start: dt.date
    end: dt.date

    @property
    def is_from_year_start(self) -> bool:
        return self.start.month == 1 and self.start.day == 1


_ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4}

_MONTH = r"(?P<month>янв\w*|фев\w*|мар\w*|апр\w*|ма[йя]|июн\w*|июл\w*|авг\w*|сен\w*|окт\w*|ноя\w*|дек\w*)"
_YEAR = r"(?P<year>\d{4})"
_ORDINAL = r"(?P<n>\d{1,2}|iv|i{1,3})(?:\s*-?\s*(?:й|ый|ой|ое|ий))?"

_DATE_RE = re.compile(r"(?P<d>\d{1,2})\.(?P<m>\d{1,2})\.(?P<y>\d{4}|\d{2})")
_DAY_MONTH_RE = re.compile(rf"(?P<d>\d{{1,2}})\s+{_MONTH}(?:\s+{_YEAR})?")
_MONTH_RE = re.compile(rf"{_MONTH}(?:\s+{_YEAR})?")
_QUARTER_RE = re.compile(rf"{_ORDINAL}\s+кв\w*\.?\s+{_YEAR}")
_HALF_RE = re.compile(rf"{_ORDINAL}\s+полугод\w*\s+{_YEAR}")
_MONTHS_RE = re.compile(rf"(?P<n>\d{{1,2}})\s+мес\w*\.?\s+{_YEAR}")
_YEAR_RE = re.compile(_YEAR)

_DASHES = str.maketrans({"–": "-", "—": "-", "‒": "-", "−": "-", "\u00a0": " "})
_NOISE_RE = re.compile(r"\b(?:года|год|г)\b\.?|\bза\b|\bпериод\b:?|:|,")
_SPACES_RE = re.compile(r"\s+")
_SEPARATOR_RE = re.compile(r"\s*-\s*|\sпо\s")
_FROM_RE = re.compile(r"^с\s+")


@dataclass(frozen=True, slots=True)
class _Span:
    start: dt.date
    end: dt.date


def parse_period(text: str | None) -> Period | None:
    """The period a text names, or None when it names none we know."""
    if not text:
        return None
    cleaned = _clean(text)
    if not cleaned:
        return None
    single = _point(cleaned, None)
    if single is not None:
        return Period(single.start, single.end)
    cleaned = _FROM_RE.sub("", cleaned)
    for separator in _SEPARATOR_RE.finditer(cleaned):
        right = _point(cleaned[separator.end() :], None)
        if right is None:
            continue
        left = _point(cleaned[: separator.start()], right.end.year)
        if left is not None and left.start <= right.end:
            return Period(left.start, right.end)
    return None


def _clean(text: str) -> str:
    lowered = text.translate(_DASHES).lower().replace("ё", "е")
    lowered = _NOISE_RE.sub(" ", lowered)
    return _SPACES_RE.sub(" ", lowered).strip(" .-")


def _point(text: str, default_year: int | None) -> _Span | None:
    """One span that covers the whole text, or None."""
    text = text.strip(" .")
    if (m := _DATE_RE.fullmatch(text)) is not None:
        year = int(m["y"])
        year += 2000 if year < 100 else 0
        day = _date(year, int(m["m"]), int(m["d"]))
        return _Span(day, day) if day else None
    if (m := _DAY_MONTH_RE.fullmatch(text)) is not None:
        year_d = _year(m["year"], default_year)
        day = _date(year_d, month_number(m["month"]), int(m["d"])) if year_d else None
        return _Span(day, day) if day else None
    if (m := _MONTH_RE.fullmatch(text)) is not None:
        year_m = _year(m["year"], default_year)
        return _months(year_m, month_number(m["month"]), 1) if year_m else None
    if (m := _QUARTER_RE.fullmatch(text)) is not None:
        n = _ordinal(m["n"])
        return _months(int(m["year"]), 3 * n - 2, 3) if 1 <= n <= 4 else None
    if (m := _HALF_RE.fullmatch(text)) is not None:
        n = _ordinal(m["n"])
        return _months(int(m["year"]), 6 * n - 5, 6) if 1 <= n <= 2 else None
    if (m := _MONTHS_RE.fullmatch(text)) is not None:
        n = int(m["n"])
        return _months(int(m["year"]), 1, n) if 1 <= n <= 12 else None
    if (m := _YEAR_RE.fullmatch(text)) is not None:
        return _months(int(m["year"]), 1, 12)
    return None


def _year(text: str | None, default: int | None) -> int | None:
    return int(text) if text else default


def _ordinal(text: str) -> int:
    return _ROMAN[text] if text in _ROMAN else int(text)


def _date(year: int, month: int, day: int) -> dt.date | None:
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def _months(year: int, first_month: int, count: int) -> _Span | None:
    last_month = first_month + count - 1
    if not (1 <= first_month <= last_month <= 12) or not (1 <= year <= 9999):
        return None
    last_day = calendar.monthrange(year, last_month)[1]
    return _Span(dt.date(year, first_month, 1), dt.date(year, last_month, last_day))
