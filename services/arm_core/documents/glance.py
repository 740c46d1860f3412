"""A document at a glance: what the files list shows of it and how it sorts by attention.

The figures are those of the corrected document (its corrections applied, its checks
recomputed): the status, the doubts left (values, lines and header fields still flagged), the
failed hard and soft relations (an ОСВ: its failed control sums), the header's organisation,
ИНН and report date, and the review state. Recomputing the checks needs the whole document, so
the glance is stored (`document_glance`) when the document is stored, and a list reads it in
the one query that reads the documents, beside each document's latest correction id. A glance
older than that correction (whoever wrote it: the page, the API, a future writer), computed by
another rule (`RULE`: the statements code and this module) or missing (a document stored before
the table existed) is computed again when listed and the row rewritten: a document is loaded
whole only once after each change.

A document needs attention while it is not reviewed and its status is not `done`, or doubts or
failed checks remain.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from sqlalchemy import delete, func, or_, select
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.ext.asyncio import AsyncSession

from services.arm_core.db.documents import Document, DocumentGlance
from services.arm_core.db.models import Correction, utcnow
from services.arm_core.documents.corrections import (
    CorrectedDocument,
    apply_corrections,
    load_corrected,
)
from services.arm_core.documents.read import DocumentBody, normalised_document
from services.arm_core.documents.review import ReviewState, review_of
from services.arm_statements import statements_version

__all__ = [
    "RULE",
    "GlanceState",
    "Glanced",
    "glance_documents",
    "glance_row",
    "refresh_glances",
    "store_glances",
]

GlanceState = Literal["not_reviewed", "in_progress", "reviewed"]
_STATES: dict[ReviewState, GlanceState] = {
    "recognised": "not_reviewed",
    "corrected": "in_progress",
    "reviewed": "reviewed",
}
RULE = f"{statements_version}/glance-2"[:64]
"""The code a glance was computed by: a row of another rule is computed again."""


@dataclass(frozen=True, slots=True)
class Glanced:
    """A listed document with its current glance."""

    document: Document
    glance: DocumentGlance


def _count(value: object) -> int:
    return len(value) if isinstance(value, list) else 0


def glance_row(
    document_id: uuid.UUID, corrected: CorrectedDocument[DocumentBody]
) -> DocumentGlance:
    """The glance of a corrected document (a new, unsaved row)."""
    review = review_of(corrected)
    last = max((c.id for c in corrected.corrections), default=None)
    body = corrected.document
    checks: Mapping[str, object] = body.get("checks") or {}
    header: Mapping[str, object] = body.get("header") or {}
    doubts = review.doubts_left
    if body.get("document_type") == "OSV":
        # An ОСВ's rows carry no doubt of their own: its checks say what to look at.
        failed, soft, doubts = _count(checks.get("failed")), 0, 0
    else:
        failed = _count(checks.get("relations_failed"))
        soft = _count(checks.get("soft_relations_failed"))
    state = _STATES[review.state]
    attention = state != "reviewed" and (review.status != "done" or bool(doubts) or failed > 0)
    return DocumentGlance(
        document_id=document_id,
        status=review.status,
        doubts=doubts,
        failed_checks=failed,
        soft_failed_checks=soft,
        organization_name=_text(header.get("organization_name")),
        inn=_text(header.get("inn")),
        report_date=_text(header.get("report_date")),
        review_state=state,
        reviewed_by=review.reviewed_by,
        reviewed_at=review.reviewed_at,
        needs_attention=attention,
        last_correction_id=last,
        rule=RULE,
        updated_at=utcnow(),
    )


def _text(value: object) -> str | None:
    return None if value is None else str(value)


async def _replace(session: AsyncSession, rows: Sequence[DocumentGlance]) -> None:
    """Put `rows` in place of the documents' glances (the caller commits)."""
    if not rows:
        return
    ids = [row.document_id for row in rows]
    await session.execute(delete(DocumentGlance).where(DocumentGlance.document_id.in_(ids)))
    session.add_all(rows)
    await session.flush()


async def store_glances(session: AsyncSession, documents: Iterable[Document]) -> None:
    """The glances of freshly stored documents (no corrections yet), in the storing
    transaction; `documents` as `store_documents` returns them (their lines loaded)."""
    rows = [glance_row(d.id, apply_corrections(normalised_document(d), ())) for d in documents]
    await _replace(session, rows)


async def glance_documents(session: AsyncSession, job_ids: Sequence[uuid.UUID]) -> list[Glanced]:
    """The documents of these jobs with their glances, in one query (by job, then in the
    result file's order); a missing or outdated glance is computed and stored on the way."""
    if not job_ids:
        return []
    latest = (
        select(Correction.document_id, func.max(Correction.id).label("last_id"))
        .join(Document, Document.id == Correction.document_id)
        .where(Document.job_id.in_(job_ids))
        .group_by(Correction.document_id)
        .subquery()
    )
    found = await session.execute(
        select(Document, DocumentGlance, latest.c.last_id)
        .outerjoin(DocumentGlance, DocumentGlance.document_id == Document.id)
        .outerjoin(latest, latest.c.document_id == Document.id)
        .where(Document.job_id.in_(job_ids))
        .order_by(Document.job_id, Document.file_ordinal)
    )
    rows = found.all()
    stale = [d.id for d, g, last in rows if not _current(g, last)]
    fresh = await _recompute(session, stale) if stale else {}
    out: list[Glanced] = []
    for document, glance, _last in rows:
        current = fresh.get(document.id) or glance
        if current is not None:
            out.append(Glanced(document, current))
    return out


def _current(glance: DocumentGlance | None, last_correction: int | None) -> bool:
    return (
        glance is not None and glance.rule == RULE and glance.last_correction_id == last_correction
    )


async def refresh_glances(session: AsyncSession) -> int:
    """Glance again every document whose glance is missing, by another rule or older than its
    latest correction (before a list filters or sorts by attention); how many were."""
    newer = (
        select(Correction.id)
        .where(
            Correction.document_id == Document.id,
            Correction.id > func.coalesce(DocumentGlance.last_correction_id, 0),
        )
        .exists()
    )
    stale = await session.scalars(
        select(Document.id)
        .outerjoin(DocumentGlance, DocumentGlance.document_id == Document.id)
        .where(
            or_(
                DocumentGlance.document_id.is_(None),
                DocumentGlance.rule != RULE,
                newer,
            )
        )
    )
    ids = list(stale.all())
    if ids:
        await _recompute(session, ids)
    return len(ids)


async def _recompute(
    session: AsyncSession, document_ids: Sequence[uuid.UUID]
) -> dict[uuid.UUID, DocumentGlance]:
    """Glance these documents again (stored before the glance existed, or by an older rule)
    and store the rows, in a session of its own so that the reader's objects stay loaded
    whatever happens; a document deleted meanwhile is left out."""
    rows: dict[uuid.UUID, DocumentGlance] = {}
    async with AsyncSession(session.bind, expire_on_commit=False) as writer:
        for document_id in document_ids:
            found = await load_corrected(writer, document_id)
            if found is not None:
                rows[document_id] = glance_row(document_id, found[1])
        try:
            await _replace(writer, list(rows.values()))
            await writer.commit()
        except (IntegrityError, OperationalError):
            # Another request stored them first (or SQLite is busy): these rows still hold.
            await writer.rollback()
    return rows
