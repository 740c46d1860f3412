"""Real .xls (BIFF8) files through xlwt (the writer lives in services.devstack.workbooks)."""

from __future__ import annotations

from services.devstack.workbooks import write_xls

__all__ = ["write_xls"]
