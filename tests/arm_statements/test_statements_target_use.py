"""The НКО target-use report (6100 … 6400) in the shared rules: its lines in the catalogue, its
form known by its codes, and its relations checked for any recogniser (decision 0017)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from services.arm_statements import (
    TARGET_USE_LINES,
    ColumnRead,
    HeaderRead,
    LineRead,
    StatementRead,
    ValueRead,
    build_document,
    check_lines,
    codes_kind,
    lookup_line,
    match_target_use_name,
    relations_for,
    target_use_line,
)

_COLUMN = ColumnRead(3, "За 2021 г.", 100, "absolute", dt.date(2021, 12, 31))
# The shared scanned НКО filing's truth: 6300 / 6310 printed in brackets, stored negative.
_SCAN = {"6100": "2518", "6220": "302802", "6200": "302802", "6310": "-303964"}


def _read(figures: dict[str, str], *, from_ocr: bool = False) -> StatementRead:
    lines = [
        LineRead(
            row,
            f"r{row}",
            "ok",
            code,
            code,
            100,
            TARGET_USE_LINES[code].name,
            100,
            (ValueRead(3, Decimal(text), text, text, 100, True),),
        )
        for row, (code, text) in enumerate(figures.items())
    ]
    header = {"inn": HeaderRead("7751188246", "7751188246", 100)}
    return StatementRead(
        "DISCLOSURE", [{"page": 4, "table": 0}], header, [_COLUMN], lines, from_ocr=from_ocr
    )


def test_the_catalogue_holds_the_forms_lines_apart_from_the_balance_and_the_ofr() -> None:
    """23 lines of order 66n (the ФНС XSD's ЦелИсп), «Использовано» bracketed; no 6xxx is a
    balance / ОФР line."""
    assert list(TARGET_USE_LINES)[:3] == ["6100", "6210", "6215"]
    assert len(TARGET_USE_LINES) == 23
    line = target_use_line("6400")
    assert line is not None and line.name == "Остаток средств на конец отчетного года"
    assert all(line.bracketed == code.startswith("63") for code, line in TARGET_USE_LINES.items())
    assert all(lookup_line(code) is None for code in TARGET_USE_LINES)


def test_the_relations_are_the_end_balance_and_the_two_section_sums() -> None:
    names = [(r.name, r.kind) for r in relations_for("DISCLOSURE", None)]
    assert names == [
        ("6200=6210+6215+6220+6230+6240+6250", "hard"),
        ("6300=6310+6320+6330+6350", "hard"),
        ("6310=6311+6312+6313", "soft"),
        ("6320=6321+6322+6323+6324+6325+6326", "soft"),
        ("6400=6100+6200-6300", "hard"),
    ]


@pytest.mark.parametrize("used", ["-303964", "303964"])
def test_6400_holds_with_6300_bracketed_or_written_positive(used: str) -> None:
    values = {
        code: {3: Decimal(v)}
        for code, v in {**_SCAN, "6300": used, "6310": used, "6400": "1356"}.items()
    }
    checks = check_lines("DISCLOSURE", None, values)
    assert checks.relations_failed == () and checks.soft_relations_failed == ()
    values["6400"] = {3: Decimal(1500)}
    failed = check_lines("DISCLOSURE", None, values).relations_failed
    assert [(f.relation, f.expected, f.actual) for f in failed] == [
        ("6400=6100+6200-6300", "1356", "1500")
    ]


def test_6xxx_codes_make_a_disclosure_and_balance_codes_still_a_balance() -> None:
    assert codes_kind(["6100", "6200", "6300", "6400"]) == "DISCLOSURE"
    assert codes_kind(["6100"], code_column=True) == "DISCLOSURE"
    assert codes_kind(["1150", "1210", "1600", "6100"]) == "BALANCE"
    assert codes_kind(["2110", "6100"]) is None


def test_a_scanned_report_gets_its_checks_and_a_holding_relation_is_done() -> None:
    document = build_document(_read({**_SCAN, "6300": "-303964", "6400": "1356"}, from_ocr=True))
    assert document["form_variant"] is None
    assert document["checks"] == {"relations_failed": [], "soft_relations_failed": []}
    assert document["status"] == "done"


def test_a_misread_end_balance_on_a_scan_puts_every_term_up_for_review() -> None:
    """OCR read 1856 for 1356: 6400 = 6100 + 6200 − 6300 fails, and its terms not covered by a
    holding relation (6400, 6100) need review; 6200 / 6300 are confirmed by their section sums."""
    document = build_document(_read({**_SCAN, "6300": "-303964", "6400": "1856"}, from_ocr=True))
    flagged = {item["line_code"] for item in document["lines"] if item["values"][0]["needs_review"]}
    assert flagged == {"6100", "6400"}
    assert document["status"] == "needs_check"


def test_another_disclosure_with_lines_gets_no_checks() -> None:
    read = _read({"6100": "1"})
    other = StatementRead(
        "DISCLOSURE",
        read.locator,
        read.header,
        read.columns,
        [LineRead(0, "r0", "ok", "1150", "1150", 100, "ОС", 100, read.lines[0].values)],
    )
    assert "checks" not in build_document(other)


@pytest.mark.parametrize(
    ("text", "after", "code"),
    [
        ("Остаток средств на начало отчетного года", None, "6100"),
        ("в том числе: социальная и благотворительная помощь", "6310", "6311"),
        ("Всего использовано средств", None, "6300"),
        ("Прочие", "6240", "6250"),
        ("Прочие", "6325", "6326"),
        ("Прочие", "6330", "6350"),
        ("Прочие", None, None),
        ("Поступило средств", None, None),
        ("Выручка", None, None),
    ],
)
def test_target_use_lines_are_matched_by_their_printed_names(
    text: str, after: str | None, code: str | None
) -> None:
    """A report without a «Код» column: each name gives its line; «Прочие», printed in three
    places, is the first of them after the line above it, and nothing without one."""
    assert match_target_use_name(text, after=after) == code


def test_a_scans_figure_a_relation_holds_only_within_its_tolerance_needs_review() -> None:
    """OCR read 1355 for 1356: 6400 = 6100 + 6200 − 6300 holds within its 4 units, so it
    cannot tell the misread from a rounding difference and vouches for nothing — its terms
    that no exact relation confirms (6400, 6100) need review; the same figures typed in a
    workbook are the filer's own and keep theirs."""
    figures = {**_SCAN, "6300": "-303964", "6400": "1355"}
    scanned = build_document(_read(figures, from_ocr=True))
    flagged = {item["line_code"] for item in scanned["lines"] if item["values"][0]["needs_review"]}
    assert flagged == {"6100", "6400"}
    assert scanned["status"] == "needs_check"
    typed = build_document(_read(figures))
    assert not any(item["values"][0]["needs_review"] for item in typed["lines"])
