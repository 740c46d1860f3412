"""The fields of an ОСВ row, read once from the contract's generated model.

The core's row columns, the CLI's ОСВ sheet and the parser's six sums are these names. Taken
from `OsvRow` (services.contract.models, generated from the schema) rather than listed by
hand in each room, a field the contract adds reaches all three, and their tests fail until
each has a place for it (the core: a column, i.e. a migration).
"""

from __future__ import annotations

from services.contract.models.result_v2 import OsvRow

__all__ = ["OSV_ROW_FIELDS", "OSV_ROW_OPEN_MAP", "OSV_SUM_FIELDS"]

OSV_ROW_OPEN_MAP = "extra"
"""The row's map of its other table columns (header → value): no field of its own."""

OSV_ROW_FIELDS: tuple[str, ...] = tuple(n for n in OsvRow.model_fields if n != OSV_ROW_OPEN_MAP)
"""The row's fields in the schema's order (`extra` aside)."""

OSV_SUM_FIELDS: tuple[str, ...] = tuple(
    name for name in OSV_ROW_FIELDS if name.endswith(("_debit", "_credit"))
)
"""The six sums: opening, turnover, closing; each debit then credit."""
