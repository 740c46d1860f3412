"""The fields of an ОСВ row, as the contract's generated model `OsvRow` has them.

The core's row columns, the CLI's ОСВ sheet and the parser's six sums are these names, listed
once here rather than by hand in each room. They are written out, not read from `OsvRow` at
import: that model's module (and pydantic's model building) would cost a one-file
`arm-ka parse` about a tenth of a second for thirteen names. tests/contract/test_osv_row.py
holds them equal to `OsvRow.model_fields`, so a field the contract adds fails that test until
it is added here, and then reaches all three rooms (the core: a column, i.e. a migration).
"""

from __future__ import annotations

__all__ = ["OSV_ROW_FIELDS", "OSV_ROW_OPEN_MAP", "OSV_SUM_FIELDS"]

OSV_ROW_OPEN_MAP = "extra"
"""The row's map of its other table columns (header → value): no field of its own."""

OSV_ROW_FIELDS: tuple[str, ...] = (
    "row_index",
    "ref",
    "level",
    "kind",
    "account",
    "name",
    "inn",
    "opening_debit",
    "opening_credit",
    "turnover_debit",
    "turnover_credit",
    "closing_debit",
    "closing_credit",
)
"""The row's fields in the schema's order (`extra` aside)."""

OSV_SUM_FIELDS: tuple[str, ...] = tuple(
    name for name in OSV_ROW_FIELDS if name.endswith(("_debit", "_credit"))
)
"""The six sums: opening, turnover, closing; each debit then credit."""
