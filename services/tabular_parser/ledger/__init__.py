"""Sheets that are 1C ledger reports but not trial balances.

`find_ledger_report` names a sheet that must never reach the statements recogniser (an
«Анализ счета», a «Карточка счета», a flat table of balances…): it becomes the file warning
SHEET_OTHER saying what to export instead. What any other sheet shows is said by
`statements.describe_sheet`, the one sheet describer.
"""

from __future__ import annotations

from ._reports import LedgerReport, find_ledger_report

__all__ = ["LedgerReport", "find_ledger_report"]
