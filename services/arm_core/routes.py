"""The REST API of the core: uploads, files, jobs and new recognitions (`/api/v1`).

Each route has one tag and lists only the problem types it can answer (problem_types.py).
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypeVar
from urllib.parse import quote

from fastapi import APIRouter, Depends, File, Query, Request, Response, UploadFile
from pydantic import BaseModel

from services.arm_core._api_deps import ApiDeps, Deps
from services.arm_core.auth import Principal, require
from services.arm_core.correction_routes import build_correction_router
from services.arm_core.db.models import RecognitionJob, StoredFile
from services.arm_core.document_routes import build_document_router
from services.arm_core.exceptions import NotFound, Unavailable, UploadRejected
from services.arm_core.listing import Page, file_with_jobs, query_files, query_jobs
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
from services.arm_core.uploads import Download, UploadService
from services.runtime.storage import ObjectNotFound, StorageError

__all__ = ["API_PREFIX", "ApiDeps", "build_api_router", "query_files", "read_limited"]
_READ_CHUNK = 1024 * 1024
_ID = (NOT_FOUND, INVALID_REQUEST, UNAVAILABLE)
_LIST = problem_responses(INVALID_REQUEST, UNAVAILABLE)  # what a list can answer
_Route = TypeVar("_Route", bound=Callable[..., Any])
# Who may: read (integrator, analyst), upload and re-run (integrator), delete (admin); admin
# passes every check.
_READ = [Depends(require("integrator", "analyst"))]
_UPLOAD = [Depends(require("integrator"))]
_Admin = Annotated[Principal, Depends(require("admin"))]
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


def _content_disposition(name: str) -> str:
    ascii_name = name.encode("ascii", "replace").decode().replace('"', "_").replace("?", "_")
    return f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(name)}"


def _read(
    router: APIRouter,
    path: str,
    model: type[BaseModel],
    tag: str,
    responses: dict[int | str, dict[str, Any]] | None = None,
) -> Callable[[_Route], _Route]:
    """A `GET` for readers answering `model` (problems: those of an id unless `responses`)."""
    return router.get(
        path,
        dependencies=_READ,
        response_model=model,
        tags=[tag],
        responses=responses if responses is not None else problem_responses(*_ID),
    )


async def _stored_file(deps: ApiDeps, file_id: uuid.UUID) -> StoredFile:
    async with deps.sessions() as session:
        stored = await session.get(StoredFile, file_id)
    if stored is None:
        raise NotFound("file", file_id)
    return stored


def _add_download(
    router: APIRouter,
    what: str,
    read: Callable[[UploadService, StoredFile], Awaitable[Download]],
    description: str,
    answer: str,
) -> None:
    """`GET /files/{file_id}/<what>`: the bytes `read` answers of the file, as an attachment."""

    async def download(deps: Deps, file_id: uuid.UUID) -> Response:
        stored = await _stored_file(deps, file_id)
        return await _download(file_id, read(deps.uploads, stored))

    binary = {"schema": {"type": "string", "format": "binary"}}
    router.add_api_route(
        f"/files/{{file_id}}/{what}",
        download,
        methods=["GET"],
        name=f"file_{what}",
        description=description,
        dependencies=_READ,
        tags=["files"],
        response_class=Response,
        responses={
            200: {"description": answer, "content": {"application/octet-stream": binary}},
            **problem_responses(*_ID),
        },
    )


async def _download(file_id: uuid.UUID, reading: Awaitable[Download]) -> Response:
    """The bytes `reading` answers as an attachment; a missing object or S3 failing is 503."""
    try:
        download = await reading
    except ObjectNotFound as exc:
        raise Unavailable(f"the stored object of file {file_id} is missing") from exc
    except StorageError as exc:
        raise Unavailable("the file could not be read; try again later") from exc
    return Response(
        download.data,
        media_type=download.content_type,
        headers={"Content-Disposition": _content_disposition(download.name)},
    )


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

    @_read(router, "/files", FilePage, "files", _LIST)
    async def list_files(
        deps: Deps,
        page: Page,
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
                limit=page.limit,
                offset=page.offset,
                status=status,
                name=name,
                uploaded_from=uploaded_from,
                uploaded_to=uploaded_to,
            )
        items = [FileOut.of(f, list(f.jobs)) for f in files]
        return FilePage(items=items, total=total, limit=page.limit, offset=page.offset)

    @_read(router, "/files/{file_id}", FileOut, "files")
    async def get_file(deps: Deps, file_id: uuid.UUID) -> FileOut:
        """One stored file with all its jobs."""
        async with deps.sessions() as session:
            stored = await file_with_jobs(session, file_id)
        if stored is None:
            raise NotFound("file", file_id)
        return FileOut.of(stored, list(stored.jobs))

    _add_download(
        router,
        "content",
        UploadService.source,
        "The stored source file, with its content type and name (a TIFF scan: its PDF).",
        "The stored source the recognition read, byte for byte: the upload as sent, or for a "
        "TIFF scan the PDF made of it (named `<name>.pdf`)",
    )
    _add_download(
        router,
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

    @_read(router, "/jobs", JobPage, "jobs", _LIST)
    async def list_jobs(
        deps: Deps,
        page: Page,
        status: Annotated[JobStatusName | None, Query(description="Job status")] = None,
        file_id: Annotated[uuid.UUID | None, Query(description="Jobs of this file")] = None,
        created_from: _From = None,
        created_to: _To = None,
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

    @_read(router, "/jobs/{job_id}", JobOut, "jobs")
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
