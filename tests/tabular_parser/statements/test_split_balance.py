"""(e) A balance split over two sheets is one BALANCE document with two locators."""

from __future__ import annotations

import pytest

from services.tabular_parser.statements import recognize_statements

from . import _forms as f
from ._helpers import amounts, codes, line, only


@pytest.mark.parametrize("passive_header", [True, False])
def test_split_balance_is_one_document_with_two_locators(passive_header: bool) -> None:
    """Актив and пассив sheets (the second without a title, with or without a column header)."""
    result = recognize_statements(f.to_sheets(f.split_balance(passive_header=passive_header)))
    doc = only(result, "BALANCE")
    assert [loc["sheet"] for loc in doc["locator"]] == ["Баланс (актив)", "Баланс (пассив)"]
    assert codes(doc) == [c for c, _, _ in f.BALANCE_ACTIVE + f.BALANCE_PASSIVE]
    assert line(doc, "1700")["ref"].startswith("'Баланс (пассив)'!C")
    assert amounts(doc, "1700") == ["100000", "90000", "77000"]
    assert [c["column_index"] for c in doc["columns"]] == [3, 4, 5]
    assert doc["form_variant"] == "full"
    assert doc["checks"]["relations_failed"] == []
    assert doc["status"] == "done"
    assert doc["header"]["inn"] == f.ORG_INN


def test_relation_across_the_two_sheets_is_checked() -> None:
    """1600 (актив sheet) = 1700 (пассив sheet): a wrong 1700 fails it."""
    active, passive = f.split_balance()
    row, col = f.find_cell(passive, "1700")
    broken = f.with_cell(passive, row, col + 1, 100500)
    doc = only(recognize_statements(f.to_sheets([active, broken])), "BALANCE")
    failed = {(x["relation"], x["column_index"]) for x in doc["checks"]["relations_failed"]}
    assert ("1600=1700", 3) in failed
    assert doc["status"] == "needs_check"


def test_two_complete_balances_are_not_merged() -> None:
    """Two sheets each holding a whole balance stay two documents."""
    result = recognize_statements(f.to_sheets([f.onec_balance("Б1"), f.onec_balance("Б2")]))
    assert [len(d["locator"]) for d in result.documents] == [1, 1]


def test_a_far_number_on_a_headerless_passive_sheet_is_no_value_column() -> None:
    """A number 200 columns right of the header-less пассив table (past the table's edge) adds
    no fourth value column and no value: the document reads as without it."""
    active, passive = f.split_balance(passive_header=False)
    row, _ = f.find_cell(passive, "1700")
    stray = f.with_cell(passive, row, 200, 7)
    clean = only(recognize_statements(f.to_sheets([active, passive])), "BALANCE")
    doc = only(recognize_statements(f.to_sheets([active, stray])), "BALANCE")
    assert [c["column_index"] for c in doc["columns"]] == [3, 4, 5]
    assert doc["lines"] == clean["lines"]
