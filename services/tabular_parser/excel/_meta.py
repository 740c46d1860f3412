"""What the streaming passes learn about a sheet besides its values."""

from __future__ import annotations

from dataclasses import dataclass, field

from .model import CellRange

__all__ = ["SheetMeta"]


@dataclass(slots=True)
class SheetMeta:
    """Outline levels, bold rows, formula cells without a cached value, merges (XLSB), extent."""

    outline_levels: dict[int, int] = field(default_factory=dict)
    bold_rows: set[int] = field(default_factory=set)
    formula_cells: set[tuple[int, int]] = field(default_factory=set)
    merged: list[CellRange] = field(default_factory=list)
    hidden: bool = False
