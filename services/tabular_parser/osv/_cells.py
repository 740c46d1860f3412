"""Cell values as the ОСВ recogniser compares them: the shared ``excel.text`` reading.

One difference is kept: a datetime always prints its time («2024-12-31T00:00:00»), as ОСВ
titles, headers and names have always been read (extras print the date, see ``_body``).
"""

from __future__ import annotations

from services.excel.model import CellValue
from services.excel.text import cell_text as _shared_cell_text

__all__ = ["cell_text"]


def cell_text(value: CellValue) -> str:
    """The text a person reads in the cell ("" for empty); integral floats lose their ".0"."""
    return _shared_cell_text(value, keep_midnight=True)
