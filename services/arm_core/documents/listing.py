"""The lists of the API and of the pages: one page of a query, and the files' and jobs' filters.

Every list answers `total` (how many match) with one page of `limit` items from `offset`, in
a fixed order; `Paging.fetch` is that once, for any select. The filters of `/files` are shared
with the files page (`query_files`), and `file_with_jobs` is the one file both show.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from sqlalchemy import ColumnElement, ScalarSelect, Select, case, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased, selectinload

from services.arm_core.db.documents import Document, DocumentGlance
from services.arm_core.db.models import JobStatus, RecognitionJob, StoredFile
from services.arm_core.documents.glance import Glanced, glance_documents, refresh_glances

__all__ = [
    "FAILED_STATUSES",
    "RESULT_STATUSES",
    "FileOrder",
    "Paging",
    "file_with_jobs",
    "files_glances",
    "latest_result",
    "query_files",
    "query_jobs",
]

FileOrder = Literal["newest", "attention"]
RESULT_STATUSES = frozenset({JobStatus.DONE.value, JobStatus.NEEDS_CHECK.value})
"""A job in one of these gave the file's documents."""
FAILED_STATUSES = frozenset({JobStatus.ERROR.value, JobStatus.TIMEOUT.value, JobStatus.DLQ.value})
"""A file whose latest job ended so has no new result: it needs attention too."""

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Paging:
    """Which page of a list: `limit` items from `offset`."""

    limit: int
    offset: int

    async def fetch(
        self, session: AsyncSession, query: Select[_T], *order_by: Any
    ) -> tuple[int, Sequence[_T]]:
        """(how many rows `query` matches, this page of them in `order_by`'s order)."""
        total = await session.scalar(select(func.count()).select_from(query.subquery()))
        page = query.order_by(*order_by).limit(self.limit).offset(self.offset)
        return total or 0, (await session.scalars(page)).all()


def _utc(moment: dt.datetime) -> dt.datetime:
    """A query bound as aware UTC (a naive one is read as UTC)."""
    return moment.replace(tzinfo=dt.UTC) if moment.tzinfo is None else moment.astimezone(dt.UTC)


def _created(
    column: Any, created_from: dt.datetime | None, created_to: dt.datetime | None
) -> list[ColumnElement[bool]]:
    """The half-open time window [from, to) on `column`, each bound optional."""
    window: list[ColumnElement[bool]] = []
    if created_from is not None:
        window.append(column >= _utc(created_from))
    if created_to is not None:
        window.append(column < _utc(created_to))
    return window


def _latest_status() -> ScalarSelect[str]:
    """The status of each file's latest attempt (a correlated scalar subquery)."""
    other = aliased(RecognitionJob)
    latest = (
        select(func.max(other.attempt))
        .where(other.file_id == StoredFile.id)
        .correlate(StoredFile)
        .scalar_subquery()
    )
    return (
        select(RecognitionJob.status)
        .where(RecognitionJob.file_id == StoredFile.id, RecognitionJob.attempt == latest)
        .correlate(StoredFile)
        .scalar_subquery()
    )


def _latest_result_job() -> ScalarSelect[uuid.UUID]:
    """The id of each file's latest attempt that gave documents (a correlated subquery)."""
    return (
        select(RecognitionJob.id)
        .where(
            RecognitionJob.file_id == StoredFile.id,
            RecognitionJob.status.in_(RESULT_STATUSES),
        )
        .order_by(RecognitionJob.attempt.desc())
        .limit(1)
        .correlate(StoredFile)
        .scalar_subquery()
    )


def _needs_attention() -> ColumnElement[bool]:
    """A file needs attention when its latest job failed, or a document of its latest result
    does (its glance, `documents/glance.py`): not reviewed, and doubts, failed checks or a
    status other than done."""
    document_needs = (
        select(Document.id)
        .join(DocumentGlance, DocumentGlance.document_id == Document.id)
        .where(
            Document.file_id == StoredFile.id,
            Document.job_id == _latest_result_job(),
            DocumentGlance.needs_attention.is_(True),
        )
        .correlate(StoredFile)
        .exists()
    )
    return or_(_latest_status().in_(FAILED_STATUSES), document_needs)


def latest_result(file: StoredFile) -> RecognitionJob | None:
    """A file's latest attempt that gave documents; `file` loaded with its jobs."""
    results = [job for job in file.jobs if job.status in RESULT_STATUSES]
    return max(results, key=lambda job: job.attempt, default=None)


async def query_files(
    session: AsyncSession,
    *,
    limit: int,
    offset: int,
    status: str | None = None,
    name: str | None = None,
    uploaded_from: dt.datetime | None = None,
    uploaded_to: dt.datetime | None = None,
    needs_attention: bool | None = None,
    order: FileOrder = "newest",
) -> tuple[int, Sequence[StoredFile]]:
    """One page of the stored files with their jobs, and how many match: the list of the API
    and of the files page, filtered by the latest job's status, by name, by upload time and by
    whether it needs attention; newest first, or those needing attention first (then those
    still being recognised, then the rest; newest first within each). The glances must be
    current for the attention filter and order: they are refreshed first
    (`glance.refresh_glances`)."""
    if needs_attention is not None or order == "attention":
        await refresh_glances(session)
    conditions = _created(StoredFile.created_at, uploaded_from, uploaded_to)
    if status is not None:
        conditions.append(_latest_status() == status)
    if name:
        conditions.append(StoredFile.original_name.icontains(name, autoescape=True))
    if needs_attention is not None:
        attention = _needs_attention()
        conditions.append(attention if needs_attention else ~attention)
    query = select(StoredFile).where(*conditions).options(selectinload(StoredFile.jobs))
    newest = (StoredFile.created_at.desc(), StoredFile.id)
    if order == "attention":
        rank = case(
            (_needs_attention(), 0),
            (_latest_status().not_in(RESULT_STATUSES | FAILED_STATUSES), 1),
            else_=2,
        )
        return await Paging(limit, offset).fetch(session, query, rank, *newest)
    return await Paging(limit, offset).fetch(session, query, *newest)


async def files_glances(
    session: AsyncSession, files: Sequence[StoredFile]
) -> dict[uuid.UUID, list[Glanced]]:
    """The latest result's documents of each file at a glance, in one query for all; `files`
    loaded with their jobs."""
    results = [job.id for job in map(latest_result, files) if job is not None]
    by_file: dict[uuid.UUID, list[Glanced]] = {}
    for glanced in await glance_documents(session, results):
        by_file.setdefault(glanced.document.file_id, []).append(glanced)
    return by_file


async def query_jobs(
    session: AsyncSession,
    paging: Paging,
    *,
    status: str | None = None,
    file_id: uuid.UUID | None = None,
    created_from: dt.datetime | None = None,
    created_to: dt.datetime | None = None,
) -> tuple[int, Sequence[RecognitionJob]]:
    """One page of the recognition jobs, newest first, and how many match: filtered by status,
    file and creation time."""
    conditions = _created(RecognitionJob.created_at, created_from, created_to)
    if status is not None:
        conditions.append(RecognitionJob.status == status)
    if file_id is not None:
        conditions.append(RecognitionJob.file_id == file_id)
    query = select(RecognitionJob).where(*conditions)
    return await paging.fetch(session, query, RecognitionJob.created_at.desc(), RecognitionJob.id)


async def file_with_jobs(session: AsyncSession, file_id: uuid.UUID) -> StoredFile | None:
    """One stored file with all its jobs loaded (None when there is no such file)."""
    return await session.scalar(
        select(StoredFile).options(selectinload(StoredFile.jobs)).where(StoredFile.id == file_id)
    )
