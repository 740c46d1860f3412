"""The ОСВ export's columns come from the contract's row (services.contract.osv_row); the
core keeps only their headings."""

from __future__ import annotations

import io
from decimal import Decimal

import openpyxl

from services.arm_core.documents.export import (
    OSV_COLUMNS,
    OSV_LEFT_OFF,
    OSV_TITLES,
    osv_csv,
    osv_xlsx,
)
from services.contract.osv_row import OSV_ROW_FIELDS

_ROW = {
    "row_index": 0,
    "ref": "ОСВ!A5",
    "level": 1,
    "kind": "account",
    "account": "01.01",
    "name": "Основные средства",
    "inn": None,
    "opening_debit": "1000.10",
    "opening_credit": None,
    "turnover_debit": "0.01",
    "turnover_credit": "12345678901234.99",
    "closing_debit": "-5",
    "closing_credit": None,
}


def test_every_field_of_the_contract_row_has_a_title_or_is_left_off_on_purpose() -> None:
    """A field the contract adds fails here until the export gives it a heading (or says why
    not); a title for a field the contract no longer has fails too."""
    untitled = set(OSV_ROW_FIELDS) - set(OSV_TITLES) - OSV_LEFT_OFF
    assert not untitled, f"ОСВ row fields without an export title: {sorted(untitled)}"
    assert set(OSV_TITLES) <= set(OSV_ROW_FIELDS), set(OSV_TITLES) - set(OSV_ROW_FIELDS)
    assert not OSV_LEFT_OFF - set(OSV_ROW_FIELDS), OSV_LEFT_OFF - set(OSV_ROW_FIELDS)
    assert not OSV_LEFT_OFF & set(OSV_TITLES)


def test_the_columns_are_the_contract_fields_in_its_order_under_their_titles() -> None:
    assert [field for field, _ in OSV_COLUMNS] == [
        f for f in OSV_ROW_FIELDS if f not in OSV_LEFT_OFF
    ]
    assert all(title == OSV_TITLES[field] for field, title in OSV_COLUMNS)


def test_the_xlsx_has_the_headings_then_each_row_with_exact_sums() -> None:
    sheet = openpyxl.load_workbook(io.BytesIO(osv_xlsx([_ROW]))).worksheets[0]
    heading, row = ([c.value for c in r] for r in sheet.iter_rows())
    assert heading == [title for _, title in OSV_COLUMNS]
    cells = dict(zip((field for field, _ in OSV_COLUMNS), row, strict=True))
    assert cells["account"] == "01.01" and cells["name"] == "Основные средства"
    assert cells["level"] == 1 and cells["kind"] == "account"
    assert isinstance(cells["opening_debit"], (int, float))
    assert Decimal(str(cells["opening_debit"])) == Decimal("1000.10")
    assert Decimal(str(cells["closing_debit"])) == Decimal("-5")
    assert cells["opening_credit"] is None and cells["inn"] is None


def test_the_csv_writes_the_sums_exactly() -> None:
    text = osv_csv([_ROW]).decode("utf-8").lstrip("\ufeff")
    heading, row = (line.split(";") for line in text.strip().split("\r\n"))
    assert heading == [title for _, title in OSV_COLUMNS]
    cells = dict(zip((field for field, _ in OSV_COLUMNS), row, strict=True))
    assert cells["turnover_credit"] == "12345678901234.99"
    assert cells["opening_debit"] == "1000.10"
    assert cells["opening_credit"] == ""
