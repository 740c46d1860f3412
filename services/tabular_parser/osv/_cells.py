"""Cell values as the ОСВ recogniser compares them: one normalised text per cell."""

from __future__ import annotations

import datetime as dt

from services.tabular_parser.excel.model import CellValue

__all__ = ["cell_text", "squash"]

_SPACES = str.maketrans({"\u00a0": " ", "\u202f": " ", "\t": " ", "\r": " ", "\n": " "})


def squash(text: str) -> str:
    """Collapse every run of (non-breaking) whitespace to one space and strip."""
    return " ".join(text.translate(_SPACES).split())


def cell_text(value: CellValue) -> str:
    """The text a person reads in the cell ("" for empty); integral floats lose their ".0"."""
    if value is None:
        return ""
    if isinstance(value, str):
        return squash(value)
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    return str(value)
