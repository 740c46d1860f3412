"""The CLI's ОСВ sheet has a column for every field of the contract's row."""

from __future__ import annotations

from services.cli._export import OSV_COLUMNS
from services.contract.models.result_v2 import OsvRow


def test_osv_sheet_columns_are_the_file_then_every_contract_field_but_ref_and_extra() -> None:
    """`ref` (the row's key in the result file) and `extra` (its other table columns, a map)
    are left off; every other field of the generated model is a column, in its order."""
    fields = tuple(f for f in OsvRow.model_fields if f not in {"ref", "extra"})
    assert ("file", *fields) == OSV_COLUMNS
