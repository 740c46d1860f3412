"""1C trial balances (оборотно-сальдовая ведомость) on a worksheet → osvDocument."""

from __future__ import annotations

from ._failure import TableFailure
from ._period import Period, parse_period
from ._recognize import OsvResult, OsvSheet, read_osv_sheet

__all__ = [
    "OsvResult",
    "OsvSheet",
    "Period",
    "TableFailure",
    "parse_period",
    "read_osv_sheet",
]
