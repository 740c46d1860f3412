"""What the streaming passes learn about a sheet besides its values."""

from __future__ import annotations

from dataclasses import dataclass, field

from .model import CellRange

__all__ = ["SheetMeta"]


@dataclass(slots=True)
class SheetMeta:
    """Outline levels, bold rows, formula cells without a cached value, merges (XLSB), extent.

    `numbers` holds the stored number of each cell whose format is a date trap (see `numfmt`):
    the reader puts it back where calamine guessed a date or a time.
    """

    outline_levels: dict[int, int] = field(default_factory=dict)
    bold_rows: set[int] = field(default_factory=set)
    formula_cells: set[tuple[int, int]] = field(default_factory=set)
    merged: list[CellRange] = field(default_factory=list)
    numbers: dict[tuple[int, int], float] = field(default_factory=dict)
    hidden: bool = False
