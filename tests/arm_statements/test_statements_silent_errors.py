"""Issue 26: the silent errors of unseen real files, as shared rules of arm_statements.

Blank marks are blank (class 1), a figure with more decimals than the contract holds is never
rounded or scaled (class 2), a code the form does not print is never taken on trust (class 3),
and an OCR value far smaller than its column's neighbours is up for review (class 1). Each is
proved on typed reads built here, the way both recognisers feed ``build_document``.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest

from services.arm_statements import (
    ColumnRead,
    HeaderRead,
    LineRead,
    StatementRead,
    ValueRead,
    build_document,
    is_blank_mark,
    parse_amount,
    parse_exact,
    too_precise,
)
from services.arm_statements.forms import FormKind

_CURRENT = ColumnRead(3, "За 2024 г.", 100, "absolute", dt.date(2024, 12, 31))
_PREVIOUS = ColumnRead(4, "За 2023 г.", 100, "absolute", dt.date(2023, 12, 31))
_THOUSANDS = {
    "inn": HeaderRead("7707083893", "7707083893", 100),
    "units": HeaderRead("тыс. руб.", "в тыс. рублей", 100),
}


def _line(row: int, code: str, *texts: str | None) -> LineRead:
    """A line printing ``texts`` in columns 3, 4, … read as a recogniser reads them."""
    values = tuple(
        ValueRead(3 + i, parse_amount(text), text, text, 100, True)
        for i, text in enumerate(texts)
        if text is not None
    )
    return LineRead(row, f"r{row}", "ok", code, code, 100, f"строка {code}", 100, values)


def _document(kind: FormKind, *lines: LineRead, ocr: bool = False) -> dict[str, Any]:
    read = StatementRead(
        kind,
        [{"page": 1, "table": 0}],
        _THOUSANDS,
        [_CURRENT, _PREVIOUS],
        list(lines),
        from_ocr=ocr,
    )
    return build_document(read)


def _warnings(document: dict[str, Any], code: str) -> list[dict[str, Any]]:
    return [w for w in document["warnings"] if w["code"] == code]


def _income(*extra: LineRead, ocr: bool = False) -> dict[str, Any]:
    """An ОФР whose relations hold: 2100 = 2110 − 2120, 2200 = 2100, 2300 = 2200, 2400 = 2300."""
    return _document(
        "INCOME",
        _line(1, "2110", "1 000", "900"),
        _line(2, "2120", "(400)", "(300)"),
        _line(3, "2100", "600", "600"),
        _line(4, "2200", "600", "600"),
        _line(5, "2300", "600", "600"),
        _line(6, "2400", "600", "600"),
        *extra,
        ocr=ocr,
    )


# class 1: blank means blank


@pytest.mark.parametrize(
    "text", ["-", "–", "—", "‒", "―", "−", "( - )", "(-)", "(—)", "--", "x", "Х", "х", " ", ""]
)
def test_dash_like_marks_and_crosses_are_blank(text: str) -> None:
    """Every dash a form prints for an empty cell, bracketed or not, and a cross: no amount."""
    assert is_blank_mark(text)
    assert parse_amount(text) is None


@pytest.mark.parametrize("text", ["-1", "(5)", "x1", "----", "2", "—7"])
def test_a_mark_with_a_figure_is_no_blank(text: str) -> None:
    assert not is_blank_mark(text)


def test_an_ocr_digit_among_far_larger_amounts_needs_review() -> None:
    """A scanned «2» between 150 000 and 98 000 in its column (a dash read as a digit) is up
    for review with VALUE_SMALL_OUTLIER naming its line; the same read of a workbook is not."""
    lines = (
        _line(10, "1150", "150 000", "140 000"),
        _line(11, "1170", "2", "5 000"),
        _line(12, "1190", "98 000", "97 000"),
    )
    scanned = _document("BALANCE", *lines, ocr=True)
    value = scanned["lines"][1]["values"][0]
    assert value["amount"] == "2"
    assert value["needs_review"] is True
    assert scanned["lines"][1]["needs_review"] is True
    warned = _warnings(scanned, "VALUE_SMALL_OUTLIER")
    assert [(w["line_refs"], w["column_index"]) for w in warned] == [(["r11"], 3)]
    assert "1170" in warned[0]["message"]
    assert scanned["status"] == "needs_check"
    workbook = _document("BALANCE", *lines)
    assert not _warnings(workbook, "VALUE_SMALL_OUTLIER")
    assert workbook["lines"][1]["needs_review"] is False


def test_a_small_value_a_holding_relation_confirms_or_small_neighbours_stay_as_read() -> None:
    """A small 2120 that 2100 = 2110 − 2120 covers is confirmed; 5 beside 60 is no outlier."""
    confirmed = _document(
        "INCOME",
        _line(1, "2110", "95 000"),
        _line(2, "2120", "(5)"),
        _line(3, "2100", "94 995"),
        ocr=True,
    )
    assert not _warnings(confirmed, "VALUE_SMALL_OUTLIER")
    assert confirmed["lines"][1]["values"][0]["needs_review"] is False
    near = _document(
        "BALANCE", _line(1, "1150", "60"), _line(2, "1170", "5"), _line(3, "1190", "70"), ocr=True
    )
    assert not _warnings(near, "VALUE_SMALL_OUTLIER")


# class 2: values the contract cannot hold exactly


def test_too_precise_reads_printed_decimals_not_float_noise() -> None:
    assert too_precise("0,013")
    assert too_precise("(1 234,567)")
    assert too_precise("0.013")  # a workbook cell's shortest repr
    assert not too_precise("0.30000000000000004")  # 0.1 + 0.2: float noise, no printed digit
    assert not too_precise("1 234,50")
    assert not too_precise("-")
    assert not too_precise(None)


def test_a_per_share_figure_with_three_decimals_is_kept_as_printed_and_reviewed() -> None:
    """«0,013» on 2900 in one column and 0.0133 in the other (a workbook cell): no amount is
    emitted (never 0.01, never 13), the printed text stays, both need review and the document
    warns once per value, naming line 2900; the rest of the ОФР is untouched and checks."""
    doc = _income(_line(7, "2900", "0,013", "0.0133"), _line(8, "2910", "0,01", None))
    per_share = doc["lines"][6]
    assert [v["amount"] for v in per_share["values"]] == [None, None]
    assert [v["text"] for v in per_share["values"]] == ["0,013", "0.0133"]
    assert all(v["needs_review"] for v in per_share["values"])
    assert per_share["needs_review"] is True
    warned = _warnings(doc, "VALUE_TOO_PRECISE")
    assert [(w["line_refs"], w["column_index"]) for w in warned] == [(["r7"], 3), (["r7"], 4)]
    assert all("2900" in w["message"] and w["severity"] == "warning" for w in warned)
    assert doc["lines"][7]["values"][0]["amount"] == "0.01"  # two decimals: held exactly
    assert doc["lines"][7]["needs_review"] is False
    assert doc["checks"]["relations_failed"] == []
    assert doc["status"] == "needs_check"
    assert doc["header"]["needs_review_fields"] == []  # per-share kopecks never doubt the units


def test_an_ocr_read_of_three_decimals_is_never_rounded_whatever_the_line() -> None:
    """«1 234,567» is no contract amount: it could be 1 234 567 with a misread separator as
    well as 1234.567; either way no silent rounding."""
    doc = _document("BALANCE", _line(1, "1150", "1 234,567"), ocr=True)
    value = doc["lines"][0]["values"][0]
    assert value["amount"] is None
    assert value["text"] == "1 234,567"
    assert _warnings(doc, "VALUE_TOO_PRECISE")


# class 3: lines only from the table's body


def test_a_code_the_balance_does_not_print_is_reviewed_warned_and_no_evidence() -> None:
    """«6011» with 209 991 782 759 995 (an e-signature block's serial read as a line) on a
    balance whose relations hold: the line needs review, LINE_CODE_UNKNOWN names it and the
    document is needs_check; its amount enters no relation."""
    doc = _document(
        "BALANCE",
        _line(1, "1100", "100"),
        _line(2, "1200", "50"),
        _line(3, "1600", "150"),
        _line(4, "1700", "150"),
        _line(5, "6011", "209 991 782 759 995"),
    )
    invented = doc["lines"][4]
    assert invented["line_status"] == "ok"
    assert invented["needs_review"] is True
    warned = _warnings(doc, "LINE_CODE_UNKNOWN")
    assert [w["line_refs"] for w in warned] == [["r5"]]
    assert "6011" in warned[0]["message"]
    assert doc["checks"]["relations_failed"] == []
    assert doc["status"] == "needs_check"


def test_an_income_code_on_a_balance_is_unknown_but_a_breakdown_line_is_not() -> None:
    """2110 is no balance line; 11501 breaks down 1150 and is printed by filers: no warning."""
    doc = _document(
        "BALANCE",
        _line(1, "1150", "100"),
        _line(2, "11501", "40"),
        _line(3, "2110", "7"),
    )
    assert [w["line_refs"] for w in _warnings(doc, "LINE_CODE_UNKNOWN")] == [["r3"]]
    assert doc["lines"][1]["needs_review"] is False


def test_an_unknown_code_every_amount_of_which_a_holding_relation_counts_is_confirmed() -> None:
    """2115 between 2110 and 2120 (ПАО «КАМАЗ» 2025) is in 2100 = 2110 + 2115 − 2120."""
    doc = _document(
        "INCOME",
        _line(1, "2110", "1 000"),
        _line(2, "2115", "50"),
        _line(3, "2120", "(400)"),
        _line(4, "2100", "650"),
    )
    assert not _warnings(doc, "LINE_CODE_UNKNOWN")
    assert doc["lines"][1]["needs_review"] is False
    assert Decimal(doc["lines"][1]["values"][0]["amount"]) == 50


def test_a_workbook_formula_in_thousands_keeps_its_rounded_amount() -> None:
    """=B5/1000 stores 12345.678 (shown «12 346» by the number format): rounding it to kopecks
    changes it by 0.002, immaterial, so the workbook's figure is taken as before; the same text
    read by OCR (a misread separator as likely as a fraction) is not; 0.0133 per share is."""
    workbook = _document("BALANCE", _line(1, "1150", "12345.678"), _line(2, "1170", "0.0133"))
    assert [line["values"][0]["amount"] for line in workbook["lines"]] == ["12345.68", None]
    assert [w["line_refs"] for w in _warnings(workbook, "VALUE_TOO_PRECISE")] == [["r2"]]
    scanned = _document("BALANCE", _line(1, "1150", "12345.678"), ocr=True)
    assert scanned["lines"][0]["values"][0]["amount"] is None


def test_float_noise_is_no_printed_decimal() -> None:
    assert not too_precise("12345678.900000002")  # a formula's sum: 17 significant digits
    assert parse_exact("12345678.900000002") == Decimal("12345678.9")
    assert parse_exact("(1 234,567)") == Decimal("-1234.567")
    assert parse_exact("-") is None


def test_a_per_share_line_by_its_name_is_never_rounded() -> None:
    """The 67н form prints «Базовая прибыль (убыток) на акцию» under code 201 (unreadable as a
    66n code): 1.631 changes by 0.06 % when rounded, yet a per-share figure keeps every digit."""
    legacy = LineRead(
        2,
        "r2",
        "unreadable",
        None,
        "201",
        0.0,
        "Базовая прибыль (убыток) на акцию",
        100,
        (ValueRead(3, parse_amount("1.631"), "1.631", "1.631", 100, True),),
        legacy_code=True,
    )
    doc = _document("INCOME", _line(1, "2110", "1 000"), legacy)
    assert doc["lines"][1]["values"][0]["amount"] is None
    assert [w["line_refs"] for w in _warnings(doc, "VALUE_TOO_PRECISE")] == [["r2"]]
