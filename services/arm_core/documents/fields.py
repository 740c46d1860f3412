"""Which keys of each contract object are columns, shared by the writer and the reader.

`required` keys are always emitted (null included); `optional` keys only when the column holds
a value. Anything else — keys a newer MINOR added, or an optional key sent as an explicit null
— lives in the row's `additional` JSON and is emitted as it came, so nothing is lost.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from services.arm_core.db.documents import (
    DocumentIssue,
    OsvRow,
    StatementColumn,
    StatementLine,
    StatementValue,
)
from services.contract.osv_row import OSV_ROW_FIELDS, OSV_ROW_OPEN_MAP

__all__ = [
    "COLUMN",
    "ISSUE",
    "LINE",
    "OSV_DOCUMENT",
    "OSV_ROW",
    "STATEMENT_DOCUMENT",
    "VALUE",
    "Fields",
    "fields_of",
]


@dataclass(frozen=True, slots=True)
class Fields:
    """The column-backed keys of one kind of contract object."""

    required: tuple[str, ...]
    optional: tuple[str, ...] = ()

    def split(self, item: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """(column values, additional or None) of a contract object."""
        values = {key: item.get(key) for key in self.required}
        additional: dict[str, Any] = {}
        for key in self.optional:
            if key in item:
                if item[key] is None:
                    additional[key] = None
                else:
                    values[key] = item[key]
        for key, value in item.items():
            if key not in self.required and key not in self.optional:
                additional[key] = value
        return values, additional or None

    def join(
        self, values: Mapping[str, Any], additional: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        """The contract object again, keys in the contract's order, additional ones last."""
        item = {key: values.get(key) for key in self.required}
        for key in self.optional:
            if values.get(key) is not None:
                item[key] = values[key]
        item.update(additional or {})
        return item


STATEMENT_DOCUMENT = Fields(
    (
        "document_type",
        "form_variant",
        "status",
        "warnings",
        "locator",
        "header",
        "columns",
        "lines",
    ),
    ("checks",),
)
OSV_DOCUMENT = Fields(
    ("document_type", "status", "warnings", "locator", "header", "rows"), ("checks",)
)
COLUMN = Fields(("column_index", "label", "label_confidence", "period_date", "period_kind"))
LINE = Fields(
    (
        "row_index",
        "ref",
        "line_status",
        "line_code",
        "line_code_text",
        "line_code_confidence",
        "line_name",
        "line_name_confidence",
        "needs_review",
        "values",
    ),
    ("parent_ref",),
)
VALUE = Fields(
    (
        "column_index",
        "amount",
        "string_value",
        "text",
        "confidence",
        "is_recognized",
        "needs_review",
    )
)
OSV_ROW = Fields(OSV_ROW_FIELDS, (OSV_ROW_OPEN_MAP,))  # one column per contract field
ISSUE = Fields(("code", "severity", "message"), ("line_refs", "column_index", "field"))

_OF_TABLE: dict[type, Fields] = {
    StatementColumn: COLUMN,
    StatementLine: LINE,
    StatementValue: VALUE,
    OsvRow: OSV_ROW,
    DocumentIssue: ISSUE,
}


def fields_of(table: type) -> Fields:
    """The column-backed keys of the contract object a table's rows hold (one place for the
    writer and the reader to pair them)."""
    return _OF_TABLE[table]
