"""A window of cells around a line of a workbook: what the source view shows, and only that.

The workbook is read whole with the project's readers (`services.excel.load_workbook`, under
its size and cell limits), in a sandboxed worker (`services.documents_io.workers`): the window
of at most `ROWS_AROUND` rows either side and `MAX_COLUMNS` columns is all that comes back, so
a workbook with a 4-million-cell filler sheet costs its worker's memory, never the caller's.
The value's own cell is the one right of the line's `ref` in its row that prints the value.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from services.documents_io.exceptions import DocumentTooLarge, DocumentUnreadable, NotThatFormat
from services.excel import (
    LimitExceeded,
    NotAWorkbook,
    UnreadableWorkbook,
    column_letters,
    load_workbook,
    parse_amount,
)
from services.excel.model import CellValue

__all__ = ["MAX_COLUMNS", "ROWS_AROUND", "CellWindow", "ExcelRef", "cell_window"]

ROWS_AROUND = 3
MAX_COLUMNS = 12
_MAX_TEXT = 200  # characters of one cell shown


@dataclass(frozen=True, slots=True)
class ExcelRef:
    """A parsed `<sheet>!<A1>` reference (0-based row and column)."""

    sheet: str
    row: int
    col: int


@dataclass(frozen=True, slots=True)
class CellWindow:
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


def _text(value: CellValue) -> str:
    if value is None or value == "":
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)[:_MAX_TEXT]


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


def cell_window(
    data: bytes, ref: ExcelRef, *, amount: str | None, text: str | None
) -> CellWindow | None:
    """The cells around `ref`'s row of the workbook `data` (None: it has no such sheet);
    `hit` is the cell right of the ref printing the value."""
    try:
        workbook = load_workbook(data)
    except NotAWorkbook as exc:
        raise NotThatFormat(str(exc)) from None
    except LimitExceeded as exc:
        raise DocumentTooLarge(str(exc)) from None
    except UnreadableWorkbook as exc:
        raise DocumentUnreadable(str(exc)) from None
    sheet = next((s for s in workbook.sheets if s.name == ref.sheet), None)
    if sheet is None:
        return None
    first_row = max(0, ref.row - ROWS_AROUND)
    last_row = ref.row + ROWS_AROUND
    width = max(
        (len(sheet.rows[r]) for r in range(first_row, min(last_row + 1, len(sheet.rows)))),
        default=0,
    )
    first_col = 0 if width <= MAX_COLUMNS else max(0, min(ref.col - 2, width - MAX_COLUMNS))
    last_col = min(max(width, ref.col + 1), first_col + MAX_COLUMNS) - 1
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
    return CellWindow(ref.sheet, first_row, first_col, rows, ref.row, hit)
