"""Dates in statement texts: column labels, title lines and the report date of the «Коды» block.

A label either prints its date («На 31 декабря 2024 г.», «За Январь - Сентябрь 2025 г.»:
absolute, the period's last day) or names it relative to the reporting date, as the blank
forms of order 66n do («На отчетную дату отчетного периода», «За аналогичный период
предыдущего года»). A scan's text (``ocr=True``) is read more loosely: «3a» is «за», a month
name may end in any letters OCR gave it, and a numeric date may be split by spaces or slashes.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from services.arm_statements.text import fold

__all__ = [
    "PeriodKind",
    "date_in_text",
    "month_number",
    "parse_period_label",
    "report_date_in_texts",
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
_OCR_MONTH = r"(январ\w*|феврал\w*|март\w*|апрел\w*|ма[йя]\w*|июн\w*|июл\w*|август\w*|сентябр\w*|октябр\w*|ноябр\w*|декабр\w*)"
_QUARTERS = re.compile(
    r"\bза\s+(?:(\d)\s*(?:-?й\s+)?квартал|(\d{1,2})\s+месяц\w*|(1\s+)?полугоди\w*)\s+(\d{4})"
)
_YEAR = re.compile(r"\bза\s+(\d{4})\s*(?:г|год)")
_ISO_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
# «На 30.06.24»: a two-digit year only after «на», where a date is all a label can mean.
_SHORT_YEAR = re.compile(r"\bна\s+(\d{1,2})\.(\d{1,2})\.(\d{2})(?![\d.])")

_RELATIVE: tuple[tuple[re.Pattern[str], PeriodKind], ...] = (
    (re.compile(r"года?,?\s+предшествующ\w+\s+предыдущему"), "relative:prev_prev_year_end"),
    (re.compile(r"аналогичный\s+период\s+предыдущего\s+года"), "relative:prev_period"),
    (re.compile(r"31\s+декабря\s+предыдущего\s+года"), "relative:prev_year_end"),
    (re.compile(r"отчетн\w+\s+(?:дату|период)"), "relative:current"),
    # Forms 0420002/0420003: «Текущий (квартал)», «Предыдущий (Нарастающим)» — the same
    # period of the year before, as the figures of those forms show.
    (re.compile(r"\bпредыдущ\w*\s*\(?\s*(?:квартал|нарастающ|период)"), "relative:prev_period"),
    (re.compile(r"\bтекущ\w*\s*\(?\s*(?:квартал|нарастающ|период)"), "relative:current"),
)


@dataclass(frozen=True, slots=True)
class _Dates:
    """The patterns that depend on how strictly month names and numeric dates are read."""

    on_date: re.Pattern[str]
    numeric: re.Pattern[str]
    range: re.Pattern[str]
    one_month: re.Pattern[str]


def _dates(month: str, separator: str) -> _Dates:
    return _Dates(
        on_date=re.compile(rf"(?<!\d)(\d{{1,2}})\s+{month}\s+(\d{{4}})"),
        numeric=re.compile(rf"(?<!\d)(\d{{1,2}}){separator}(\d{{1,2}}){separator}(\d{{4}})(?!\d)"),
        range=re.compile(rf"\bза\s+{month}\s*[-–—]\s*{month}\s+(\d{{4}})"),
        one_month=re.compile(rf"\bза\s+{month}\s+(\d{{4}})"),
    )


_PRINTED = _dates(_MONTH, r"\.")
_SCANNED = _dates(_OCR_MONTH, r"[.\s/]")


def month_number(word: str) -> int:
    """The month a Russian month word names, in any case form («мая», «Декабрь», «сент.»);
    the one month table of the code base."""
    word = word.lower()
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


def date_in_text(text: str, *, ocr: bool = False) -> dt.date | None:
    """The date a label or title prints: a day («на 31 декабря 2024 г.», «31.12.2024»,
    «На 30.06.24») or the
    last day of a period («за Январь - Сентябрь 2025 г.», «за 9 месяцев 2025 г.», «за 2024 г.»).
    """
    s = fold(text, ocr=ocr)
    p = _SCANNED if ocr else _PRINTED
    if m := p.on_date.search(s):
        return _safe_date(int(m.group(3)), month_number(m.group(2)), int(m.group(1)))
    if m := p.numeric.search(s):
        return _safe_date(int(m.group(3)), int(m.group(2)), int(m.group(1)))
    if m := _SHORT_YEAR.search(s):
        return _safe_date(2000 + int(m.group(3)), int(m.group(2)), int(m.group(1)))
    if m := p.range.search(s):
        return _month_end(int(m.group(3)), month_number(m.group(2)))
    if m := _QUARTERS.search(s):
        year = int(m.group(4))
        if m.group(1):
            quarter = int(m.group(1))
            return _month_end(year, 3 * quarter) if 1 <= quarter <= 4 else None
        if m.group(2):
            months = int(m.group(2))
            return _month_end(year, months) if 1 <= months <= 12 else None
        return _month_end(year, 6)
    if m := p.one_month.search(s):
        return _month_end(int(m.group(2)), month_number(m.group(1)))
    if m := _YEAR.search(s):
        return dt.date(int(m.group(1)), 12, 31)
    return None


def parse_period_label(label: str, *, ocr: bool = False) -> tuple[PeriodKind, dt.date | None]:
    """``(period_kind, period_date)`` of a column label; relative labels carry no date yet."""
    found = date_in_text(label, ocr=ocr)
    if found is not None:
        return "absolute", found
    s = fold(label, ocr=ocr)
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


def report_date_in_texts(
    texts: Sequence[str], *, ocr: bool = False
) -> tuple[dt.date | None, str | None]:
    """The report date printed in the non-empty ``texts`` after «Дата (число, месяц, год)»,
    and the raw text it was read from.

    One text prints the whole date («31.12.2024», «31 декабря 2024 г.», «2024-12-31»);
    paper-like layouts print day, month and year in three (a two-digit year is 20xx).
    Nothing readable gives ``(None, all the texts)``; no texts give ``(None, None)``.
    """
    if not texts:
        return None, None
    if found := date_in_text(texts[0], ocr=ocr):
        return found, texts[0]
    if m := _ISO_DATE.fullmatch(texts[0]):
        return _safe_date(int(m.group(1)), int(m.group(2)), int(m.group(3))), texts[0]
    if len(texts) >= 3 and all(t.isdigit() for t in texts[:3]):
        day, month, year = (int(t) for t in texts[:3])
        if year < 100:
            year += 2000
        return _safe_date(year, month, day), " ".join(texts[:3])
    return None, " ".join(texts)
