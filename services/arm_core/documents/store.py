"""Writing a mapped result's documents, inside the transaction that closes the job.

Every item of `documents[]` becomes a `document` row (`file_ordinal` = its index) with its
columns, lines and values, or its ОСВ rows; the producer's `warnings[]` and the core's own
findings become `document_issue` rows (source producer / core). ОСВ rows (100 000 and more in
one document) go in by bulk INSERTs of plain rows, in chunks, not as one ORM object each.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any, TypeVar, cast

from sqlalchemy import Table, insert
from sqlalchemy.ext.asyncio import AsyncSession

from services.arm_core.db import documents as tables
from services.arm_core.db.models import Base, RecognitionJob, utcnow
from services.arm_core.documents.fields import (
    OSV_DOCUMENT,
    STATEMENT_DOCUMENT,
    Fields,
    fields_of,
)
from services.arm_core.documents.mapped import CoreIssue, MappedDocument, MappedResult
from services.arm_statements import parse_money

__all__ = ["OSV", "is_osv", "store_documents"]

OSV = "OSV"
_MAX_NUMERIC_DIGITS = 36  # NUMERIC(38, 2): larger amounts keep only their exact string
_OSV_CHUNK = 2000  # rows per bulk INSERT: bounds the parameters built and sent at once
# Core, not the ORM's bulk INSERT: as fast on SQLite, a third faster on PostgreSQL.
_OSV_ROW_TABLE = cast(Table, tables.OsvRow.__table__)
_OSV_ROW_FIELDS = fields_of(tables.OsvRow)

_PartT = TypeVar("_PartT", bound=Base)


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


def _columns(fields: Fields, position: int, item: Mapping[str, Any]) -> dict[str, Any]:
    """The columns of one contract object of a document: its column-backed keys (an absent
    optional one as NULL), the rest in `additional`; the same keys for every object."""
    values, additional = fields.split(item)
    return {
        "position": position,
        "additional": additional,
        **dict.fromkeys(fields.optional),
        **values,
    }


def _part(model: type[_PartT], position: int, item: Mapping[str, Any], **derived: Any) -> _PartT:
    """The row of one contract object, with the `derived` columns over its own keys."""
    return model(**{**_columns(fields_of(model), position, item), **derived})


def _producer_issue(position: int, warning: Mapping[str, Any]) -> tables.DocumentIssue:
    return _part(
        tables.DocumentIssue,
        position,
        warning,
        source=tables.IssueSource.PRODUCER.value,
        code=str(warning.get("code")),
        severity=str(warning.get("severity")),
        message=str(warning.get("message")),
    )


def _core_issue(position: int, issue: CoreIssue) -> tables.DocumentIssue:
    return tables.DocumentIssue(
        position=position,
        source=tables.IssueSource.CORE.value,
        code=issue.code,
        severity=issue.severity,
        message=issue.message,
        line_refs=list(issue.line_refs) if issue.line_refs is not None else None,
        column_index=issue.column_index,
        field=issue.field,
        additional={"details": issue.details} if issue.details else None,
    )


def _value(position: int, value: Mapping[str, Any]) -> tables.StatementValue:
    return _part(
        tables.StatementValue,
        position,
        value,
        amount_value=_amount_value(value.get("amount")),
        needs_review=bool(value.get("needs_review")),
    )


def _line(position: int, line: Mapping[str, Any]) -> tables.StatementLine:
    return _part(
        tables.StatementLine,
        position,
        line,
        line_status=str(line.get("line_status")),
        line_code_original_value=line.get("line_code"),
        needs_review=bool(line.get("needs_review")),
        values=[_value(i, v) for i, v in enumerate(_items(line.get("values")))],
    )


def _column(position: int, column: Mapping[str, Any]) -> tables.StatementColumn:
    return _part(tables.StatementColumn, position, column)


def _document(
    job: RecognitionJob, ordinal: int, schema_version: str, mapped: MappedDocument
) -> tables.Document:
    """The document with its issues, and its columns and lines (ОСВ rows are added apart)."""
    body = mapped.body
    osv = is_osv(body.get("document_type"))
    values, additional = (OSV_DOCUMENT if osv else STATEMENT_DOCUMENT).split(body)
    warnings = _items(values["warnings"])
    issues = [_producer_issue(i, w) for i, w in enumerate(warnings)]
    issues += [_core_issue(len(warnings) + i, c) for i, c in enumerate(mapped.core_issues)]
    children: dict[str, Any] = {}
    if not osv:
        children["columns"] = [_column(i, c) for i, c in enumerate(_items(values["columns"]))]
        children["lines"] = [_line(i, line) for i, line in enumerate(_items(values["lines"]))]
    return tables.Document(
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


async def _insert_osv_rows(
    session: AsyncSession, document_id: uuid.UUID, rows: Sequence[Mapping[str, Any]]
) -> None:
    for start in range(0, len(rows), _OSV_CHUNK):
        chunk = rows[start : start + _OSV_CHUNK]
        params = [
            {"document_id": document_id, **_columns(_OSV_ROW_FIELDS, start + i, row)}
            for i, row in enumerate(chunk)
        ]
        await session.execute(insert(_OSV_ROW_TABLE), params)


async def store_documents(
    session: AsyncSession, job: RecognitionJob, mapped: MappedResult
) -> list[tables.Document]:
    """Add the documents of `mapped` for `job` to the session (flushed, not committed).

    The returned documents carry their issues, columns and lines; ОСВ rows are in the database
    only (read them with `documents.read.load_osv_rows`).
    """
    documents = [
        _document(job, ordinal, mapped.schema_version, item)
        for ordinal, item in enumerate(mapped.documents)
    ]
    session.add_all(documents)
    await session.flush()
    for document, item in zip(documents, mapped.documents, strict=True):
        if is_osv(document.document_type):
            await _insert_osv_rows(session, document.id, _items(item.body.get("rows")))
    return documents
