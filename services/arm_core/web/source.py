"""Where a value came from: the source sheet's cells around a line, or the page it is on.

Excel: the stored upload is read with the project's own readers (`load_workbook`, under its
size and cell limits, off the event loop) and a window of cells around the line's `ref` is
cut out; the value's own cell is the one in the line's row that prints the value. Scans and
PDFs: the page is rendered from the stored file with pypdfium2 (an image upload is its page).
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from decimal import Decimal

import pypdfium2
from PIL import Image

from services.excel import Workbook, column_letters, load_workbook, parse_amount
from services.excel.model import CellValue

__all__ = [
    "ExcelRef",
    "SourceWindow",
    "excel_window",
    "page_of_ref",
    "parse_excel_ref",
    "render_page",
]

_A1 = re.compile(r"^\$?([A-Z]{1,3})\$?(\d+)$")
_PAGE = re.compile(r"^p(\d+):")
_ROWS_AROUND = 3
_MAX_COLUMNS = 12
_PAGE_SCALE = 1.5


@dataclass(frozen=True, slots=True)
class ExcelRef:
    """A parsed `<sheet>!<A1>` reference (0-based row and column)."""

    sheet: str
    row: int
    col: int


@dataclass(frozen=True, slots=True)
class SourceWindow:
    """Cells around a line: `rows[i][j]` is the cell at (first_row + i, first_col + j)."""

    sheet: str
    first_row: int
    first_col: int
    rows: list[list[str]]
    ref_row: int
    hit: tuple[int, int] | None

    @property
    def column_names(self) -> list[str]:
        """The Excel letters of the window's columns."""
        width = max((len(r) for r in self.rows), default=0)
        return [column_letters(self.first_col + j) for j in range(width)]


def _column_index(letters: str) -> int:
    index = 0
    for letter in letters:
        index = index * 26 + (ord(letter) - ord("A") + 1)
    return index - 1


def parse_excel_ref(ref: str | None) -> ExcelRef | None:
    """`'Лист 1'!C12` → ExcelRef("Лист 1", 11, 2); None for anything else (a scan's ref)."""
    if not ref or "!" not in ref:
        return None
    sheet, cell = ref.rsplit("!", 1)
    if len(sheet) >= 2 and sheet[0] == sheet[-1] == "'":
        sheet = sheet[1:-1].replace("''", "'")
    match = _A1.match(cell.split(":")[0])
    if match is None or not sheet:
        return None
    return ExcelRef(sheet, int(match.group(2)) - 1, _column_index(match.group(1)))


def page_of_ref(ref: str | None) -> int | None:
    """The page number of a scan line's ref (`p2:t0:r5` → 2)."""
    match = _PAGE.match(ref or "")
    return int(match.group(1)) if match else None


def _text(value: CellValue) -> str:
    if value is None or value == "":
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _prints(value: CellValue, amount: str | None, text: str | None) -> bool:
    shown = _text(value)
    if not shown:
        return False
    if text is not None and shown.strip() == text.strip():
        return True
    if amount is None:
        return False
    parsed = parse_amount(value)
    return parsed is not None and parsed == Decimal(amount)


def read_workbook(data: bytes) -> Workbook:
    """The stored upload as a workbook (the readers' limits bound its memory)."""
    return load_workbook(data)


def excel_window(
    workbook: Workbook, ref: ExcelRef, *, amount: str | None, text: str | None
) -> SourceWindow | None:
    """The cells around `ref`'s row; `hit` is the cell right of the ref printing the value."""
    sheet = next((s for s in workbook.sheets if s.name == ref.sheet), None)
    if sheet is None:
        return None
    first_row = max(0, ref.row - _ROWS_AROUND)
    last_row = ref.row + _ROWS_AROUND
    width = max(
        (len(sheet.rows[r]) for r in range(first_row, min(last_row + 1, len(sheet.rows)))),
        default=0,
    )
    first_col = 0 if width <= _MAX_COLUMNS else max(0, min(ref.col - 2, width - _MAX_COLUMNS))
    last_col = min(max(width, ref.col + 1), first_col + _MAX_COLUMNS) - 1
    rows = [
        [_text(sheet.cell(r, c)) for c in range(first_col, last_col + 1)]
        for r in range(first_row, last_row + 1)
    ]
    hit = None
    if amount is not None or text is not None:
        line = sheet.rows[ref.row] if ref.row < len(sheet.rows) else []
        for c in range(ref.col + 1, len(line)):
            if _prints(sheet.cell(ref.row, c), amount, text):
                hit = (ref.row, c)
                break
    return SourceWindow(ref.sheet, first_row, first_col, rows, ref.row, hit)


def render_page(data: bytes, file_type: str, page: int) -> bytes | None:
    """The page (1-based) as PNG: rendered from a PDF, or the uploaded image itself.

    Not shared with scan-gateway's OCR rendering (`scan_gateway/local/_engine.py`): what both
    do alike is one pypdfium2 call (`document[n].render(scale=…).to_pil()`). The rest differs
    for a reason: the OCR renders at its OCR resolution only the pages whose text layer it does
    not trust, keeping one document open over them, and hands PIL images to Tesseract in its
    sandboxed worker; this renders one page a person asked for at screen scale, serves an
    image upload as its own page, and answers PNG bytes. (The `duplicates` rows that paired
    this module with `_raster.py` pair frozen-dataclass declarations, not rendering.)
    """
    if file_type == "PDF":
        document = pypdfium2.PdfDocument(data)
        try:
            if not 1 <= page <= len(document):
                return None
            image = document[page - 1].render(scale=_PAGE_SCALE).to_pil()
        finally:
            document.close()
    elif page == 1:
        image = Image.open(io.BytesIO(data))
        image.load()
    else:
        return None
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, format="PNG")
    return buffer.getvalue()
