"""The warning codes of a statementDocument, one enum for both recognisers.

docs/warning-codes.md («Statements») lists every member with its severity and meaning; a test
keeps the two in step. Severity is the code's, so a warning cannot be raised with another one.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

__all__ = ["DocumentWarning", "Severity", "StatementWarning"]

Severity = Literal["info", "warning", "error"]


class StatementWarning(StrEnum):
    """A code of ``statementDocument.warnings[]``."""

    RELATION_FAILED = "RELATION_FAILED"
    SOFT_RELATION_FAILED = "SOFT_RELATION_FAILED"
    LINE_CODE_UNREADABLE = "LINE_CODE_UNREADABLE"
    LEGACY_LINE_CODE = "LEGACY_LINE_CODE"
    LEGACY_FORM_MAPPED = "LEGACY_FORM_MAPPED"
    LINE_CODE_MISSING = "LINE_CODE_MISSING"
    DUPLICATE_LINE_CODE = "DUPLICATE_LINE_CODE"
    VALUE_UNREADABLE = "VALUE_UNREADABLE"
    VALUE_NEEDS_REVIEW = "VALUE_NEEDS_REVIEW"
    FORMULA_WITHOUT_VALUE = "FORMULA_WITHOUT_VALUE"
    NAME_FOOTNOTE_REMOVED = "NAME_FOOTNOTE_REMOVED"
    VALUE_FOOTNOTE_REMOVED = "VALUE_FOOTNOTE_REMOVED"
    ADDITIONAL_LINES_SKIPPED = "ADDITIONAL_LINES_SKIPPED"
    COLUMNS_ALIGNED = "COLUMNS_ALIGNED"
    COLUMN_PERIOD_UNKNOWN = "COLUMN_PERIOD_UNKNOWN"
    FORM_VARIANT_UNKNOWN = "FORM_VARIANT_UNKNOWN"
    CODES_INFERRED = "CODES_INFERRED"
    TARGET_USE_LINES_UNREAD = "TARGET_USE_LINES_UNREAD"
    NO_LINES = "NO_LINES"
    HEADER_FIELD_INVALID = "HEADER_FIELD_INVALID"
    HEADER_FIELD_MISSING = "HEADER_FIELD_MISSING"
    UNITS_DOUBTFUL = "UNITS_DOUBTFUL"
    VALUE_TOO_PRECISE = "VALUE_TOO_PRECISE"
    LINE_CODE_UNKNOWN = "LINE_CODE_UNKNOWN"
    VALUE_SMALL_OUTLIER = "VALUE_SMALL_OUTLIER"

    @property
    def severity(self) -> Severity:
        """How serious the code is (the contract's info / warning / error)."""
        return _SEVERITY.get(self, "warning")


_SEVERITY: dict[StatementWarning, Severity] = {
    StatementWarning.RELATION_FAILED: "error",
    StatementWarning.NAME_FOOTNOTE_REMOVED: "info",
    StatementWarning.VALUE_FOOTNOTE_REMOVED: "info",
    StatementWarning.ADDITIONAL_LINES_SKIPPED: "info",
    StatementWarning.COLUMNS_ALIGNED: "info",
    StatementWarning.COLUMN_PERIOD_UNKNOWN: "info",
    StatementWarning.FORM_VARIANT_UNKNOWN: "info",
    StatementWarning.HEADER_FIELD_MISSING: "info",
}


@dataclass(frozen=True, slots=True)
class DocumentWarning:
    """One item of ``statementDocument.warnings[]``; what it points at is optional."""

    code: StatementWarning
    message: str
    line_refs: tuple[str, ...] = ()
    column_index: int | None = None
    field: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The contract item; pointers that are not set are left out."""
        item: dict[str, Any] = {
            "code": str(self.code),
            "severity": self.code.severity,
            "message": self.message,
        }
        if self.line_refs:
            item["line_refs"] = list(self.line_refs)
        if self.column_index is not None:
            item["column_index"] = self.column_index
        if self.field is not None:
            item["field"] = self.field
        return item
