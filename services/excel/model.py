"""The workbook as recognisers see it, whatever the file format.

Readers (XLS, XLSX, XLSB) fill these plain structures; the ОСВ and statement recognisers read
only these, so a recogniser never knows which format it came from. Positions are 0-based and
absolute: `rows[r][c]` is the cell at Excel row r + 1, column c + 1, so an A1 reference is
always derivable (`a1(r, c)`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

__all__ = ["CellRange", "CellValue", "Sheet", "Workbook", "a1", "column_letters", "sheet_ref"]

CellValue = str | float | int | bool | dt.datetime | dt.date | dt.time | dt.timedelta | None


@dataclass(frozen=True, slots=True)
class CellRange:
    """An inclusive 0-based rectangle, e.g. a merged range."""

    first_row: int
    first_col: int
    last_row: int
    last_col: int

    def a1(self) -> str:
        start = a1(self.first_row, self.first_col)
        end = a1(self.last_row, self.last_col)
        return start if start == end else f"{start}:{end}"


@dataclass(slots=True)
class Sheet:
    """One worksheet: values by absolute position, plus what calamine does not expose.

    `rows` is dense from row 0 / column 0 up to the last used cell; a row ends at its last
    non-empty cell (rows may be shorter than the widest one). An empty cell inside a row is
    `""`, python-calamine's own empty value, kept as is: rewriting the million cells of a
    large sheet to None cost a tenth of its recognition. Recognisers read cells through
    `cell_text` or `cell`, which treat `""`, None (what a hand-built sheet may hold) and a
    missing cell alike. `outline_levels` holds only rows whose level is above 0.
    `formula_cells` are cells holding a formula with no cached value: they are empty and
    never evaluated. `ignored_cells` are the A1 refs of stray cells far past the table that
    were dropped so that the sheet fits the caps (see `_strays`).
    """

    name: str
    rows: list[list[CellValue]]
    merged: list[CellRange] = field(default_factory=list)
    outline_levels: dict[int, int] = field(default_factory=dict)
    bold_rows: set[int] = field(default_factory=set)
    formula_cells: set[tuple[int, int]] = field(default_factory=set)
    hidden: bool = False
    ignored_cells: list[str] = field(default_factory=list)

    def cell(self, row: int, col: int) -> CellValue:
        """The value at (row, col); None for an empty or missing cell."""
        if row < 0 or row >= len(self.rows):
            return None
        line = self.rows[row]
        value = line[col] if 0 <= col < len(line) else None
        return None if value == "" else value


@dataclass(slots=True)
class Workbook:
    format: str  # "XLS" | "XLSX" | "XLSB"
    sheets: list[Sheet]


def column_letters(col: int) -> str:
    """0 → A, 25 → Z, 26 → AA."""
    letters = ""
    n = col + 1
    while n:
        n, rem = divmod(n - 1, 26)
        letters = chr(65 + rem) + letters
    return letters


def a1(row: int, col: int) -> str:
    return f"{column_letters(col)}{row + 1}"


_PLAIN_SHEET_NAME_CHARS = set("_")


def sheet_ref(sheet_name: str, row: int, col: int) -> str:
    """`<sheet>!<A1>` with the sheet name quoted by Excel's rule (quotes doubled inside).

    Excel leaves a name unquoted only when it is a plain identifier (letters, digits and
    underscores, not starting with a digit) that cannot be read as a cell reference.
    """
    return f"{quote_sheet_name(sheet_name)}!{a1(row, col)}"


def quote_sheet_name(name: str) -> str:
    plain = (
        bool(name)
        and not name[0].isdigit()
        and all(ch.isalnum() or ch in _PLAIN_SHEET_NAME_CHARS for ch in name)
        and not _looks_like_cell_ref(name)
    )
    if plain:
        return name
    return "'" + name.replace("'", "''") + "'"


def _looks_like_cell_ref(name: str) -> bool:
    letters = name.rstrip("0123456789")
    digits = name[len(letters) :]
    return bool(digits) and 1 <= len(letters) <= 3 and letters.isascii() and letters.isalpha()
