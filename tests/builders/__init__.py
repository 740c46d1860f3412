"""Workbooks written in code for tests: real XLSX / XLS / XLSB files, and hostile ones.

write_xlsx([SheetSpec("ОСВ", rows=[["Счёт", "Сальдо"], ["01", 1234.5]],
                      merged=["A1:B1"], outline_levels={1: 1}, bold_rows={0})]) -> bytes
"""

from __future__ import annotations

from .hostile import (
    HYPERLINK_NAME,
    billion_laughs_xlsx,
    far_cell_xlsx,
    formula_named_income_xlsx,
    formula_without_value_xlsx,
    lying_dimension_bomb_xlsx,
    mutants,
    replace_member,
    with_stray_cells,
    xxe_xlsx,
    zip_slip_xlsx,
)
from .spec import CellInput, Merge, SheetSpec, merge_bounds, spec_of
from .xls import write_xls
from .xlsb import write_xlsb
from .xlsx import rename_shared_strings, write_xlsx

__all__ = [
    "HYPERLINK_NAME",
    "CellInput",
    "Merge",
    "SheetSpec",
    "billion_laughs_xlsx",
    "far_cell_xlsx",
    "formula_named_income_xlsx",
    "formula_without_value_xlsx",
    "lying_dimension_bomb_xlsx",
    "merge_bounds",
    "mutants",
    "rename_shared_strings",
    "replace_member",
    "spec_of",
    "with_stray_cells",
    "write_xls",
    "write_xlsb",
    "write_xlsx",
    "xxe_xlsx",
    "zip_slip_xlsx",
]
