"""arm_statements.build_document: the review, check, warning and status rules both recognisers
share, proved on typed reads built here."""

from __future__ import annotations

import dataclasses
import datetime as dt
from decimal import Decimal

from services.arm_statements import (
    CheckRule,
    ColumnRead,
    HeaderRead,
    HeaderReview,
    LineRead,
    StatementRead,
    ValueIssue,
    ValueRead,
    build_document,
    recheck,
)

_COLUMN = ColumnRead(3, "На 31 декабря 2024 г.", 100, "absolute", dt.date(2024, 12, 31))


def _value(amount: str | None, issue: ValueIssue | None = None) -> ValueRead:
    parsed = None if amount is None else Decimal(amount)
    return ValueRead(3, parsed, amount, amount, 100, issue is None, issue)


def _line(row: int, code: str, amount: str | None, issue: ValueIssue | None = None) -> LineRead:
    return LineRead(
        row, f"r{row}", "ok", code, code, 100, f"line {code}", 100, (_value(amount, issue),)
    )


def _balance(*lines: LineRead, header: dict[str, HeaderRead] | None = None) -> StatementRead:
    fields = header if header is not None else {"inn": HeaderRead("7707083893", "7707083893", 100)}
    return StatementRead("BALANCE", [{"page": 1, "table": 0}], fields, [_COLUMN], list(lines))


def _codes(document: dict[str, object]) -> list[str]:
    warnings = document["warnings"]
    assert isinstance(warnings, list)
    return [w["code"] for w in warnings]


def test_an_uncertain_value_covered_by_a_holding_relation_needs_no_review() -> None:
    """1600 = 1100 + 1200 holds, so the uncertain 1200 is vouched for: done, no warning."""
    doc = build_document(
        _balance(
            _line(1, "1100", "100"),
            _line(2, "1200", "50", ValueIssue.UNCERTAIN),
            _line(3, "1600", "150"),
        )
    )
    assert doc["lines"][1]["values"][0]["needs_review"] is False
    assert "VALUE_NEEDS_REVIEW" not in _codes(doc)
    assert doc["status"] == "done"


def test_an_uncertain_value_no_relation_covers_needs_review() -> None:
    """With 1600 broken, the uncertain 1200 needs review, its line too, and the document is
    needs_check with RELATION_FAILED and VALUE_NEEDS_REVIEW."""
    doc = build_document(
        _balance(
            _line(1, "1100", "100"),
            _line(2, "1200", "50", ValueIssue.UNCERTAIN),
            _line(3, "1600", "999"),
        )
    )
    assert doc["lines"][1]["needs_review"] is True
    assert {"RELATION_FAILED", "VALUE_NEEDS_REVIEW"} <= set(_codes(doc))
    assert doc["status"] == "needs_check"


def test_a_repeated_code_needs_review_and_stays_out_of_the_checks() -> None:
    """The second 1100 (a different amount) is flagged and ignored: 1600 = 1100 + 1200 holds
    with the first."""
    doc = build_document(
        _balance(
            _line(1, "1100", "100"),
            _line(2, "1200", "50"),
            _line(3, "1100", "7"),
            _line(4, "1600", "150"),
        )
    )
    assert [line["needs_review"] for line in doc["lines"]] == [False, False, True, False]
    assert "DUPLICATE_LINE_CODE" in _codes(doc)
    assert doc["checks"]["relations_failed"] == []


def test_a_balance_without_lines_is_needs_check_with_no_lines() -> None:
    """No line under a balance: NO_LINES, no columns, no checks, needs_check."""
    doc = build_document(_balance())
    assert "NO_LINES" in _codes(doc)
    assert (doc["columns"], doc["status"], "checks" in doc) == ([], "needs_check", False)


def test_the_report_date_comes_from_the_first_dated_column_when_the_header_has_none() -> None:
    """No «Дата» in the header: report_date 2024-12-31 from the column, confidence 80."""
    doc = build_document(_balance(_line(1, "1600", "5"), header={}))
    header = doc["header"]
    assert (header["report_date"], header["report_date_confidence"]) == ("2024-12-31", 80)


def test_an_uncertain_header_field_is_listed_but_only_an_invalid_one_warns() -> None:
    """Both go to needs_review_fields; HEADER_FIELD_INVALID names only the invalid one."""
    header = {
        "inn": HeaderRead("7707083893", "77О7083893", 55, HeaderReview.UNCERTAIN),
        "okpo": HeaderRead(None, "12", 100, HeaderReview.INVALID),
    }
    doc = build_document(_balance(_line(1, "1600", "5"), header=header))
    assert doc["header"]["needs_review_fields"] == ["inn", "okpo"]
    invalid = [w["field"] for w in doc["warnings"] if w["code"] == "HEADER_FIELD_INVALID"]
    assert invalid == ["okpo"]


def _inferred(row: int, code: str, amount: str) -> LineRead:
    return LineRead(
        row, f"r{row}", "ok", code, None, 90, f"line {code}", 100, (_value(amount),),
        code_inferred=True,
    )  # fmt: skip


def test_inferred_codes_warn_and_their_amounts_need_review_unless_covered() -> None:
    """Codes from names: CODES_INFERRED; 1600 = 1700 holds and vouches for both, while 1150,
    in no relation whose lines are all present, needs review."""
    doc = build_document(
        _balance(_inferred(1, "1150", "10"), _inferred(2, "1600", "40"), _inferred(3, "1700", "40"))
    )
    assert "CODES_INFERRED" in _codes(doc)
    assert [line["needs_review"] for line in doc["lines"]] == [True, False, False]


def test_with_inferred_codes_a_relation_missing_a_line_is_not_checked() -> None:
    """1600 = 1100 + 1200 with 1200 never mapped is not checked (no RELATION_FAILED); with
    printed codes the same lines fail it, the absent 1200 counting as 0."""
    inferred = build_document(_balance(_inferred(1, "1100", "10"), _inferred(2, "1600", "40")))
    printed = build_document(_balance(_line(1, "1100", "10"), _line(2, "1600", "40")))
    assert "RELATION_FAILED" not in _codes(inferred)
    assert "RELATION_FAILED" in _codes(printed)


def test_a_form_with_its_own_numbering_has_no_variant() -> None:
    """ОКУД 0420003: the codes that would say «full» (2100) do not; form_variant null, and no
    FORM_VARIANT_UNKNOWN (the form is neither variant)."""
    header = {"okud": HeaderRead("0420003", "0420003", 100)}
    read = StatementRead(
        "INCOME", [], header, [_COLUMN], [_inferred(1, "2110", "5"), _inferred(2, "2100", "5")]
    )
    doc = build_document(read)
    assert doc["form_variant"] is None
    assert "FORM_VARIANT_UNKNOWN" not in _codes(doc)  # neither variant, not an unknown one


def _income(*lines: LineRead) -> StatementRead:
    fields = {"inn": HeaderRead("7707083893", "7707083893", 100)}
    return StatementRead(
        "INCOME", [{"page": 1, "table": 0}], fields, [_COLUMN], list(lines), from_ocr=True
    )


def _unknown(row: int, code: str, amount: str) -> LineRead:
    """A code no official form prints, as the scan mapper reads it (``code_unknown``)."""
    return dataclasses.replace(_line(row, code, amount), code_unknown=True)


def test_a_printed_2115_a_holding_relation_confirms_needs_no_review() -> None:
    """КАМАЗ 2025: 2115 «Прочие поступления» (no official line) is confirmed by 2100 = 2110 +
    2115 − 2120, so neither it nor 2110 / 2120 is up for review, and the document is done."""
    doc = build_document(
        _income(
            _line(1, "2110", "315209726"),
            _unknown(2, "2115", "864854"),
            _line(3, "2120", "-315317485"),
            _line(4, "2100", "757095"),
        )
    )
    assert [line["needs_review"] for line in doc["lines"]] == [False] * 4
    assert "RELATION_FAILED" not in _codes(doc)
    assert doc["status"] == "done"


def test_a_code_no_form_prints_stays_up_for_review_without_a_holding_relation() -> None:
    """A clean code no form prints and no relation confirms («2219» for 2210) needs review."""
    doc = build_document(
        _income(_line(1, "2110", "1000"), _unknown(2, "2219", "50"), _line(3, "2100", "1000"))
    )
    assert doc["lines"][1]["needs_review"] is True
    assert doc["status"] == "needs_check"


def _units(text: str, value: str) -> dict[str, HeaderRead]:
    return {
        "inn": HeaderRead("7707083893", "7707083893", 100),
        "units": HeaderRead(value, text, 100),
    }


def test_thousands_over_amounts_with_kopecks_put_the_units_up_for_review() -> None:
    """«(тыс.руб.)» printed over 1327883.67 and the like (a real 0420003 of 2019 whose figures
    are roubles): units are listed for review with UNITS_DOUBTFUL saying what it saw."""
    read = _balance(
        _line(1, "1100", "1327883.67"),
        _line(2, "1200", "8012096.25"),
        _line(3, "1600", "9339979.92"),
        header=_units("(тыс.руб.)", "тыс. руб."),
    )
    doc = build_document(read)
    assert doc["header"]["needs_review_fields"] == ["units"]
    (warning,) = [w for w in doc["warnings"] if w["code"] == "UNITS_DOUBTFUL"]
    assert "3 из 3" in warning["message"] and "1327883.67" in warning["message"]
    assert warning["field"] == "units"
    assert doc["status"] == "needs_check"


def test_thousands_over_whole_amounts_or_roubles_are_taken_as_printed() -> None:
    """Whole amounts in thousands, or kopecks under «руб.», raise no doubt; neither does the
    per-share line 2900 (roubles with kopecks in any statement)."""
    whole = _balance(
        _line(1, "1100", "100"), _line(2, "1200", "50"), _line(3, "1600", "150"),
        header=_units("тыс. руб.", "тыс. руб."),
    )  # fmt: skip
    roubles = _balance(
        _line(1, "1100", "100.10"), _line(2, "1200", "50.20"), _line(3, "1600", "150.30"),
        header=_units("руб.", "руб."),
    )  # fmt: skip
    for read in (whole, roubles):
        doc = build_document(read)
        assert doc["header"]["needs_review_fields"] == []
        assert "UNITS_DOUBTFUL" not in _codes(doc)


def test_a_missing_header_field_is_named_in_its_warning() -> None:
    """HEADER_FIELD_MISSING says which field it did not find, not only in ``field``."""
    doc = build_document(_balance(_line(1, "1600", "1"), header={}))
    messages = {
        w["field"]: w["message"] for w in doc["warnings"] if w["code"] == "HEADER_FIELD_MISSING"
    }
    assert "ИНН" in messages["inn"]


def test_the_builder_checks_its_amounts_as_the_document_prints_them() -> None:
    """The builder hands its Decimals to the checks without writing them as strings first:
    the checks it computes are the ones `recheck` reads back from the document it built, a
    sub-kopeck amount rounded as the document prints it (50.004 → 50, 99.995 → 100)."""
    read = _balance(
        _line(1, "1100", "99.995"),
        _line(2, "1200", "50.004"),
        _line(3, "1600", "160"),
    )
    doc = build_document(read)
    assert doc["lines"][0]["values"][0]["amount"] == "100"
    again = recheck(doc, CheckRule.of_document(doc))
    assert again.checks is not None
    assert doc["checks"] == again.checks.to_dict()
    failed = doc["checks"]["relations_failed"]
    assert [(f["codes"], f["expected"], f["actual"]) for f in failed] == [
        (["1600", "1100", "1200"], "150", "160")
    ]
