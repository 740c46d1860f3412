"""Cell texts as the statement recogniser reads them: one normalised string per cell."""

from __future__ import annotations

import datetime as dt
import re

from services.tabular_parser.excel.model import CellValue

__all__ = ["cell_text", "fold", "squash", "strip_name_footnote"]

_SPACES = str.maketrans(
    {"\u00a0": " ", "\u202f": " ", "\u2009": " ", "\t": " ", "\r": " ", "\n": " "}
)
# A footnote reference glued to a word or bracket («Выручка7», «активы)5») or set off by a space
# at the end («активы 5»); «по разделу 1» is a section number, not a footnote.
_GLUED_FOOTNOTE = re.compile(r"(?<=[A-Za-zА-Яа-яЁё)\]»\"])\d{1,2}$")
_SPACED_FOOTNOTE = re.compile(r"(?<!разделу)(?<!раздел)\s\d{1,2}$")


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
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time() else value.isoformat()
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return squash(str(value))


def fold(text: str) -> str:
    """The comparison form of a text: lower case, ё → е, single spaces."""
    return squash(text).lower().replace("ё", "е")


def strip_name_footnote(name: str) -> str:
    """A line name without the footnote number printed after it («Выручка7» → «Выручка»)."""
    cleaned = _GLUED_FOOTNOTE.sub("", name)
    if cleaned == name:
        cleaned = _SPACED_FOOTNOTE.sub("", name)
    return cleaned.strip()
