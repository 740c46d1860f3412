"""The file routes of `/api/v1`: upload, list, read, download, delete, recognise again.

Each route has one tag and lists only the problem types it can answer (problem_types.py).
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import APIRouter, File, Query, Request, Response, UploadFile

from services.arm_core.db.models import StoredFile
from services.arm_core.documents.listing import (
    FileOrder,
    file_with_jobs,
    files_glances,
    query_files,
)
from services.arm_core.exceptions import NotFound
from services.arm_core.jobs.uploads import Download, UploadService
from services.arm_core.rest.bodies import read_limited
from services.arm_core.rest.deps import READ, UPLOAD, Admin, ApiDeps, Deps
from services.arm_core.rest.downloads import stored_download
from services.arm_core.rest.openapi import problem_responses
from services.arm_core.rest.paging import Page
from services.arm_core.rest.problem_types import JOB_IN_FLIGHT, UPLOAD_PROBLEMS
from services.arm_core.rest.reads import ID_PROBLEMS, LIST_PROBLEMS, CreatedFrom, CreatedTo, reader
from services.arm_core.rest.schemas import (
    API_PREFIX,
    FileDeleted,
    FileOut,
    FilePage,
    JobOut,
    JobStatusName,
    S3Location,
    UploadOut,
)

__all__ = ["router"]

router = APIRouter()
_read = reader(router)


async def _stored_file(deps: ApiDeps, file_id: uuid.UUID) -> StoredFile:
    async with deps.sessions() as session:
        stored = await session.get(StoredFile, file_id)
    if stored is None:
        raise NotFound("file", file_id)
    return stored


def _add_download(
    what: str,
    read: Callable[[UploadService, StoredFile], Awaitable[Download]],
    description: str,
    answer: str,
) -> None:
    """`GET /files/{file_id}/<what>`: the bytes `read` answers of the file, as an attachment."""

    async def download(deps: Deps, file_id: uuid.UUID) -> Response:
        stored = await _stored_file(deps, file_id)
        return await stored_download(file_id, read(deps.uploads, stored))

    binary = {"schema": {"type": "string", "format": "binary"}}
    router.add_api_route(
        f"/files/{{file_id}}/{what}",
        download,
        methods=["GET"],
        name=f"file_{what}",
        description=description,
        dependencies=READ,
        tags=["files"],
        response_class=Response,
        responses={
            200: {"description": answer, "content": {"application/octet-stream": binary}},
            **problem_responses(*ID_PROBLEMS),
        },
    )


@router.post(
    "/files",
    status_code=201,
    dependencies=UPLOAD,
    response_model=UploadOut,
    tags=["files"],
    responses={
        **problem_responses(*UPLOAD_PROBLEMS),
        201: {"headers": {"Location": {"description": "The file", "schema": {"type": "string"}}}},
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
            "duplicate_of": accepted.duplicate_of.id if accepted.duplicate_of else None,
        }
    )
    return out


@_read("/files", FilePage, "files", LIST_PROBLEMS)
async def list_files(
    deps: Deps,
    page: Page,
    status: Annotated[
        JobStatusName | None, Query(description="Status of the file's latest job")
    ] = None,
    name: Annotated[
        str | None, Query(description="Part of the original name (case-insensitive)")
    ] = None,
    uploaded_from: CreatedFrom = None,
    uploaded_to: CreatedTo = None,
    needs_attention: Annotated[
        bool | None,
        Query(
            description="true: only files needing attention (the latest job failed, or a "
            "document of the latest result is not reviewed and has doubts, failed checks or "
            "a status other than done); false: only the others"
        ),
    ] = None,
    order: Annotated[
        FileOrder,
        Query(
            description="newest: newest first; attention: those needing attention first, "
            "then those being recognised, then the rest (newest first within each)"
        ),
    ] = "newest",
) -> FilePage:
    """Stored files with their jobs and their latest result's documents at a glance;
    filtered by the latest job's status, by name, by upload time and by attention."""
    async with deps.sessions() as session:
        total, files = await query_files(
            session,
            limit=page.limit,
            offset=page.offset,
            status=status,
            name=name,
            uploaded_from=uploaded_from,
            uploaded_to=uploaded_to,
            needs_attention=needs_attention,
            order=order,
        )
        documents = await files_glances(session, files)
    items = [FileOut.of(f, list(f.jobs), documents.get(f.id, ())) for f in files]
    return FilePage(items=items, total=total, limit=page.limit, offset=page.offset)


@_read("/files/{file_id}", FileOut, "files")
async def get_file(deps: Deps, file_id: uuid.UUID) -> FileOut:
    """One stored file with all its jobs and its latest result's documents at a glance."""
    async with deps.sessions() as session:
        stored = await file_with_jobs(session, file_id)
        if stored is None:
            raise NotFound("file", file_id)
        documents = await files_glances(session, [stored])
    return FileOut.of(stored, list(stored.jobs), documents.get(file_id, ()))


_add_download(
    "content",
    UploadService.source,
    "The stored source file, with its content type and name (a TIFF scan: its PDF).",
    "The stored source the recognition read, byte for byte: the upload as sent, or for a "
    "TIFF scan the PDF made of it (named `<name>.pdf`)",
)
_add_download(
    "original",
    UploadService.original,
    "The upload as sent (a TIFF scan: the TIFF; else the same bytes as `content`).",
    "The upload as the client sent it, under its original name: for a TIFF scan the TIFF "
    "(image/tiff); for any other file the same bytes as `content`",
)


@router.delete(
    "/files/{file_id}",
    response_model=FileDeleted,
    tags=["files"],
    responses=problem_responses(*ID_PROBLEMS, JOB_IN_FLIGHT),
)
async def delete_file(
    deps: Deps, request: Request, principal: Admin, file_id: uuid.UUID
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
    dependencies=UPLOAD,
    status_code=201,
    response_model=JobOut,
    tags=["files"],
    responses={
        **problem_responses(*ID_PROBLEMS),
        201: {"headers": {"Location": {"description": "The job", "schema": {"type": "string"}}}},
    },
)
async def recognize_again(deps: Deps, response: Response, file_id: uuid.UUID) -> JobOut:
    """Queue a new recognition of a stored file (attempt = the highest so far + 1)."""
    job = await deps.uploads.recognize_again(file_id)
    response.headers["Location"] = f"{API_PREFIX}/jobs/{job.id}"
    return JobOut.of(job)
