"""(a) The 1C full balance and ОФР: header, columns, lines, form variant and checks."""

from __future__ import annotations

import pytest

from services.tabular_parser.statements import StatementsResult, recognize_statements

from . import _forms as f
from ._helpers import amounts, codes, line, only


@pytest.fixture(scope="module")
def result() -> StatementsResult:
    return recognize_statements(f.to_sheets(f.onec_workbook()))


def test_each_form_gives_one_document_and_the_other_sheet_is_other(
    result: StatementsResult,
) -> None:
    """Balance and ОФР become documents; «Справка» is reported as other, nothing failed."""
    assert [d["document_type"] for d in result.documents] == ["BALANCE", "INCOME"]
    assert result.other_sheets == ["Справка"]
    assert result.failures == []


def test_header_takes_the_organisations_inn_not_the_auditors(result: StatementsResult) -> None:
    """The «Коды» block fills every header field from its labelled cell with confidence 100."""
    header = only(result, "BALANCE")["header"]
    assert header["inn"] == f.ORG_INN != f.AUDITOR_INN
    assert header["organization_name"] == f.ORG_NAME
    assert (header["report_date"], header["report_date_text"]) == ("2024-12-31", "31.12.2024")
    assert (header["units"], header["units_text"]) == ("тыс. руб.", "в тыс. рублей")
    assert [header[k] for k in ("okud", "okpo", "okopf", "okfs", "okei")] == [
        "0710001", "12345678", "12300", "16", "384",
    ]  # fmt: skip
    assert header["address"] == f.ADDRESS
    assert header["inn_confidence"] == 100
    assert header["needs_review_fields"] == []
    assert only(result, "INCOME")["header"]["okud"] == "0710002"


def test_without_the_organisations_inn_the_auditors_is_not_taken() -> None:
    """With the organisation's ИНН row removed, inn stays null although the auditor's is printed."""
    spec = f.onec_balance()
    row, col = f.find_cell(spec, f.ORG_INN)
    doc = only(recognize_statements([f.to_sheet(f.with_cell(spec, row, col, None))]), "BALANCE")
    assert doc["header"]["inn"] is None
    assert f.AUDITOR_INN not in str(doc["header"])


def test_balance_columns_are_the_sheet_columns_with_their_dates(result: StatementsResult) -> None:
    """Three dated columns D:F, column_index = the sheet's 0-based column."""
    columns = only(result, "BALANCE")["columns"]
    assert [
        (c["column_index"], c["label"], c["period_date"], c["period_kind"]) for c in columns
    ] == [
        (3, "На 31 декабря 2024 г.", "2024-12-31", "absolute"),
        (4, "На 31 декабря 2023 г.", "2023-12-31", "absolute"),
        (5, "На 31 декабря 2022 г.", "2022-12-31", "absolute"),
    ]


def test_balance_lines_carry_codes_names_and_exact_amounts(result: StatementsResult) -> None:
    """Every coded line in print order; brackets negative, dashes null, texts with NBSP read."""
    doc = only(result, "BALANCE")
    expected = [c for c, _, _ in f.BALANCE_ACTIVE + f.BALANCE_PASSIVE]
    assert codes(doc) == expected
    assert amounts(doc, "1230") == ["30250", "27800", "25100"]
    assert amounts(doc, "1320") == ["-500", "-500", None]
    assert amounts(doc, "1260") == [None, None, None]
    first = line(doc, "1110")
    assert first["ref"] == "'Бухгалтерский баланс'!C21"
    assert first["row_index"] == 20
    assert first["line_name"] == "Нематериальные активы"
    assert (first["line_status"], first["line_code_text"], first["line_code_confidence"]) == (
        "ok", "1110", 100,
    )  # fmt: skip
    assert first["values"][0] == {
        "column_index": 3, "amount": "120", "string_value": "120", "text": "120",
        "confidence": 100, "is_recognized": True, "needs_review": False,
    }  # fmt: skip


def test_full_forms_hold_every_relation_and_are_done(result: StatementsResult) -> None:
    """form_variant full, no failed relation, status done."""
    for kind in ("BALANCE", "INCOME"):
        doc = only(result, kind)
        assert doc["form_variant"] == "full"
        assert doc["checks"] == {"relations_failed": [], "soft_relations_failed": []}
        assert doc["status"] == "done"


def test_income_has_a_detail_line_under_2110(result: StatementsResult) -> None:
    """The codeless row under 2110 is a detail line pointing at 2110's ref."""
    doc = only(result, "INCOME")
    detail = doc["lines"][1]
    assert detail["line_status"] == "detail"
    assert detail["line_code"] is None
    assert detail["line_name"] == f.DETAIL_NAME
    assert detail["parent_ref"] == line(doc, "2110")["ref"]
    assert [v["amount"] for v in detail["values"]] == ["120100", "110500"]
    assert amounts(doc, "2120") == ["-118450", "-107300"]
    assert [c["period_date"] for c in doc["columns"]] == ["2024-12-31", "2023-12-31"]


@pytest.mark.parametrize("fmt", ["XLSX", "XLS", "XLSB"])
def test_a_real_workbook_gives_the_same_documents(fmt: str, result: StatementsResult) -> None:
    """Written as a real workbook and read back, the forms give the same documents."""
    again = recognize_statements(f.read_back(f.onec_workbook(), fmt))
    assert again.documents == result.documents
    assert again.other_sheets == ["Справка"]
