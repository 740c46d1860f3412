"""`recognize_osv`: the ОСВ documents of one sheet, strictly — the tests' short way to read a
sheet whose every table must read (production reads with `read_osv_sheet`, which keeps the
other tables when one raises)."""

from __future__ import annotations

from services.excel.model import Sheet
from services.tabular_parser.osv import OsvResult, read_osv_sheet

__all__ = ["recognize_osv"]


def recognize_osv(sheet: Sheet, *, release_rows: bool = False) -> list[OsvResult]:
    """Every ОСВ table of the sheet, top to bottom; [] if none. Raises the error of the first
    table whose reading raised."""
    found = read_osv_sheet(sheet, release_rows=release_rows)
    if found.failures:
        raise found.failures[0].error
    return found.results
