"""What a test says about one sheet (the writers live in services.devstack.workbooks)."""

from __future__ import annotations

from services.devstack.workbooks import CellInput, Merge, SheetSpec, hidden_by_merges, merge_bounds

__all__ = ["CellInput", "Merge", "SheetSpec", "hidden_by_merges", "merge_bounds"]
