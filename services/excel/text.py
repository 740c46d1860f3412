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

__all__ = ["cell_text", "squash"]


def squash_python(text: str) -> str:
    """Collapse every run of (non-breaking) whitespace to one space and strip.

    `str.split()` splits on every Unicode space (NBSP, narrow NBSP, thin space, tabs, line
    breaks), so no translation pass is needed first. The reference of `squash`, which is its C
    twin where that was built (`_kernels`): the same text, and the same object when the text
    is already squashed (most cells), with nothing allocated.
    """
    return " ".join(text.split())


squash: Callable[[str], str] = native("squash", squash_python)


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
