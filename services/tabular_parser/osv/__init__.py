"""1C trial balances (оборотно-сальдовая ведомость) on a worksheet → osvDocument."""

from __future__ import annotations

from ._period import Period, parse_period
from ._recognize import OsvResult, recognize_osv

__all__ = ["OsvResult", "Period", "parse_period", "recognize_osv"]
