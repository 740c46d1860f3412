"""Writing a mapped result's documents, inside the transaction that closes the job.

Every item of `documents[]` becomes a `document` row (`file_ordinal` = its index) with its
columns, lines and values, or its ОСВ rows; the producer's `warnings[]` and the core's own
findings become `document_issue` rows (source producer / core).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from services.arm_core._document_fields import (
    COLUMN,
    ISSUE,
    LINE,
    OSV_DOCUMENT,
    OSV_ROW,
    STATEMENT_DOCUMENT,
    VALUE,
)
from services.arm_core.db.documents import (
    Document,
    DocumentIssue,
    IssueSource,
    OsvRow,
    StatementColumn,
    StatementLine,
    StatementValue,
)
from services.arm_core.db.models import RecognitionJob, utcnow
from services.arm_core.mapping.model import CoreIssue, MappedDocument, MappedResult
from services.arm_statements import parse_money

__all__ = ["OSV", "is_osv", "store_documents"]

OSV = "OSV"
_MAX_NUMERIC_DIGITS = 36  # NUMERIC(38, 2): larger amounts keep only their exact string


def is_osv(document_type: str | None) -> bool:
    """Whether a document is a trial balance (rows) rather than a statement form (lines)."""
    return document_type == OSV


def _amount_value(amount: object) -> Decimal | None:
    value = parse_money(amount)
    if value is None or len(value.as_tuple().digits) > _MAX_NUMERIC_DIGITS:
        return None
    return value


def _items(value: object) -> Sequence[Mapping[str, Any]]:
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return [item for item in value if isinstance(item, Mapping)]
    return []


def _producer_issue(position: int, warning: Mapping[str, Any]) -> DocumentIssue:
    values, additional = ISSUE.split(warning)
    return DocumentIssue(
        position=position,
        source=IssueSource.PRODUCER.value,
        code=str(values["code"]),
        severity=str(values["severity"]),
        message=str(values["message"]),
        line_refs=values.get("line_refs"),
        column_index=values.get("column_index"),
        field=values.get("field"),
        additional=additional,
    )


def _core_issue(position: int, issue: CoreIssue) -> DocumentIssue:
    return DocumentIssue(
        position=position,
        source=IssueSource.CORE.value,
        code=issue.code,
        severity=issue.severity,
        message=issue.message,
        line_refs=list(issue.line_refs) if issue.line_refs is not None else None,
        column_index=issue.column_index,
        field=issue.field,
        additional={"details": issue.details} if issue.details else None,
    )


def _value(position: int, value: Mapping[str, Any]) -> StatementValue:
    values, additional = VALUE.split(value)
    return StatementValue(
        position=position,
        column_index=values["column_index"],
        amount=values["amount"],
        amount_value=_amount_value(values["amount"]),
        string_value=values["string_value"],
        text=values["text"],
        confidence=values["confidence"],
        is_recognized=values["is_recognized"],
        needs_review=bool(values["needs_review"]),
        additional=additional,
    )


def _line(position: int, line: Mapping[str, Any]) -> StatementLine:
    values, additional = LINE.split(line)
    return StatementLine(
        position=position,
        row_index=values["row_index"],
        ref=values["ref"],
        line_status=str(values["line_status"]),
        line_code=values["line_code"],
        line_code_original_value=values["line_code"],
        line_code_text=values["line_code_text"],
        line_code_confidence=values["line_code_confidence"],
        line_name=values["line_name"],
        line_name_confidence=values["line_name_confidence"],
        parent_ref=values.get("parent_ref"),
        needs_review=bool(values["needs_review"]),
        additional=additional,
        values=[_value(i, v) for i, v in enumerate(_items(values["values"]))],
    )


def _column(position: int, column: Mapping[str, Any]) -> StatementColumn:
    values, additional = COLUMN.split(column)
    return StatementColumn(position=position, additional=additional, **values)


def _osv_row(position: int, row: Mapping[str, Any]) -> OsvRow:
    values, additional = OSV_ROW.split(row)
    return OsvRow(position=position, additional=additional, **values)


def _document(
    job: RecognitionJob, ordinal: int, schema_version: str, mapped: MappedDocument
) -> Document:
    body = mapped.body
    osv = is_osv(body.get("document_type"))
    values, additional = (OSV_DOCUMENT if osv else STATEMENT_DOCUMENT).split(body)
    warnings = _items(values["warnings"])
    issues = [_producer_issue(i, w) for i, w in enumerate(warnings)]
    issues += [_core_issue(len(warnings) + i, c) for i, c in enumerate(mapped.core_issues)]
    children: dict[str, Any] = {}
    if osv:
        children["rows"] = [_osv_row(i, r) for i, r in enumerate(_items(values["rows"]))]
    else:
        children["columns"] = [_column(i, c) for i, c in enumerate(_items(values["columns"]))]
        children["lines"] = [_line(i, line) for i, line in enumerate(_items(values["lines"]))]
    return Document(
        id=uuid.uuid4(),
        job_id=job.id,
        file_id=job.file_id,
        file_ordinal=ordinal,
        source_schema_version=schema_version,
        document_type=str(values["document_type"]),
        form_variant=values.get("form_variant"),
        status=str(values["status"]),
        locator=values["locator"],
        header=values["header"],
        checks=values.get("checks"),
        producer_checks=mapped.producer_checks,
        additional=additional,
        created_at=utcnow(),
        issues=issues,
        **children,
    )


async def store_documents(
    session: AsyncSession, job: RecognitionJob, mapped: MappedResult
) -> list[Document]:
    """Add the documents of `mapped` for `job` to the session (flushed, not committed)."""
    documents = [
        _document(job, ordinal, mapped.schema_version, item)
        for ordinal, item in enumerate(mapped.documents)
    ]
    session.add_all(documents)
    await session.flush()
    return documents
