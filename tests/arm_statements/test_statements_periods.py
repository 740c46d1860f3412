"""Dates in statement texts: column labels, titles and the «Дата» cells, printed and scanned."""

from __future__ import annotations

import datetime as dt

import pytest

from services.arm_statements import (
    PeriodKind,
    date_in_text,
    fold,
    parse_period_label,
    report_date_in_texts,
    resolve_relative,
)


@pytest.mark.parametrize(
    ("label", "date"),
    [
        ("На 31 декабря 2024 г.", dt.date(2024, 12, 31)),
        ("На 30 сентября 2025 г.", dt.date(2025, 9, 30)),
        ("31.12.2024", dt.date(2024, 12, 31)),
        ("На 30.06.24", dt.date(2024, 6, 30)),
        ("За Январь - Декабрь 2024 г.", dt.date(2024, 12, 31)),
        ("за январь – февраль 2024 г.", dt.date(2024, 2, 29)),
        ("За 9 месяцев 2025 г.", dt.date(2025, 9, 30)),
        ("за 1 квартал 2025 г.", dt.date(2025, 3, 31)),
        ("за 2-й квартал 2025 г.", dt.date(2025, 6, 30)),
        ("за 1 полугодие 2025 г.", dt.date(2025, 6, 30)),
        ("за май 2025 г.", dt.date(2025, 5, 31)),
        ("За 2024 г.", dt.date(2024, 12, 31)),
        ("За\u00a02023\u00a0год", dt.date(2023, 12, 31)),
    ],
)
def test_a_printed_date_or_period_is_absolute_with_its_last_day(label: str, date: dt.date) -> None:
    """A label that prints a day gives that day; one that prints a period, its last day."""
    assert parse_period_label(label) == ("absolute", date)


@pytest.mark.parametrize(
    ("label", "kind"),
    [
        ("На отчетную дату отчетного периода", "relative:current"),
        ("За отчётный период", "relative:current"),
        ("На 31 декабря предыдущего года", "relative:prev_year_end"),
        ("На 31 декабря года, предшествующего предыдущему", "relative:prev_prev_year_end"),
        ("За аналогичный период предыдущего года", "relative:prev_period"),
        ("Пояснения", "none"),
        ("На 31.02.2024", "none"),
        ("30.06.24", "none"),
        ("за 5 квартал 2024 г.", "none"),
    ],
)
def test_a_label_without_a_date_is_relative_or_none(label: str, kind: PeriodKind) -> None:
    """Blank-form wordings name the period relative to the report date; others name none."""
    assert parse_period_label(label) == (kind, None)


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("3a 2024 г.", dt.date(2024, 12, 31)),
        ("3а Январь - Декабрь 2024 г.", dt.date(2024, 12, 31)),
        ("На 31 декабри 2024 г.", dt.date(2024, 12, 31)),
        ("31 12 2024", dt.date(2024, 12, 31)),
        ("31/12/2024", dt.date(2024, 12, 31)),
    ],
)
def test_ocr_reads_za_as_3a_garbled_month_endings_and_split_numeric_dates(
    text: str, date: dt.date
) -> None:
    """What OCR makes of a label is read only with ``ocr=True``; printed text stays strict."""
    assert date_in_text(text, ocr=True) == date
    assert parse_period_label(text, ocr=True) == ("absolute", date)
    assert date_in_text(text) is None


def test_fold_normalises_case_yo_and_spaces_and_ocr_za() -> None:
    """Folding makes labels comparable; «3a» before a word becomes «за» only in OCR text."""
    assert fold("  За\u00a0Отчётный\n период ") == "за отчетный период"
    assert fold("3a 2024 г.", ocr=True) == "за 2024 г."
    assert fold("3a 2024 г.") == "3a 2024 г."
    assert fold("ИНН 3a", ocr=True) == "инн 3a"


@pytest.mark.parametrize(
    ("kind", "report", "expected"),
    [
        ("relative:current", dt.date(2025, 9, 30), dt.date(2025, 9, 30)),
        ("relative:prev_year_end", dt.date(2025, 9, 30), dt.date(2024, 12, 31)),
        ("relative:prev_prev_year_end", dt.date(2025, 9, 30), dt.date(2023, 12, 31)),
        ("relative:prev_period", dt.date(2025, 9, 30), dt.date(2024, 9, 30)),
        ("relative:prev_period", dt.date(2024, 2, 29), dt.date(2023, 2, 28)),
        ("absolute", dt.date(2025, 9, 30), None),
        ("none", dt.date(2025, 9, 30), None),
        ("relative:current", None, None),
    ],
)
def test_resolve_relative_counts_from_the_report_date(
    kind: PeriodKind, report: dt.date | None, expected: dt.date | None
) -> None:
    """Relative kinds become dates once the report date is known; 29 February falls back to 28."""
    assert resolve_relative(kind, report) == expected


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        (["31.12.2024"], (dt.date(2024, 12, 31), "31.12.2024")),
        (["31 декабря 2024 г."], (dt.date(2024, 12, 31), "31 декабря 2024 г.")),
        (["2024-12-31"], (dt.date(2024, 12, 31), "2024-12-31")),
        (["31", "12", "24", "x"], (dt.date(2024, 12, 31), "31 12 24")),
        (["31", "12", "2024"], (dt.date(2024, 12, 31), "31 12 2024")),
        (["30", "02", "2024"], (None, "30 02 2024")),
        (["когда-то", "потом"], (None, "когда-то потом")),
        ([], (None, None)),
    ],
)
def test_report_date_is_read_from_one_text_or_day_month_year(
    texts: list[str], expected: tuple[dt.date | None, str | None]
) -> None:
    """The «Дата» cells give the date and the raw text it came from (all texts if unreadable)."""
    assert report_date_in_texts(texts) == expected


def test_scanned_report_date_may_be_split_by_spaces() -> None:
    """«31 12 2024» in one OCR text is a date only when read as OCR."""
    assert report_date_in_texts(["31 12 2024"], ocr=True) == (dt.date(2024, 12, 31), "31 12 2024")
    assert report_date_in_texts(["31 12 2024"]) == (None, "31 12 2024")
