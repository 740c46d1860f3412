"""Real .xlsb (BIFF12) files (the writer lives in services.devstack.workbooks)."""

from __future__ import annotations

from services.devstack.workbooks import record, write_xlsb

__all__ = ["record", "write_xlsb"]
