"""The job routes of `/api/v1`: the recognition jobs, listed and one by one."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Query

from services.arm_core.db.models import JobStatus, RecognitionJob, StoredFile
from services.arm_core.documents.listing import query_jobs
from services.arm_core.exceptions import NotFound
from services.arm_core.rest.deps import Deps
from services.arm_core.rest.paging import Page
from services.arm_core.rest.reads import LIST_PROBLEMS, CreatedFrom, CreatedTo, reader
from services.arm_core.rest.schemas import JobOut, JobPage, JobStatusName, PagesDoneOut

__all__ = ["router"]

router = APIRouter()
_read = reader(router)


@_read("/jobs", JobPage, "jobs", LIST_PROBLEMS)
async def list_jobs(
    deps: Deps,
    page: Page,
    status: Annotated[JobStatusName | None, Query(description="Job status")] = None,
    file_id: Annotated[uuid.UUID | None, Query(description="Jobs of this file")] = None,
    created_from: CreatedFrom = None,
    created_to: CreatedTo = None,
) -> JobPage:
    """Recognition jobs, newest first; filtered by status, file and creation time."""
    async with deps.sessions() as session:
        total, jobs = await query_jobs(
            session,
            page,
            status=status,
            file_id=file_id,
            created_from=created_from,
            created_to=created_to,
        )
    items = [JobOut.of(j) for j in jobs]
    return JobPage(items=items, total=total, limit=page.limit, offset=page.offset)


@_read("/jobs/{job_id}", JobOut, "jobs")
async def get_job(deps: Deps, job_id: uuid.UUID) -> JobOut:
    """One recognition job; a scan being processed carries its pages done when its
    recogniser tells them (decision 0037)."""
    async with deps.sessions() as session:
        job = await session.get(RecognitionJob, job_id)
        if job is None:
            raise NotFound("job", job_id)
        stored = await session.get(StoredFile, job.file_id)
    out = JobOut.of(job)
    if deps.progress is not None and stored is not None and job.status == JobStatus.PROCESSING:
        pages = await deps.progress.pages_done(stored, job.id)
        if pages is not None:
            out.progress = PagesDoneOut(pages_done=pages.done, pages_total=pages.total)
    return out
