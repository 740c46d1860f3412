"""The REST API of the core: uploads, files, jobs and new recognitions (`/api/v1`).

Each route has one tag and lists only the problem types it can answer (problem_types.py).
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Sequence
from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Depends, File, Query, Request, Response, UploadFile
from sqlalchemy import ColumnElement, ScalarSelect, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased, selectinload

from services.arm_core._api_deps import ApiDeps, Deps
from services.arm_core.auth import Principal, require
from services.arm_core.correction_routes import build_correction_router
from services.arm_core.db.models import RecognitionJob, StoredFile
from services.arm_core.document_routes import build_document_router
from services.arm_core.exceptions import NotFound, Unavailable, UploadRejected
from services.arm_core.openapi import problem_responses
from services.arm_core.problem_types import (
    FILE_TOO_LARGE,
    INVALID_REQUEST,
    JOB_IN_FLIGHT,
    NOT_FOUND,
    UNAVAILABLE,
    UPLOAD_PROBLEMS,
)
from services.arm_core.schemas import (
    API_PREFIX,
    FileDeleted,
    FileOut,
    FilePage,
    JobOut,
    JobPage,
    JobStatusName,
    S3Location,
    UploadOut,
)
from services.runtime.storage import ObjectNotFound, StorageError

__all__ = ["API_PREFIX", "ApiDeps", "build_api_router", "query_files", "read_limited"]
_READ_CHUNK = 1024 * 1024
_ID = (NOT_FOUND, INVALID_REQUEST, UNAVAILABLE)
# Who may: read (integrator, analyst), upload and re-run (integrator), delete (admin); admin
# passes every check.
_READ = [Depends(require("integrator", "analyst"))]
_UPLOAD = [Depends(require("integrator"))]
_Admin = Annotated[Principal, Depends(require("admin"))]
_Limit = Annotated[int, Query(ge=1, le=500, description="Page size")]
_Offset = Annotated[int, Query(ge=0, description="Items to skip")]
_From = Annotated[dt.datetime | None, Query(description="Created at or after (ISO 8601)")]
_To = Annotated[dt.datetime | None, Query(description="Created before (ISO 8601)")]


async def read_limited(upload: UploadFile, max_bytes: int) -> bytes:
    """The upload's bytes, refused (413) past `max_bytes` without reading further."""
    chunks: list[bytes] = []
    total = 0
    while chunk := await upload.read(_READ_CHUNK):
        total += len(chunk)
        if total > max_bytes:
            raise UploadRejected(FILE_TOO_LARGE, f"the file is larger than {max_bytes} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


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
    status: JobStatusName | None = None,
    name: str | None = None,
    uploaded_from: dt.datetime | None = None,
    uploaded_to: dt.datetime | None = None,
) -> tuple[int, Sequence[StoredFile]]:
    """One page of the stored files, newest first, with their jobs, and how many match: the
    list of the API and of the files page, filtered by the latest job's status, by name and by
    upload time."""
    conditions = _file_conditions(
        status=status, name=name, uploaded_from=uploaded_from, uploaded_to=uploaded_to
    )
    total = await session.scalar(select(func.count()).select_from(StoredFile).where(*conditions))
    files = (
        await session.scalars(
            select(StoredFile)
            .where(*conditions)
            .options(selectinload(StoredFile.jobs))
            .order_by(StoredFile.created_at.desc(), StoredFile.id)
            .limit(limit)
            .offset(offset)
        )
    ).all()
    return total or 0, files


def _file_conditions(
    *,
    status: JobStatusName | None,
    name: str | None,
    uploaded_from: dt.datetime | None,
    uploaded_to: dt.datetime | None,
) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = []
    if status is not None:
        conditions.append(_latest_status() == status)
    if name:
        conditions.append(StoredFile.original_name.icontains(name, autoescape=True))
    if uploaded_from is not None:
        conditions.append(StoredFile.created_at >= _utc(uploaded_from))
    if uploaded_to is not None:
        conditions.append(StoredFile.created_at < _utc(uploaded_to))
    return conditions


def _utc(moment: dt.datetime) -> dt.datetime:
    """A query bound as aware UTC (a naive one is read as UTC)."""
    return moment.replace(tzinfo=dt.UTC) if moment.tzinfo is None else moment.astimezone(dt.UTC)


def _content_disposition(name: str) -> str:
    ascii_name = name.encode("ascii", "replace").decode().replace('"', "_").replace("?", "_")
    return f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(name)}"


def build_api_router() -> APIRouter:
    """The `/api/v1` routes."""
    router = APIRouter(prefix=API_PREFIX)

    @router.post(
        "/files",
        status_code=201,
        dependencies=_UPLOAD,
        response_model=UploadOut,
        tags=["files"],
        responses={
            **problem_responses(*UPLOAD_PROBLEMS),
            201: {
                "headers": {"Location": {"description": "The file", "schema": {"type": "string"}}}
            },
        },
    )
    async def upload_file(
        deps: Deps,
        response: Response,
        file: Annotated[UploadFile, File(description="the document to recognise")],
    ) -> UploadOut:
        """Store a file (XLS, XLSX, XLSB, PDF, PNG, JPG) and queue its recognition."""
        data = await read_limited(file, deps.uploads.max_bytes)
        accepted = await deps.uploads.accept(file.filename, data)
        stored, job = accepted.file, accepted.job
        response.headers["Location"] = f"{API_PREFIX}/files/{stored.id}"
        out = UploadOut.model_validate(
            {
                "file_id": stored.id,
                "job_id": job.id,
                "status": job.status,
                "attempt": job.attempt,
                "pipeline": job.pipeline,
                "file_type": stored.file_type,
                "original_name": stored.original_name,
                "size": stored.size,
                "sha256": stored.sha256,
                "content_type": stored.content_type,
                "s3": S3Location(bucket=stored.s3_bucket, key=stored.s3_key),
            }
        )
        return out

    @router.get(
        "/files",
        dependencies=_READ,
        response_model=FilePage,
        tags=["files"],
        responses=problem_responses(INVALID_REQUEST, UNAVAILABLE),
    )
    async def list_files(
        deps: Deps,
        limit: _Limit = 50,
        offset: _Offset = 0,
        status: Annotated[
            JobStatusName | None, Query(description="Status of the file's latest job")
        ] = None,
        name: Annotated[
            str | None, Query(description="Part of the original name (case-insensitive)")
        ] = None,
        uploaded_from: _From = None,
        uploaded_to: _To = None,
    ) -> FilePage:
        """Stored files, newest first, with their jobs; filtered by the latest job's status,
        by name and by upload time."""
        async with deps.sessions() as session:
            total, files = await query_files(
                session,
                limit=limit,
                offset=offset,
                status=status,
                name=name,
                uploaded_from=uploaded_from,
                uploaded_to=uploaded_to,
            )
        return FilePage(
            items=[FileOut.of(f, list(f.jobs)) for f in files],
            total=total,
            limit=limit,
            offset=offset,
        )

    @router.get(
        "/files/{file_id}",
        dependencies=_READ,
        response_model=FileOut,
        tags=["files"],
        responses=problem_responses(*_ID),
    )
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

    @router.get(
        "/files/{file_id}/content",
        dependencies=_READ,
        tags=["files"],
        response_class=Response,
        responses={
            200: {
                "description": "The stored source file, byte for byte as uploaded",
                "content": {
                    "application/octet-stream": {"schema": {"type": "string", "format": "binary"}}
                },
            },
            **problem_responses(*_ID),
        },
    )
    async def file_content(deps: Deps, file_id: uuid.UUID) -> Response:
        """The stored source file, with its content type and original name."""
        async with deps.sessions() as session:
            stored = await session.get(StoredFile, file_id)
        if stored is None:
            raise NotFound("file", file_id)
        try:
            data = await deps.uploads.read(stored)
        except ObjectNotFound as exc:
            raise Unavailable(f"the stored object of file {file_id} is missing") from exc
        except StorageError as exc:
            raise Unavailable("the file could not be read; try again later") from exc
        return Response(
            data,
            media_type=stored.content_type,
            headers={"Content-Disposition": _content_disposition(stored.original_name)},
        )

    @router.delete(
        "/files/{file_id}",
        response_model=FileDeleted,
        tags=["files"],
        responses=problem_responses(*_ID, JOB_IN_FLIGHT),
    )
    async def delete_file(
        deps: Deps, request: Request, principal: _Admin, file_id: uuid.UUID
    ) -> FileDeleted:
        """Delete the file, its jobs, documents and S3 objects (uploads, results, raw) in one
        audited operation (by whom: the token's subject); refused (409) while one of its jobs
        is queued, published or processing."""
        client = request.client.host if request.client else "unknown"
        deleted = await deps.retention.delete_file(file_id, actor=principal.subject, client=client)
        return FileDeleted(
            file_id=deleted.file_id,
            original_name=deleted.original_name,
            jobs=deleted.jobs,
            documents=deleted.documents,
            objects=deleted.objects,
        )

    @router.post(
        "/files/{file_id}/recognitions",
        dependencies=_UPLOAD,
        status_code=201,
        response_model=JobOut,
        tags=["files"],
        responses={
            **problem_responses(*_ID),
            201: {
                "headers": {"Location": {"description": "The job", "schema": {"type": "string"}}}
            },
        },
    )
    async def recognize_again(deps: Deps, response: Response, file_id: uuid.UUID) -> JobOut:
        """Queue a new recognition of a stored file (attempt = the highest so far + 1)."""
        job = await deps.uploads.recognize_again(file_id)
        response.headers["Location"] = f"{API_PREFIX}/jobs/{job.id}"
        return JobOut.of(job)

    @router.get(
        "/jobs",
        dependencies=_READ,
        response_model=JobPage,
        tags=["jobs"],
        responses=problem_responses(INVALID_REQUEST, UNAVAILABLE),
    )
    async def list_jobs(
        deps: Deps,
        limit: _Limit = 50,
        offset: _Offset = 0,
        status: Annotated[JobStatusName | None, Query(description="Job status")] = None,
        file_id: Annotated[uuid.UUID | None, Query(description="Jobs of this file")] = None,
        created_from: _From = None,
        created_to: _To = None,
    ) -> JobPage:
        """Recognition jobs, newest first; filtered by status, file and creation time."""
        query = select(RecognitionJob)
        if status is not None:
            query = query.where(RecognitionJob.status == status)
        if file_id is not None:
            query = query.where(RecognitionJob.file_id == file_id)
        if created_from is not None:
            query = query.where(RecognitionJob.created_at >= _utc(created_from))
        if created_to is not None:
            query = query.where(RecognitionJob.created_at < _utc(created_to))
        async with deps.sessions() as session:
            total = await session.scalar(select(func.count()).select_from(query.subquery()))
            jobs = (
                await session.scalars(
                    query.order_by(RecognitionJob.created_at.desc(), RecognitionJob.id)
                    .limit(limit)
                    .offset(offset)
                )
            ).all()
        return JobPage(
            items=[JobOut.of(j) for j in jobs], total=total or 0, limit=limit, offset=offset
        )

    @router.get(
        "/jobs/{job_id}",
        dependencies=_READ,
        response_model=JobOut,
        tags=["jobs"],
        responses=problem_responses(*_ID),
    )
    async def get_job(deps: Deps, job_id: uuid.UUID) -> JobOut:
        """One recognition job."""
        async with deps.sessions() as session:
            job = await session.get(RecognitionJob, job_id)
        if job is None:
            raise NotFound("job", job_id)
        return JobOut.of(job)

    router.include_router(build_document_router())
    router.include_router(build_correction_router())
    return router
