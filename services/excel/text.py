"""Cell values as recognisers read them: one normalised text per cell, "" for an empty one.

The ОСВ and statement recognisers match labels, codes and names on this text, so both read a
cell the same way: any run of spaces (non-breaking, thin, line breaks) is one space, an
integral float loses its ".0", a midnight datetime reads as its date.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from services.excel.model import CellValue

from ._kernels import native

__all__ = ["cell_text", "column_texts", "squash"]


def squash_python(text: str) -> str:
    """Collapse every run of (non-breaking) whitespace to one space and strip.

    `str.split()` splits on every Unicode space (NBSP, narrow NBSP, thin space, tabs, line
    breaks), so no translation pass is needed first. The reference of `squash`, which is its C
    twin where that was built (`_kernels`): the same text, and the same object when the text
    is already squashed (most cells), with nothing allocated.
    """
    return " ".join(text.split())


def column_texts_python(
    cells: list[CellValue], columns: tuple[tuple[int, str], ...]
) -> dict[str, str | None] | None:
    """Header → the squashed text of the row's cell at each (index, header) column (None for
    an empty cell or one past the row), when every such cell is text or nothing; else None
    (a number, a date…: the caller reads those its own way). The reference of
    `column_texts`, its C twin where built (`_kernels`)."""
    texts: dict[str, str | None] = {}
    width = len(cells)
    for index, header in columns:
        value = cells[index] if 0 <= index < width else None
        if value is None:
            texts[header] = None
        elif type(value) is str:
            texts[header] = squash_python(value) or None
        else:
            return None
    return texts


squash: Callable[[str], str] = native("squash", squash_python)
column_texts: Callable[
    [list[CellValue], tuple[tuple[int, str], ...]], dict[str, str | None] | None
] = native("column_texts", column_texts_python)


def cell_text(value: CellValue, *, keep_midnight: bool = False) -> str:
    """The text a person reads in the cell ("" for empty); integral floats lose their ".0".

    A datetime at midnight reads as its date («2024-12-31»); ``keep_midnight`` keeps its time
    («2024-12-31T00:00:00»), as the ОСВ recogniser has always read it.
    """
    if value is None:
        return ""
    if isinstance(value, str):
        return squash(value)
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, dt.datetime) and not keep_midnight and value.time() == dt.time():
        return value.date().isoformat()
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    return squash(str(value))
