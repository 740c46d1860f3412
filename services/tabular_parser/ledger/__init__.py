"""Sheets that are 1C ledger reports but not trial balances, and what any other sheet shows.

`find_ledger_report` names a sheet that must never reach the statements recogniser (an
«Анализ счета», a «Карточка счета», a flat table of balances…): it becomes the file warning
SHEET_OTHER saying what to export instead. `describe_sheet` says in a few words what a sheet
holds, for the SHEET_OTHER and RECOGNITION_FAILED messages of sheets nothing recognised.
"""

from __future__ import annotations

from ._describe import describe_sheet
from ._reports import LedgerReport, find_ledger_report

__all__ = ["LedgerReport", "describe_sheet", "find_ledger_report"]
