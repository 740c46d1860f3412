"""Reading stored documents back: queries for the API and the normalised document JSON.

The normalised document is the 2.0 document shape: what a 2.0 file said, or a 1.x document
with the defaults of spec 001. It is built from the rows alone, so it proves the stored form
lost nothing. Confidences come back as numbers (an integral float as an int: 96.0 → 96).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, TypeAlias, cast

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from services.arm_core.db.documents import (
    Document,
    DocumentIssue,
    IssueSource,
    OsvRow,
    StatementLine,
)
from services.arm_core.db.models import JobStatus, RecognitionJob
from services.arm_core.documents.fields import OSV_DOCUMENT, STATEMENT_DOCUMENT, fields_of
from services.arm_core.documents.store import is_osv
from services.contract.models.result_v2_dicts import OsvDocument, StatementDocument, WarningItem
from services.contract.models.result_v2_dicts import OsvRow as OsvRowBody
from services.contract.models.result_v2_dicts import StatementLine as StatementLineBody

DocumentBody: TypeAlias = StatementDocument | OsvDocument
"""A document of the result 2.0 as plain JSON (the generated TypedDicts: no parsing, decision
0041): what `normalised_document` reads back and corrections, pages and exports work on."""

__all__ = [
    "DocumentBody",
    "count_osv_rows",
    "issue_json",
    "latest_result_job",
    "list_documents",
    "load_document",
    "load_osv_row_labels",
    "load_osv_rows",
    "normalised_document",
    "osv_row_json",
]

_RESULT_STATUSES = (JobStatus.DONE.value, JobStatus.NEEDS_CHECK.value)


def _number(value: float | None) -> float | int | None:
    if value is not None and float(value).is_integer():
        return int(value)
    return value


class _Stored(Protocol):
    """A stored contract object: its columns, and what has no column in `additional`."""

    @property
    def additional(self) -> Any: ...


def _part_json(row: _Stored, *confidences: str, **children: Any) -> dict[str, Any]:
    """A stored row as its contract object: the column-backed keys (`confidences` as numbers,
    the nested `children` as given) joined with `additional`."""
    fields = fields_of(type(row))
    keys = [key for key in (*fields.required, *fields.optional) if key not in children]
    values = {key: getattr(row, key) for key in keys}
    for key in confidences:
        values[key] = _number(values.get(key))
    return fields.join({**values, **children}, row.additional)


async def latest_result_job(session: AsyncSession, file_id: uuid.UUID) -> RecognitionJob | None:
    """The file's most recent attempt that produced a result (done or needs_check)."""
    return await session.scalar(
        select(RecognitionJob)
        .where(RecognitionJob.file_id == file_id, RecognitionJob.status.in_(_RESULT_STATUSES))
        .order_by(RecognitionJob.attempt.desc())
        .limit(1)
    )


async def list_documents(session: AsyncSession, job_id: uuid.UUID) -> Sequence[Document]:
    """The documents of one job, in the order of the result file."""
    result = await session.scalars(
        select(Document).where(Document.job_id == job_id).order_by(Document.file_ordinal)
    )
    return result.all()


async def load_document(session: AsyncSession, document_id: uuid.UUID) -> Document | None:
    """One document with its columns, lines, values and issues (ОСВ rows are paged apart)."""
    return await session.scalar(
        select(Document)
        .where(Document.id == document_id)
        .options(
            selectinload(Document.columns),
            selectinload(Document.lines).selectinload(StatementLine.values),
            selectinload(Document.issues),
        )
    )


async def count_osv_rows(session: AsyncSession, document_id: uuid.UUID) -> int:
    """How many rows an ОСВ document has."""
    count = await session.scalar(
        select(func.count()).select_from(OsvRow).where(OsvRow.document_id == document_id)
    )
    return int(count or 0)


async def load_osv_rows(
    session: AsyncSession, document_id: uuid.UUID, *, limit: int | None = None, offset: int = 0
) -> Sequence[OsvRow]:
    """Rows of an ОСВ document in their order; a page when `limit` is given."""
    stmt = (
        select(OsvRow)
        .where(OsvRow.document_id == document_id)
        .order_by(OsvRow.position)
        .offset(offset)
    )
    if limit is not None:
        stmt = stmt.limit(limit)
    return (await session.scalars(stmt)).all()


async def load_osv_row_labels(
    session: AsyncSession, document_id: uuid.UUID
) -> list[tuple[str | None, str | None, str | None]]:
    """`(ref, account, name)` of every row of an ОСВ, in order: what finds a failed check's
    row (by `ref`) and its page without loading the sums."""
    result = await session.execute(
        select(OsvRow.ref, OsvRow.account, OsvRow.name)
        .where(OsvRow.document_id == document_id)
        .order_by(OsvRow.position)
    )
    return [(ref, account, name) for ref, account, name in result.all()]


def issue_json(issue: DocumentIssue) -> WarningItem:
    """A document issue in the warning shape `{code, severity, message, line_refs?, ...}`."""
    return cast(WarningItem, _part_json(issue))


def _line_json(line: StatementLine) -> StatementLineBody:
    values = [_part_json(v, "confidence") for v in line.values]
    body = _part_json(line, "line_code_confidence", "line_name_confidence", values=values)
    return cast(StatementLineBody, body)


def osv_row_json(row: OsvRow) -> OsvRowBody:
    """An ОСВ row in the contract shape."""
    return cast(OsvRowBody, _part_json(row))


def normalised_document(document: Document, rows: Sequence[OsvRow] | None = None) -> DocumentBody:
    """The document in the 2.0 shape, from its stored rows.

    Needs `document` loaded by `load_document`; an ОСВ document also needs all its `rows`.
    The rows were written from a validated result, so the joined JSON is the contract's shape
    (the one place it is declared so, without parsing it).
    """
    warnings = [issue_json(i) for i in document.issues if i.source == IssueSource.PRODUCER.value]
    values: dict[str, Any] = {
        "document_type": document.document_type,
        "status": document.status,
        "warnings": warnings,
        "locator": document.locator,
        "header": document.header,
        "checks": document.checks,
    }
    if is_osv(document.document_type):
        values["rows"] = [osv_row_json(r) for r in rows or ()]
        return cast(OsvDocument, OSV_DOCUMENT.join(values, _mapping(document.additional)))
    values["form_variant"] = document.form_variant
    values["columns"] = [_part_json(c, "label_confidence") for c in document.columns]
    values["lines"] = [_line_json(line) for line in document.lines]
    return cast(StatementDocument, STATEMENT_DOCUMENT.join(values, _mapping(document.additional)))


def _mapping(value: object) -> Mapping[str, Any] | None:
    return value if isinstance(value, Mapping) else None
