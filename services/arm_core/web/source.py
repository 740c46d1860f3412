"""Where a value came from, as the source view names it: a line's `ref` read back.

An Excel line's ref (`'Лист 1'!C12`) names the cell the window is cut around
(`documents_io.cells`, in a sandboxed worker: `sources.py`); a scan line's ref (`p2:t0:r5`)
names its page, rendered the same way (`documents_io.pages`).
"""

from __future__ import annotations

import re

from services.documents_io.cells import ExcelRef

__all__ = ["ExcelRef", "page_of_ref", "parse_excel_ref"]

_A1 = re.compile(r"^\$?([A-Z]{1,3})\$?(\d+)$")
_PAGE = re.compile(r"^p(\d+):")


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
