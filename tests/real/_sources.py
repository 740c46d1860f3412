"""The real files and an independent reading of their cells (xlrd, openpyxl), to judge ours by.

The files live outside the project, in `../shared/samples/public` next to the checkout (or
where `ARM_SHARED_SAMPLES` points); the layer is marked `shared` and skips when they are absent.
The cells are read without our reader: xlrd for XLS, openpyxl for XLSX (after giving 1C's
`xl/SharedStrings.xml` the name openpyxl looks for). A cell covered by a merge reads as the
merge's top-left value, as Excel shows it.
"""

from __future__ import annotations

import io
import os
import re
import zipfile
from decimal import Decimal
from functools import cache
from pathlib import Path

import openpyxl
import xlrd

from services.excel import parse_amount
from services.excel.guards import parse_cell_ref

__all__ = ["SAMPLES", "SourceBook", "cell_ref", "source_book"]

SAMPLES = Path(
    os.environ.get(
        "ARM_SHARED_SAMPLES",
        Path(__file__).resolve().parents[2].parent / "shared" / "samples" / "public",
    )
)
_SHARED_STRINGS = re.compile(rb"(?i)sharedstrings\.xml")
_REF = re.compile(r"^(?:'((?:[^']|'')+)'|([^!]+))!(\$?[A-Z]{1,3}\$?[0-9]+)")

Cells = dict[tuple[int, int], object]


class SourceBook:
    """Sheet name → {(row, col): value} of the non-empty cells, merges spread to their range."""

    def __init__(self, sheets: dict[str, Cells]) -> None:
        self.sheets = sheets

    def amount(self, sheet: str, row: int, col: int) -> Decimal | None:
        """The cell's money value (a number, or a money text such as «(1 234,56)»)."""
        return parse_amount(self.sheets.get(sheet, {}).get((row, col)))

    def row_texts(self, sheet: str, row: int) -> set[str]:
        """What the row's cells print, numbers without a trailing «.0» (codes are numbers too)."""
        cells = self.sheets.get(sheet, {})
        return {_text(value) for (r, _), value in cells.items() if r == row}

    def row_amounts(self, sheet: str, row: int) -> list[Decimal]:
        cells = self.sheets.get(sheet, {})
        found = (parse_amount(value) for (r, _), value in cells.items() if r == row)
        return [amount for amount in found if amount is not None]


def _text(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return " ".join(str(value).split())


def cell_ref(ref: str) -> tuple[str, int, int]:
    """ "'стр.1'!P18" → ("стр.1", 17, 15)."""
    found = _REF.match(ref)
    if found is None:
        raise ValueError(f"not a sheet reference: {ref!r}")
    sheet = found.group(1).replace("''", "'") if found.group(1) else found.group(2)
    cell = parse_cell_ref(found.group(3).replace("$", ""))
    if cell is None:
        raise ValueError(f"not a cell reference: {ref!r}")
    return sheet, cell[0], cell[1]


@cache
def source_book(name: str) -> SourceBook:
    data = (SAMPLES / name).read_bytes()
    if name.lower().endswith(".xls"):
        return SourceBook(_xls(data))
    return SourceBook(_xlsx(data))


def _xls(data: bytes) -> dict[str, Cells]:
    book = xlrd.open_workbook(file_contents=data, formatting_info=True)
    sheets: dict[str, Cells] = {}
    for sheet in book.sheets():
        cells: Cells = {}
        for row in range(sheet.nrows):
            for col in range(sheet.ncols):
                cell = sheet.cell(row, col)
                if cell.ctype in (xlrd.XL_CELL_NUMBER, xlrd.XL_CELL_TEXT):
                    cells[row, col] = cell.value
        for top, bottom, left, right in sheet.merged_cells:  # bottom and right exclusive
            _spread(cells, top, left, bottom - 1, right - 1)
        sheets[sheet.name] = cells
    return sheets


def _xlsx(data: bytes) -> dict[str, Cells]:
    book = openpyxl.load_workbook(io.BytesIO(_openpyxl_names(data)), data_only=True)
    sheets: dict[str, Cells] = {}
    for sheet in book.worksheets:
        cells: Cells = {}
        for line in sheet.iter_rows():
            for cell in line:
                if isinstance(cell.value, int | float | str):
                    cells[cell.row - 1, cell.column - 1] = cell.value
        for merged in sheet.merged_cells.ranges:
            _spread(
                cells,
                merged.min_row - 1,
                merged.min_col - 1,
                merged.max_row - 1,
                merged.max_col - 1,
            )
        sheets[sheet.title] = cells
    return sheets


def _spread(cells: Cells, top: int, left: int, bottom: int, right: int) -> None:
    value = cells.get((top, left))
    if value is None:
        return
    for row in range(top, bottom + 1):
        for col in range(left, right + 1):
            cells.setdefault((row, col), value)


def _openpyxl_names(data: bytes) -> bytes:
    """The shared strings renamed `xl/sharedStrings.xml` (1C writes `SharedStrings.xml`)."""
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for info in source.infolist():
            body = source.read(info)
            name = info.filename
            if name.lower() == "xl/sharedstrings.xml":
                name = "xl/sharedStrings.xml"
            elif name in ("[Content_Types].xml", "xl/_rels/workbook.xml.rels"):
                body = _SHARED_STRINGS.sub(b"sharedStrings.xml", body)
            archive.writestr(name, body)
    return out.getvalue()
