"""Real XLSX / XLS / XLSB workbooks written in code from `SheetSpec`s.

Shared by the demo's sample files (services.devstack) and the tests (tests.builders re-exports
them): one writer per format, so the demo sends files the test suite knows the parser reads.

    write_xlsx([SheetSpec("ОСВ", rows=[["Счёт", "Сальдо"], ["01", 1234.5]],
                          merged=["A1:B1"], outline_levels={1: 1}, bold_rows={0})]) -> bytes
"""

from __future__ import annotations

from services.devstack.workbooks._spec import (
    CellInput,
    Merge,
    SheetSpec,
    hidden_by_merges,
    merge_bounds,
)
from services.devstack.workbooks._xls import write_xls
from services.devstack.workbooks._xlsb import record, write_xlsb
from services.devstack.workbooks._xlsx import write_xlsx

__all__ = [
    "CellInput",
    "Merge",
    "SheetSpec",
    "hidden_by_merges",
    "merge_bounds",
    "record",
    "write_xls",
    "write_xlsb",
    "write_xlsx",
]
