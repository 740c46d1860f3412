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
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, ScalarSelect, Select, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased, selectinload

from services.arm_core.db.models import RecognitionJob, StoredFile

__all__ = ["Paging", "file_with_jobs", "query_files", "query_jobs"]

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


async def query_files(
    session: AsyncSession,
    *,
    limit: int,
    offset: int,
    status: str | None = None,
    name: str | None = None,
    uploaded_from: dt.datetime | None = None,
    uploaded_to: dt.datetime | None = None,
) -> tuple[int, Sequence[StoredFile]]:
    """One page of the stored files, newest first, with their jobs, and how many match: the
    list of the API and of the files page, filtered by the latest job's status, by name and by
    upload time."""
    conditions = _created(StoredFile.created_at, uploaded_from, uploaded_to)
    if status is not None:
        conditions.append(_latest_status() == status)
    if name:
        conditions.append(StoredFile.original_name.icontains(name, autoescape=True))
    query = select(StoredFile).where(*conditions).options(selectinload(StoredFile.jobs))
    return await Paging(limit, offset).fetch(
        session, query, StoredFile.created_at.desc(), StoredFile.id
    )


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
