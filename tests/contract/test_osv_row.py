"""The ОСВ row's field names written out in services.contract.osv_row are the contract's."""

from __future__ import annotations

from services.contract.models.result_v2 import OsvRow
from services.contract.osv_row import OSV_ROW_FIELDS, OSV_ROW_OPEN_MAP


def test_row_fields_are_the_generated_models_in_its_order() -> None:
    assert (*OSV_ROW_FIELDS, OSV_ROW_OPEN_MAP) == tuple(OsvRow.model_fields)
