"""Financial statements (balance, ОФР, disclosures) recognised from Excel sheets.

`recognize_statements(sheets)` classifies each sheet, reads its «Коды» block, columns and lines,
and returns contract statementDocuments (result file 2.0) with form variants and checks from
arm_statements, plus the sheets that are no statement and the sheets that failed. `describe_sheet(sheet)` says
in words what a sheet shows (the one description of a sheet that gives no document).
"""

from __future__ import annotations

from services.tabular_parser.statements._describe import (
    describe_sheet,
    empty_form_message,
    other_sheet_message,
)
from services.tabular_parser.statements.recognize import (
    SheetFailure,
    StatementsResult,
    recognize_statements,
)

__all__ = [
    "SheetFailure",
    "StatementsResult",
    "describe_sheet",
    "empty_form_message",
    "other_sheet_message",
    "recognize_statements",
]
