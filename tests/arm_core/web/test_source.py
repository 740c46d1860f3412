"""Reading a line's `ref` for the source view: Excel's quoting rule, scan page refs."""

from __future__ import annotations

import pytest

from services.arm_core.web.source import ExcelRef, page_of_ref, parse_excel_ref
from services.excel import sheet_ref


@pytest.mark.parametrize(
    ("sheet", "row", "col"),
    [("Баланс", 11, 2), ("Отчет о финансовых результатах", 0, 0), ("It's", 99, 27), ("A1", 4, 3)],
)
def test_an_excel_ref_written_by_the_parser_reads_back(sheet: str, row: int, col: int) -> None:
    """Whatever `sheet_ref` writes (quoted, quotes doubled, a name like a cell) reads back."""
    assert parse_excel_ref(sheet_ref(sheet, row, col)) == ExcelRef(sheet, row, col)


@pytest.mark.parametrize("ref", [None, "", "p1:t0:r3", "Лист!", "!C3", "Лист!3C"])
def test_what_is_no_excel_ref_gives_none(ref: str | None) -> None:
    """A scan's ref, an empty or a malformed one is not taken for a cell."""
    assert parse_excel_ref(ref) is None


def test_a_scan_ref_names_its_page() -> None:
    """`p2:t0:r5` is on page 2; an Excel ref has no page."""
    assert page_of_ref("p2:t0:r5") == 2
    assert page_of_ref("'Баланс'!C3") is None
