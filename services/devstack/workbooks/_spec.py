"""What a test says about one sheet; every workbook writer takes a list of these."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

__all__ = ["CellInput", "Merge", "SheetSpec", "hidden_by_merges", "merge_bounds"]

CellInput = str | int | float | bool | Decimal | dt.date | dt.datetime | None
Merge = str | tuple[int, int, int, int]


@dataclass(frozen=True)
class SheetSpec:
    """A sheet: rows of values (0-based positions), merges, outline levels, bold rows.

    `merged` holds "A1:C2" strings or (first_row, first_col, last_row, last_col) 0-based
    tuples; `outline_levels` maps a 0-based row to its level (1..7).
    """

    name: str
    rows: Sequence[Sequence[CellInput]] = ()
    merged: Sequence[Merge] = ()
    outline_levels: Mapping[int, int] = field(default_factory=dict)
    bold_rows: Collection[int] = ()
    hidden: bool = False


def merge_bounds(merge: Merge) -> tuple[int, int, int, int]:
    """(first_row, first_col, last_row, last_col), 0-based, of a merge spec."""
    if isinstance(merge, tuple):
        return merge
    first, _, last = merge.partition(":")
    top, left = _ref(first)
    bottom, right = _ref(last or first)
    return top, left, bottom, right


def _ref(ref: str) -> tuple[int, int]:
    letters = "".join(ch for ch in ref if ch.isalpha()).upper()
    digits = "".join(ch for ch in ref if ch.isdigit())
    col = 0
    for ch in letters:
        col = col * 26 + ord(ch) - 64
    return int(digits) - 1, col - 1


def hidden_by_merges(spec: SheetSpec) -> set[tuple[int, int]]:
    """Cells inside a merged range other than its top-left: writers leave them empty."""
    covered: set[tuple[int, int]] = set()
    for merge in spec.merged:
        top, left, bottom, right = merge_bounds(merge)
        covered.update((r, c) for r in range(top, bottom + 1) for c in range(left, right + 1))
        covered.discard((top, left))
    return covered
