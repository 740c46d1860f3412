"""What a test says about one sheet (the writers live in services.devstack.workbooks)."""

from __future__ import annotations

import datetime as dt

from services.devstack.workbooks import CellInput, Merge, SheetSpec, hidden_by_merges, merge_bounds
from services.excel.model import CellValue, Sheet

__all__ = ["CellInput", "Merge", "SheetSpec", "hidden_by_merges", "merge_bounds", "spec_of"]


def spec_of(sheet: Sheet) -> SheetSpec:
    """A built or read `Sheet` as the writers' input: its name, cells, merges and outline
    levels, so a test can put a sheet it laid out as a `Sheet` into a real file."""
    return SheetSpec(
        sheet.name,
        [[_cell_input(value) for value in row] for row in sheet.rows],
        merged=[(m.first_row, m.first_col, m.last_row, m.last_col) for m in sheet.merged],
        outline_levels=sheet.outline_levels,
    )


def _cell_input(value: CellValue) -> CellInput:
    """The cell as a writer takes it; a bare time or a duration has no writer, so it fails
    loudly rather than being written as something else."""
    if isinstance(value, dt.time | dt.timedelta):
        raise TypeError(f"the workbook writers take no {type(value).__name__} cell: {value!r}")
    return value
