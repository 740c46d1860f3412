"""The REST API of the core: uploads, files, jobs and new recognitions (`/api/v1`)."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, File, Query, UploadFile
from sqlalchemy import func, select
from sqlalchemy.orm import selectinload

from services.arm_core._api_deps import ApiDeps, Deps
from services.arm_core.db.models import RecognitionJob, StoredFile
from services.arm_core.document_routes import build_document_router
from services.arm_core.exceptions import NotFound, UploadRejected
from services.arm_core.problems import PROBLEM_JSON
from services.arm_core.schemas import (
    API_PREFIX,
    FileOut,
    FilePage,
    JobOut,
    S3Location,
    UploadOut,
)

__all__ = ["API_PREFIX", "ApiDeps", "build_api_router"]
_READ_CHUNK = 1024 * 1024

_PROBLEMS: dict[int | str, dict[str, object]] = {
    status: {"description": text, "content": {PROBLEM_JSON: {}}}
    for status, text in {
        400: "The request is not acceptable (empty file, bad file name)",
        404: "No such file or job",
        413: "The file is larger than the limit",
        415: "The file type is not supported",
        422: "The content does not match the file name, or the request is malformed",
        503: "Storage or the database is unavailable",
    }.items()
}


async def _read_limited(upload: UploadFile, max_bytes: int) -> bytes:
    chunks: list[bytes] = []
    total = 0
    while chunk := await upload.read(_READ_CHUNK):
        total += len(chunk)
        if total > max_bytes:
            raise UploadRejected(
                413, "File too large", f"the file is larger than {max_bytes} bytes"
            )
        chunks.append(chunk)
    return b"".join(chunks)


def build_api_router() -> APIRouter:
    """The `/api/v1` routes."""
    router = APIRouter(prefix=API_PREFIX, tags=["files"], responses=_PROBLEMS)

    @router.post("/files", status_code=201, response_model=UploadOut)
    async def upload_file(
        deps: Deps, file: Annotated[UploadFile, File(description="the document to recognise")]
    ) -> UploadOut:
        """Store a file (XLS, XLSX, XLSB, PDF, PNG, JPG) and queue its recognition."""
        data = await _read_limited(file, deps.uploads.max_bytes)
        accepted = await deps.uploads.accept(file.filename, data)
        stored, job = accepted.file, accepted.job
        return UploadOut(
            file_id=stored.id,
            job_id=job.id,
            status=job.status,
            attempt=job.attempt,
            pipeline=job.pipeline,
            file_type=stored.file_type,
            original_name=stored.original_name,
            size=stored.size,
            sha256=stored.sha256,
            content_type=stored.content_type,
            s3=S3Location(bucket=stored.s3_bucket, key=stored.s3_key),
        )

    @router.get("/files", response_model=FilePage)
    async def list_files(
        deps: Deps,
        limit: Annotated[int, Query(ge=1, le=500)] = 50,
        offset: Annotated[int, Query(ge=0)] = 0,
    ) -> FilePage:
        """Stored files, newest first, with their jobs."""
        async with deps.sessions() as session:
            total = await session.scalar(select(func.count()).select_from(StoredFile)) or 0
            files = (
                await session.scalars(
                    select(StoredFile)
                    .options(selectinload(StoredFile.jobs))
                    .order_by(StoredFile.created_at.desc(), StoredFile.id)
                    .limit(limit)
                    .offset(offset)
                )
            ).all()
        return FilePage(
            items=[FileOut.of(f, list(f.jobs)) for f in files],
            total=total,
            limit=limit,
            offset=offset,
        )

    @router.get("/files/{file_id}", response_model=FileOut)
    async def get_file(deps: Deps, file_id: uuid.UUID) -> FileOut:
        """One stored file with all its jobs."""
        async with deps.sessions() as session:
            stored = await session.scalar(
                select(StoredFile)
                .options(selectinload(StoredFile.jobs))
                .where(StoredFile.id == file_id)
            )
        if stored is None:
            raise NotFound("file", file_id)
        return FileOut.of(stored, list(stored.jobs))

    @router.post("/files/{file_id}/recognitions", status_code=201, response_model=JobOut)
    async def recognize_again(deps: Deps, file_id: uuid.UUID) -> JobOut:
        """Queue a new recognition of a stored file (attempt = the highest so far + 1)."""
        job = await deps.uploads.recognize_again(file_id)
        return JobOut.of(job)

    @router.get("/jobs/{job_id}", response_model=JobOut, tags=["jobs"])
    async def get_job(deps: Deps, job_id: uuid.UUID) -> JobOut:
        """One recognition job."""
        async with deps.sessions() as session:
            job = await session.get(RecognitionJob, job_id)
        if job is None:
            raise NotFound("job", job_id)
        return JobOut.of(job)

    router.include_router(build_document_router())
    return router
