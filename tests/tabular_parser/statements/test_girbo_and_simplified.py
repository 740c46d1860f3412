"""(b) ГИР БО exports, (c) simplified forms on one sheet, (d) the 157n form without codes."""

from __future__ import annotations

from services.tabular_parser.statements import recognize_statements

from . import _forms as f
from ._helpers import amounts, codes, line, only


def test_girbo_code_column_far_right_and_values_right_of_their_headers() -> None:
    """Codes in column L under «Код строки» (K:L); value column_index where values sit."""
    result = recognize_statements(f.to_sheets(f.girbo_workbook()))
    balance = only(result, "BALANCE")
    assert codes(balance) == [c for c, _, _ in f.GIRBO_BALANCE]
    assert [c["column_index"] for c in balance["columns"]] == [13, 16, 19]
    assert [c["period_date"] for c in balance["columns"]] == [
        "2023-12-31", "2022-12-31", "2021-12-31",
    ]  # fmt: skip
    assert line(balance, "1150")["ref"] == "'Бухгалтерский баланс'!L6"
    assert amounts(balance, "1600") == ["10000", "8000", "6000"]
    assert balance["form_variant"] == "full"
    assert balance["status"] == "done"


def test_girbo_glued_footnotes_are_removed_from_names_and_numbers() -> None:
    """«Выручка7» → «Выручка»; «(29 390)5» → -29390 (raw text kept), an info warning for each."""
    income = only(recognize_statements(f.to_sheets(f.girbo_workbook())), "INCOME")
    revenue = line(income, "2110")
    assert revenue["line_name"] == "Выручка"
    assert revenue["line_name_confidence"] < 100
    cost = line(income, "2120")["values"][0]
    assert (cost["amount"], cost["text"], cost["string_value"]) == (
        "-29390",
        "(29 390)5",
        "(29 390)",
    )
    assert cost["is_recognized"] and not cost["needs_review"]
    warned = {(w["code"], tuple(w.get("line_refs", ()))) for w in income["warnings"]}
    assert ("NAME_FOOTNOTE_REMOVED", (revenue["ref"],)) in warned
    assert ("VALUE_FOOTNOTE_REMOVED", (line(income, "2120")["ref"],)) in warned
    assert income["checks"]["relations_failed"] == []


def test_girbo_additional_lines_are_not_merged() -> None:
    """The «Дополнительные строки» table is skipped: 2110 once, with the main table's amount."""
    income = only(recognize_statements(f.to_sheets(f.girbo_workbook())), "INCOME")
    assert codes(income).count("2110") == 1
    assert amounts(income, "2110") == ["50000", "40000"]
    assert "ADDITIONAL_LINES_SKIPPED" in [w["code"] for w in income["warnings"]]


def test_girbo_header_comes_from_the_organisation_sheet() -> None:
    """«Сведения об организации» is other; its ИНН fills the forms' header at confidence 90."""
    result = recognize_statements(f.to_sheets(f.girbo_workbook()))
    assert result.other_sheets == ["Сведения об организации"]
    header = only(result, "BALANCE")["header"]
    assert (header["inn"], header["inn_confidence"]) == (f.ORG_INN, 90)
    assert header["organization_name"] == f.ORG_NAME
    assert (header["report_date"], header["report_date_text"]) == (
        "2023-12-31", "на 31 декабря 2023 г.",
    )  # fmt: skip


def test_simplified_balance_and_income_on_one_sheet_are_two_documents() -> None:
    """Two titled forms one under another: two simplified documents, every relation holding."""
    result = recognize_statements([f.to_sheet(f.simplified_sheet())])
    balance, income = only(result, "BALANCE"), only(result, "INCOME")
    assert codes(balance) == [c for c, _, _ in f.SIMPLIFIED_BALANCE]
    assert codes(income) == [c for c, _, _ in f.SIMPLIFIED_INCOME]
    for doc in (balance, income):
        assert doc["form_variant"] == "simplified"
        assert doc["checks"] == {"relations_failed": [], "soft_relations_failed": []}
        assert doc["status"] == "done"
    assert amounts(income, "2330") == ["-100", None]
    assert income["header"]["okud"] == "0710002"
    assert [c["period_date"] for c in income["columns"]] == ["2024-12-31", "2023-12-31"]


def test_157n_form_without_code_column_is_read_by_names() -> None:
    """No «Код» column: codes come from names (confidence below 100, line_code_text null)."""
    doc = only(recognize_statements([f.to_sheet(f.codeless_157n())]), "BALANCE")
    assert codes(doc) == [c for c, _, _ in f.SIMPLIFIED_BALANCE]
    first = doc["lines"][0]
    assert first["line_code_text"] is None
    assert 0 < first["line_code_confidence"] < 100
    assert first["line_name"] == "Материальные внеоборотные активы"
    assert doc["form_variant"] == "simplified"
    assert amounts(doc, "1700") == ["1000", "800", "800"]
    assert [c["column_index"] for c in doc["columns"]] == [2, 3, 4]
    assert doc["columns"][0]["period_date"] == "2024-12-31"
    assert doc["checks"]["relations_failed"] == []
    assert doc["header"]["units"] == "тыс. руб."
    assert (doc["header"]["okei"], doc["header"]["okei_text"]) == ("384", None)
