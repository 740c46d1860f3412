"""Real exports from public repositories (../shared/samples/public/real), skipped when absent.

The regular tests build each layout class in code (test_real_layouts); this layer checks that
the real files of issue 15 read as an accountant reads them, for the table rules: codes only
from a code column, a notes column is a column, four columns under a two-level header, every
emitted amount equal to its source cell.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from services.excel import load_workbook
from services.excel.model import Sheet
from services.excel.values import format_amount, parse_amount
from services.tabular_parser.statements import StatementsResult, recognize_statements

from ._helpers import Json, only

pytestmark = pytest.mark.shared

REAL = Path(__file__).resolve().parents[4] / "shared" / "samples" / "public" / "real"
_PREFIX = "znak13_XBRL_Buhuchot_Oborot__"
_LEDGERS = (
    f"{_PREFIX}osv_eps_2019_07.xlsx",
    "kaetosh_Flat_table_account_analysis__analiz_51_2024.xlsx",
    "easylager_excel_to_sqlite__bank_oborot_vedomost_2016.xls",
)


def _read(name: str) -> tuple[StatementsResult, dict[str, Sheet]]:
    path = REAL / name
    if not path.exists():
        pytest.skip("shared real samples are absent")
    sheets = load_workbook(path.read_bytes()).sheets
    return recognize_statements(sheets), {s.name: s for s in sheets}


def _mismatches(document: Json, sheets: dict[str, Sheet]) -> list[tuple[str, int, str]]:
    out: list[tuple[str, int, str]] = []
    for item in document["lines"]:
        sheet = sheets[item["ref"].rsplit("!", 1)[0].strip("'")]
        for value in item["values"]:
            if value["amount"] is None:
                continue
            cell = parse_amount(sheet.cell(item["row_index"], value["column_index"]))
            if cell is None or format_amount(cell) != value["amount"]:
                out.append((item["ref"], value["column_index"], value["amount"]))
    return out


@pytest.mark.parametrize(
    "name",
    [
        f"{_PREFIX}balans_0420002_2019q2.xls",
        f"{_PREFIX}ofr_0420003_2019q2.xls",
        f"{_PREFIX}ofr_0420003_2019_annual.xls",
        *_LEDGERS,
    ],
)
def test_every_emitted_amount_equals_its_cell(name: str) -> None:
    """Row of the line, the value's column_index: the cell's number, nothing glued or moved."""
    result, sheets = _read(name)
    assert [m for d in result.documents for m in _mismatches(d, sheets)] == []


def test_0420002_balance_keeps_its_53_lines_and_no_disclosure() -> None:
    """«Пояснения к строкам» is a column: one BALANCE of 53 lines over two dated columns."""
    result, _ = _read(f"{_PREFIX}balans_0420002_2019q2.xls")
    assert [d["document_type"] for d in result.documents] == ["BALANCE"]
    balance = result.documents[0]
    assert len(balance["lines"]) == 53
    assert [c["column_index"] for c in balance["columns"]] == [3, 4]
    header = balance["header"]
    assert (header["okud"], header["okpo"], header["units"]) == ("0420002", "05868571", "руб.")
    assert header["organization_name"].startswith("Общество с ограниченной ответственностью")


def test_0420003_quarter_report_has_four_columns_and_its_negatives() -> None:
    """Quarter / year-to-date × current / previous, and −13102 | 0 | 13102 | 0 as printed."""
    result, _ = _read(f"{_PREFIX}ofr_0420003_2019q2.xls")
    income = only(result, "INCOME")
    assert [(c["column_index"], c["period_date"]) for c in income["columns"]] == [
        (3, "2019-06-30"), (4, "2018-06-30"), (5, "2019-06-30"), (6, "2018-06-30"),
    ]  # fmt: skip
    assert len(income["lines"]) == 68
    deferred = next(i for i in income["lines"] if i["row_index"] == 54)
    assert [v["amount"] for v in deferred["values"]] == ["-13102", "0", "13102", "0"]


@pytest.mark.parametrize("name", _LEDGERS)
def test_ledger_reports_give_no_statement_from_their_amounts(name: str) -> None:
    """Amounts 13102, 25000, accounts 1010 / 2110 are no line codes: no balance, no ОФР."""
    result, _ = _read(name)
    statements = [d for d in result.documents if d["document_type"] in ("BALANCE", "INCOME")]
    assert statements == []
