"""Sheet classification, per-sheet failures, disclosures, and the contract schema."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.excel import load_workbook
from services.tabular_parser.statements import recognize_statements
from tests.builders import SheetSpec

from . import _forms as f
from ._helpers import only, schema_errors

SAMPLES = Path(__file__).resolve().parents[4] / "shared" / "samples" / "public"


class _Unprintable:
    """A cell value whose text cannot be taken: what a broken reader result looks like."""

    def __str__(self) -> str:
        msg = "cell cannot be read"
        raise ValueError(msg)


def test_a_sheet_that_is_no_statement_is_other() -> None:
    """A plain table is reported in other_sheets, gives no document and a SHEET_OTHER warning."""
    result = recognize_statements([f.to_sheet(f.other_sheet("Лист1"))])
    assert (result.documents, result.other_sheets) == ([], ["Лист1"])
    assert [(w["code"], w["severity"], w["locator"]) for w in result.file_warnings()] == [
        ("SHEET_OTHER", "info", {"sheet": "Лист1"})
    ]


def test_an_exception_on_one_sheet_does_not_stop_the_others() -> None:
    """The broken ОФР sheet becomes a failure (TABLE_PARSE_FAILED); the balance is still read."""
    income = f.to_sheet(f.onec_income())
    income.rows[20][3] = _Unprintable()  # type: ignore[call-overload]
    result = recognize_statements([income, f.to_sheet(f.onec_balance())])
    assert [d["document_type"] for d in result.documents] == ["BALANCE"]
    assert [(x.sheet, x.error_type) for x in result.failures] == [
        ("Отчет о финансовых результатах", "ValueError")
    ]
    warning = result.file_warnings()[-1]
    assert (warning["code"], warning["severity"], warning["locator"]) == (
        "TABLE_PARSE_FAILED", "error", {"sheet": "Отчет о финансовых результатах"},
    )  # fmt: skip


def test_classification_by_okud_or_codes_without_a_title() -> None:
    """No title: ОКУД 0710002 makes an ОФР; catalogue codes alone make a balance."""
    income = f.onec_income()
    title_row, title_col = f.find_cell(income, "Отчет о финансовых результатах")
    by_okud = f.with_cell(income, title_row, title_col, None)
    balance = f.onec_balance("Лист2")
    for text in ("Бухгалтерский баланс", "0710001"):
        r, c = f.find_cell(balance, text)
        balance = f.with_cell(balance, r, c, None)
    result = recognize_statements(f.to_sheets([by_okud, balance]))
    assert [d["document_type"] for d in result.documents] == ["INCOME", "BALANCE"]


def test_disclosure_sheet_has_no_columns_lines_or_checks() -> None:
    """«Пояснения к бухгалтерскому балансу…»: DISCLOSURE, form_variant null, done."""
    sheet = SheetSpec(
        "Пояснения",
        [["Пояснения к бухгалтерскому балансу и отчету о финансовых результатах"],
         ["1. Нематериальные активы", "Код", "Период"], ["Всего", "5100", 10]],
    )  # fmt: skip
    doc = only(recognize_statements(f.to_sheets([f.onec_balance(), sheet])), "DISCLOSURE")
    assert (doc["columns"], doc["lines"], doc["form_variant"], doc["status"]) == (
        [],
        [],
        None,
        "done",
    )
    assert "checks" not in doc
    assert doc["header"]["inn"] == f.ORG_INN  # inherited from the balance of the same workbook


@pytest.mark.parametrize(
    "specs",
    [
        f.onec_workbook(),
        f.girbo_workbook(),
        [f.simplified_sheet()],
        [f.codeless_157n()],
        f.split_balance(),
        [f.onec_income(additional=True)],
    ],
    ids=["1c", "girbo", "simplified", "157n", "split", "additional"],
)
def test_documents_pass_the_result_schema(specs: list[SheetSpec]) -> None:
    """Every document, wrapped in a minimal result file 2.0, passes the contract schema."""
    assert schema_errors(recognize_statements(f.to_sheets(specs))) == []


def test_needs_check_documents_pass_the_result_schema() -> None:
    """Unreadable code, broken relation and missing code still give a valid result file."""
    spec = f.onec_income()
    row, col = f.find_cell(spec, "2110")
    spec = f.with_cell(spec, row, col, "2l10")
    row, col = f.find_cell(spec, "2411")
    spec = f.with_cell(spec, row, col, None)
    result = recognize_statements([f.to_sheet(spec)])
    assert only(result, "INCOME")["status"] == "needs_check"
    assert schema_errors(result) == []


@pytest.mark.shared
def test_real_157n_simplified_blank_is_no_document_but_says_it_looks_like_the_forms() -> None:
    """The official 157n blank (no «Код» column, no amounts): no balance or ОФР is produced
    from a blank (decision 0005), and each sheet's SHEET_OTHER says which form it looks like
    and how many catalogue line names it found, so the names are still read."""
    path = SAMPLES / "gradosphera_mono__obraztsy_uproshennyh_form_balans_ofr_ocs.xls"
    if not path.exists():
        pytest.skip("shared samples are absent")
    result = recognize_statements(load_workbook(path.read_bytes()).sheets)
    assert not [d for d in result.documents if d["document_type"] in ("BALANCE", "INCOME")]
    said = {w["locator"]["sheet"]: w["message"] for w in result.file_warnings()}
    assert "похоже на бухгалтерский баланс" in said["стр.1"]
    assert "наименований строк из справочника форм: 11" in said["стр.1"]
    assert "похоже на отчёт о финансовых результатах" in said["стр.2"]
    assert "наименований строк из справочника форм: 7" in said["стр.2"]
    assert schema_errors(result) == []
