"""The files the end-to-end tests upload, written in code from the recognisers' own test layouts.

- an ОСВ (1C layout, every control sum holds) as XLSX;
- the 1C balance + ОФР as XLSB, the ОФР alone as XLS;
- the balance and ОФР as a text-layer PDF (reportlab, DejaVuSans);
- bodies that pass the core's upload check yet are no workbook for the parser (see each);
- a large plain workbook that keeps a parser busy for seconds.
"""

from __future__ import annotations

import io
import zipfile
from typing import Any

import xlsxwriter

from services.excel.model import Sheet
from tests.builders import SheetSpec, merge_bounds, write_xls, write_xlsb, write_xlsx
from tests.tabular_parser.osv._builder import osv_sheet
from tests.tabular_parser.osv._fixtures import GENERAL_ROWS, GENERAL_TOTAL
from tests.tabular_parser.statements._forms import onec_balance, onec_income


def _spec(sheet: Sheet) -> SheetSpec:
    """A built `Sheet` as the writers' input, merges and outline levels included."""
    merged = [(m.first_row, m.first_col, m.last_row, m.last_col) for m in sheet.merged]
    rows: Any = sheet.rows  # the reader's cell values are the writers' inputs
    return SheetSpec(sheet.name, rows, merged=merged, outline_levels=sheet.outline_levels)


def osv_xlsx(sheet_name: str = "ОСВ") -> bytes:
    """A general ОСВ (01, 60 → 60.01 → counterparties, 60.02, 80) whose sums all hold."""
    return write_xlsx([_spec(osv_sheet(GENERAL_ROWS, GENERAL_TOTAL, sheet_name=sheet_name).sheet)])


def statements_xlsb() -> bytes:
    """The 1C balance and ОФР on two sheets, as XLSB."""
    return write_xlsb([onec_balance(), onec_income()])


def income_xls() -> bytes:
    """The 1C ОФР alone, as XLS (BIFF8)."""
    return write_xls([onec_income()])


def statements_pdf() -> bytes:
    """The balance and the ОФР as a text-layer PDF (one page each)."""
    from tests.scan_gateway._forms import render_pdf

    return render_pdf()


def zip_without_workbook() -> bytes:
    """A ZIP that names `xl/workbook.xml` but lacks `[Content_Types].xml`: no OOXML package.

    The core's upload check and the parser's signature are one sniffer
    (`services.contract.filetypes`), so the core refuses it at the edge, as the parser would.
    """
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("xl/workbook.xml", "<workbook/>")
        archive.writestr("readme.txt", "not a spreadsheet")
    return buffer.getvalue()


def damaged_xlsx() -> bytes:
    """An OOXML package with a workbook part that is not XML: a damaged workbook (UNREADABLE)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("xl/workbook.xml", "<<< damaged, not well-formed")
    return buffer.getvalue()


def large_workbook(rows: int) -> bytes:
    """An ОСВ sheet plus a reference sheet of `rows` text rows: seconds of reading for the
    parser, yet a small result (the ОСВ document; the reference sheet is only SHEET_OTHER).

    Written with xlsxwriter directly: the test builders are too slow for this size.
    """
    osv = _spec(osv_sheet(GENERAL_ROWS, GENERAL_TOTAL, sheet_name="ОСВ").sheet)
    buffer = io.BytesIO()
    book = xlsxwriter.Workbook(buffer, {"in_memory": True})
    first = book.add_worksheet(osv.name)
    covered: set[tuple[int, int]] = set()
    for merge in osv.merged:
        top, left, bottom, right = merge_bounds(merge)
        first.merge_range(top, left, bottom, right, osv.rows[top][left])
        covered.update((r, c) for r in range(top, bottom + 1) for c in range(left, right + 1))
    for r, row in enumerate(osv.rows):
        for c, value in enumerate(row):
            if value is not None and (r, c) not in covered:
                first.write(r, c, value)
    for r, level in osv.outline_levels.items():
        first.set_row(r, None, None, {"level": level})
    reference = book.add_worksheet("Справочник")
    filler = ["текст", "x", "y", "z", "w", "v", "u"]
    for r in range(rows):
        reference.write_row(r, 0, [f"запись {r}", f"описание {r}", f"код {r % 997}", *filler])
    book.close()
    return buffer.getvalue()
