"""The core's ОСВ row columns are the contract row's fields, and the table has each of them."""

from __future__ import annotations

from services.arm_core.db import OsvRow as OsvRowTable
from services.arm_core.documents.fields import OSV_ROW
from services.contract.models.result_v2 import OsvRow


def test_osv_row_columns_are_every_field_of_the_contract_row_in_its_order() -> None:
    """Written and read back are exactly the generated model's fields (`extra` optional)."""
    assert (*OSV_ROW.required, *OSV_ROW.optional) == tuple(OsvRow.model_fields)
    assert OSV_ROW.optional == ("extra",)


def test_each_osv_row_field_is_a_column_of_the_table() -> None:
    """A field the contract adds fails here until a migration gives it a column."""
    columns = set(OsvRowTable.__table__.columns.keys())
    assert [f for f in (*OSV_ROW.required, *OSV_ROW.optional) if f not in columns] == []
