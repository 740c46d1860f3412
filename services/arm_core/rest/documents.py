"""The document routes of `/api/v1`: a file's documents, one document, ОСВ rows, the JSON.

- `GET /files/{file_id}/documents[?job_id=]`: the documents of the latest result, or of a job;
- `GET /documents/{document_id}`: the document with its columns, lines and values (or the
  count of its ОСВ rows), the producer's warnings and every issue;
- `GET /documents/{document_id}/rows?limit=&offset=`: a page of an ОСВ document's rows;
- `GET /documents/{document_id}/normalized`: the normalised document (the 2.0 shape);
- `GET /documents/{document_id}/evidence?ref=&column_index=`: a scan value's page cropped
  around it (PNG, ≥ 200 dpi), with its page and box in headers.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Annotated, TypeVar

from fastapi import APIRouter, Query, Response
from pydantic import RootModel
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from services.arm_core.db.documents import Document, OsvRow
from services.arm_core.db.models import RecognitionJob, StoredFile
from services.arm_core.documents.corrections import statement_lines
from services.arm_core.documents.listing import Paging
from services.arm_core.documents.read import (
    DocumentBody,
    count_osv_rows,
    issue_json,
    latest_result_job,
    list_documents,
    load_document,
    load_osv_rows,
    normalised_document,
    osv_row_json,
)
from services.arm_core.documents.store import is_osv
from services.arm_core.exceptions import NoEvidence, NotAnOsvDocument, NotFound
from services.arm_core.rest.deps import READ, ApiDeps, Deps
from services.arm_core.rest.openapi import problem_responses
from services.arm_core.rest.paging import MAX_OFFSET
from services.arm_core.rest.problem_types import (
    FILE_OVER_LIMITS,
    FILES_BUSY,
    NO_EVIDENCE,
    NOT_AN_OSV_DOCUMENT,
    UNAVAILABLE,
)
from services.arm_core.rest.reads import ID_PROBLEMS
from services.arm_core.rest.schemas import (
    DocumentList,
    DocumentOut,
    DocumentSummary,
    OsvRowPage,
    document_url,
)
from services.contract.models.result_v2 import OsvDocument, StatementDocument

__all__ = ["NormalizedDocument", "router"]

_T = TypeVar("_T")


class NormalizedDocument(RootModel[OsvDocument | StatementDocument]):
    """The normalised document: an ОСВ or a statement form, in the 2.0 shape (documentation
    only: the route returns what is stored, whatever its MAJOR)."""


async def _document(session: AsyncSession, document_id: uuid.UUID) -> Document:
    document = await load_document(session, document_id)
    if document is None:
        raise NotFound("document", document_id)
    return document


async def _with_rows(
    deps: ApiDeps,
    document_id: uuid.UUID,
    rows: Callable[[AsyncSession, uuid.UUID], Awaitable[_T]],
) -> tuple[Document, _T | None]:
    """The document (404 when there is none) and, for an ОСВ document, what `rows` reads of
    its rows (their count, or all of them)."""
    async with deps.sessions() as session:
        document = await _document(session, document_id)
        read = await rows(session, document_id) if is_osv(document.document_type) else None
    return document, read


def _detail(document: Document, rows_total: int | None) -> DocumentOut:
    normal = normalised_document(document)
    url = document_url(document.id)
    lines = None
    if not is_osv(document.document_type):
        lines = [
            {**line, "line_code_original_value": stored.line_code_original_value}
            for line, stored in zip(statement_lines(normal), document.lines, strict=True)
        ]
    return DocumentOut(
        document_id=document.id,
        job_id=document.job_id,
        file_id=document.file_id,
        file_ordinal=document.file_ordinal,
        source_schema_version=document.source_schema_version,
        document_type=document.document_type,
        form_variant=document.form_variant,
        status=document.status,
        locator=document.locator,
        header=document.header,
        checks=document.checks,
        producer_checks=document.producer_checks,
        columns=normal.get("columns"),
        lines=lines,
        rows_total=rows_total,
        rows_url=f"{url}/rows" if rows_total is not None else None,
        warnings=normal["warnings"],
        issues=[{"source": i.source, **issue_json(i)} for i in document.issues],
        normalized_url=f"{url}/normalized",
    )


router = APIRouter(tags=["documents"], dependencies=READ)


@router.get(
    "/files/{file_id}/documents",
    response_model=DocumentList,
    responses=problem_responses(*ID_PROBLEMS),
)
async def file_documents(
    deps: Deps,
    file_id: uuid.UUID,
    job_id: Annotated[
        uuid.UUID | None, Query(description="A job of the file; default: the latest result")
    ] = None,
) -> DocumentList:
    """The documents of a file's latest result (or of the job named by `job_id`)."""
    async with deps.sessions() as session:
        if await session.get(StoredFile, file_id) is None:
            raise NotFound("file", file_id)
        if job_id is None:
            job = await latest_result_job(session, file_id)
        else:
            job = await session.get(RecognitionJob, job_id)
            if job is None or job.file_id != file_id:
                raise NotFound("job", job_id)
        documents = await list_documents(session, job.id) if job is not None else []
    return DocumentList(
        file_id=file_id,
        job_id=job.id if job is not None else None,
        items=[
            DocumentSummary(
                document_id=d.id,
                job_id=d.job_id,
                file_ordinal=d.file_ordinal,
                document_type=d.document_type,
                form_variant=d.form_variant,
                status=d.status,
                url=document_url(d.id),
            )
            for d in documents
        ],
    )


@router.get(
    "/documents/{document_id}",
    response_model=DocumentOut,
    responses=problem_responses(*ID_PROBLEMS),
)
async def get_document(deps: Deps, document_id: uuid.UUID) -> DocumentOut:
    """One document: header, columns, lines and values (or ОСВ row count), warnings, issues."""
    document, total = await _with_rows(deps, document_id, count_osv_rows)
    return _detail(document, total)


@router.get(
    "/documents/{document_id}/rows",
    response_model=OsvRowPage,
    responses=problem_responses(*ID_PROBLEMS, NOT_AN_OSV_DOCUMENT),
)
async def osv_rows(
    deps: Deps,
    document_id: uuid.UUID,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> OsvRowPage:
    """A page of the rows of an ОСВ document, in their order."""
    async with deps.sessions() as session:
        document = await session.get(Document, document_id)
        if document is None:
            raise NotFound("document", document_id)
        if not is_osv(document.document_type):
            raise NotAnOsvDocument("only ОСВ documents have rows; read its lines")
        of_document = select(OsvRow).where(OsvRow.document_id == document_id)
        total, rows = await Paging(limit, offset).fetch(session, of_document, OsvRow.position)
    return OsvRowPage(
        items=[osv_row_json(r) for r in rows], total=total, limit=limit, offset=offset
    )


@router.get(
    "/documents/{document_id}/normalized",
    response_model=None,
    responses={
        200: {
            "model": NormalizedDocument,
            "description": "The document in the 2.0 shape (a 1.x document may say error)",
        },
        **problem_responses(*ID_PROBLEMS),
    },
)
async def normalized(deps: Deps, document_id: uuid.UUID) -> DocumentBody:
    """The normalised document: the 2.0 document shape, with nothing the file said lost."""
    document, rows = await _with_rows(deps, document_id, load_osv_rows)
    return normalised_document(document, rows)


_EXCEL_TYPES = frozenset({"XLS", "XLSX", "XLSB"})


@router.get(
    "/documents/{document_id}/evidence",
    response_class=Response,
    responses={
        200: {
            "content": {"image/png": {"schema": {"type": "string", "format": "binary"}}},
            "description": (
                "The page around the value (its cell plus a margin) rendered at 216 dpi. "
                "`X-Evidence-Page`: the page, from 1; `X-Evidence-Box`: `x0,y0,x1,y1`, the "
                "value's box in the pixels of the whole page rendered so; "
                "`X-Evidence-Page-Size`: that page's `width,height`."
            ),
            "headers": {
                "X-Evidence-Page": {"schema": {"type": "integer", "minimum": 1}},
                "X-Evidence-Box": {"schema": {"type": "string"}},
                "X-Evidence-Page-Size": {"schema": {"type": "string"}},
            },
        },
        **problem_responses(*ID_PROBLEMS, NO_EVIDENCE, FILE_OVER_LIMITS, FILES_BUSY, UNAVAILABLE),
    },
)
async def evidence(
    deps: Deps,
    document_id: uuid.UUID,
    ref: Annotated[str, Query(min_length=1, max_length=200, description="The line's `ref`")],
    column_index: Annotated[
        int, Query(ge=0, le=MAX_OFFSET, description="The value's `column_index`")
    ],
) -> Response:
    """Where a scan value prints: the page cropped around it, so its digits can be checked by
    eye. 404 `no-evidence` for a value with no recorded position, and for an Excel document
    (its source is the cell window of the review page)."""
    async with deps.sessions() as session:
        document = await _document(session, document_id)
        stored = await session.get(StoredFile, document.file_id)
    if stored is None:
        raise NotFound("file", document.file_id)
    if stored.file_type in _EXCEL_TYPES:
        msg = "an Excel document's values are their cells; they have no page"
        raise NoEvidence(msg)
    line = next((item for item in document.lines if item.ref == ref), None)
    if line is None or not any(v.column_index == column_index for v in line.values):
        msg = f"the document has no value {ref} / column {column_index}"
        raise NoEvidence(msg)
    if deps.evidence is None:
        msg = "this core keeps no evidence of scan values"
        raise NoEvidence(msg)
    crop = await deps.evidence.crop(stored, document.job_id, ref, column_index)
    return Response(
        crop.png,
        media_type="image/png",
        headers={
            "X-Evidence-Page": str(crop.page),
            "X-Evidence-Box": ",".join(str(v) for v in crop.box),
            "X-Evidence-Page-Size": f"{crop.page_size[0]},{crop.page_size[1]}",
            "Cache-Control": "private, max-age=300",
        },
    )
