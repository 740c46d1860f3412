"""The files pages: the list (with upload and the live table), one file with its jobs and
documents, a new recognition, a scan's page image."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, File, Query, Request, Response, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from services.arm_core.db.documents import Document
from services.arm_core.db.models import (
    ACTIVE_STATUSES,
    Correction,
    JobStatus,
    RecognitionJob,
    StoredFile,
)
from services.arm_core.documents.corrections import load_corrected
from services.arm_core.documents.listing import (
    FAILED_STATUSES,
    FileOrder,
    file_with_jobs,
    files_glances,
    query_files,
)
from services.arm_core.documents.read import latest_result_job, list_documents
from services.arm_core.documents.review import Review, review_of
from services.arm_core.exceptions import (
    EmptyFile,
    FileOverLimits,
    FilesBusy,
    FileTooLarge,
    FileTypeMismatch,
    InvalidFileName,
    MissingFileName,
    Unavailable,
    UnsupportedFileContent,
    UnsupportedFileType,
    UploadRejected,
)
from services.arm_core.rest.bodies import read_limited
from services.arm_core.rest.deps import Analyst, ApiDeps, Deps, Integrator, Reader
from services.arm_core.rest.paging import MAX_OFFSET
from services.arm_core.rest.problems import problem_of
from services.arm_core.web.names import STATUS_NAMES
from services.arm_core.web.not_found import PageNotFound
from services.arm_core.web.render import UI_PREFIX, render
from services.arm_core.web.sources import EXCEL_TYPES, SourceReader, Sources
from services.arm_core.web.views import RunningPages, file_remarks

__all__ = ["router"]

router = APIRouter(include_in_schema=False)

_ACTIVE = frozenset(s.value for s in ACTIVE_STATUSES)
_FILES_PAGE = 20
_FILES_TABLE = "files-table"  # the table's element id: htmx names it in HX-Target


_ATTENTION = {"yes": True, "no": False}


async def _file_page_data(
    deps: ApiDeps,
    sources: SourceReader,
    status: str | None,
    attention: str | None,
    order: str | None,
    offset: int,
) -> dict[str, Any]:
    # The filters' «все» send an empty value; an unknown one filters nothing either. The page
    # puts what needs the analyst first unless asked for the newest.
    status = status if status in STATUS_NAMES else None
    needs = _ATTENTION.get(attention or "")
    by: FileOrder = "newest" if order == "newest" else "attention"
    async with deps.sessions() as session:
        total, files = await query_files(
            session,
            limit=_FILES_PAGE,
            offset=offset,
            status=status,
            needs_attention=needs,
            order=by,
        )
        glances = await files_glances(session, files)
    latest = [(f, f.jobs[-1] if f.jobs else None) for f in files]
    running = any(job is not None and job.status in _ACTIVE for _f, job in latest)
    items = [
        {
            "file": f,
            "job": job,
            "documents": glances.get(f.id, []),
            "failed": job is not None and job.status in FAILED_STATUSES,
            "pages": await _pages_while_running(deps, sources, f, job),
        }
        for f, job in latest
    ]
    query = urlencode({"status": status or "", "attention": attention or "", "order": by})
    return {
        "items": items,
        "total": total,
        "offset": offset,
        "limit": _FILES_PAGE,
        "status": status or "",
        "attention": attention if needs is not None else "",
        "order": by,
        "query": query,
        "running": running,
    }


async def _pages_while_running(
    deps: ApiDeps, sources: SourceReader, stored: StoredFile, job: RecognitionJob | None
) -> RunningPages | None:
    """The pages a running recognition of a scan works through and, while it is processing,
    those its recogniser says it has done (decision 0037); None when nothing can be said."""
    if job is None or job.status not in _ACTIVE:
        return None
    counted = await sources.page_count(deps.uploads, stored)
    done = None
    scan = stored.file_type not in EXCEL_TYPES  # a workbook's parser tells no pages
    if deps.progress is not None and scan and job.status == JobStatus.PROCESSING:
        done = await deps.progress.pages_done(stored, job.id)
    return RunningPages(counted, done) if counted or done else None


async def _reviews(session: AsyncSession, documents: Sequence[Document]) -> dict[uuid.UUID, Review]:
    """The review of each document an analyst has touched (the others read as recognised)."""
    if not documents:
        return {}
    touched = set(
        await session.scalars(
            select(Correction.document_id)
            .where(Correction.document_id.in_([d.id for d in documents]))
            .distinct()
        )
    )
    reviews: dict[uuid.UUID, Review] = {}
    for document_id in touched:
        found = await load_corrected(session, document_id)
        if found is not None:
            reviews[document_id] = review_of(found[1])
    return reviews


def _wants_table(request: Request) -> bool:
    """Whether a files request asks for the table alone: htmx swapping `#files-table`, or the
    fragment's own URL."""
    if request.url.path.endswith("/table"):
        return True
    htmx = request.headers.get("HX-Request") == "true"
    return htmx and request.headers.get("HX-Target") == _FILES_TABLE


@router.get("/")
async def root() -> RedirectResponse:
    return RedirectResponse(f"{UI_PREFIX}/files", status_code=307)


@router.get(f"{UI_PREFIX}/files", response_class=HTMLResponse)
@router.get(f"{UI_PREFIX}/files/table", response_class=HTMLResponse)
async def files_page(
    request: Request,
    deps: Deps,
    sources: Sources,
    _who: Reader,
    status: Annotated[str | None, Query()] = None,
    attention: Annotated[str | None, Query()] = None,
    order: Annotated[str | None, Query()] = None,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> HTMLResponse:
    """The files page, or only its table for htmx (the filters, the polling) and for
    `/ui/files/table`; `Vary` keeps a cache from serving one for the other."""
    data = await _file_page_data(deps, sources, status, attention, order, offset)
    fragment = _wants_table(request)
    response = render(request, "_files_table.html" if fragment else "files.html", **data)
    response.headers["Vary"] = "HX-Request, HX-Target"
    return response


@router.post(f"{UI_PREFIX}/files", response_class=HTMLResponse)
async def upload(
    request: Request,
    deps: Deps,
    _who: Integrator,
    file: Annotated[list[UploadFile] | None, File()] = None,
) -> HTMLResponse:
    """One or several files (the picker and a drop take many): each stored and queued, or
    refused with its reason; a file whose bytes were uploaded before says which file it
    repeats."""
    if not file:
        return render(request, "_upload_result.html", 400, error="Выберите файл.")
    results: list[dict[str, Any]] = []
    for one in file:
        try:
            data = await read_limited(one, deps.uploads.max_bytes)
            accepted = await deps.uploads.accept(one.filename, data)
        except (UploadRejected, FileOverLimits, Unavailable) as refused:  # the page says why
            results.append(
                {"name": one.filename, "error": _upload_reason(refused), "code": _status(refused)}
            )
            continue
        results.append({"stored": accepted.file, "duplicate_of": accepted.duplicate_of})
    stored = [r for r in results if "stored" in r]
    code = 201 if stored else min(r["code"] for r in results)
    response = render(request, "_upload_result.html", code, results=results)
    if stored:
        response.headers["HX-Trigger"] = "files-changed"
    return response


@router.post(f"{UI_PREFIX}/files/{{file_id}}/recognitions")
async def rerun(deps: Deps, _who: Integrator, file_id: uuid.UUID) -> Response:
    await deps.uploads.recognize_again(file_id)
    return Response(status_code=204, headers={"HX-Trigger": "files-changed"})


@router.get(f"{UI_PREFIX}/files/{{file_id}}", response_class=HTMLResponse)
async def file_page(
    request: Request, deps: Deps, sources: Sources, _who: Reader, file_id: uuid.UUID
) -> HTMLResponse:
    async with deps.sessions() as session:
        stored = await file_with_jobs(session, file_id)
        if stored is None:
            raise PageNotFound("файл")
        job = await latest_result_job(session, file_id)
        documents = await list_documents(session, job.id) if job is not None else []
        reviews = await _reviews(session, documents)
    latest = stored.jobs[-1] if stored.jobs else None
    return render(
        request,
        "file.html",
        file=stored,
        jobs=list(reversed(stored.jobs)),
        documents=documents,
        reviews=reviews,
        running=latest is not None and latest.status in _ACTIVE,
        latest=latest,
        pages=await _pages_while_running(deps, sources, stored, latest),
        file_remarks=file_remarks(job.metrics) if job is not None else [],
    )


@router.get(f"{UI_PREFIX}/files/{{file_id}}/pages/{{page}}.png")
async def page_image(
    deps: Deps,
    sources: Sources,
    _who: Analyst,
    file_id: uuid.UUID,
    page: int,
    sharp: Annotated[bool, Query()] = False,
) -> Response:
    """A page of a scan as PNG: at the screen's 108 dpi, or `?sharp=true` at 216 dpi for the
    zoomed page view of the evidence panel (its pixels capped either way)."""
    async with deps.sessions() as session:
        stored = await session.get(StoredFile, file_id)
    if stored is None or stored.file_type in EXCEL_TYPES:
        raise PageNotFound("страница")
    image = await sources.page_png(deps.uploads, stored, page, sharp=sharp)
    if image is None:
        raise PageNotFound("страница")
    return Response(image, media_type="image/png", headers={"Cache-Control": "max-age=3600"})


# The analyst's words for each refusal of an upload.
_UPLOAD_REASONS: dict[type[Exception], str] = {
    UnsupportedFileType: "Такой файл не распознаётся: загрузите XLS, XLSX, XLSB, PDF, PNG или JPG.",
    UnsupportedFileContent: "Содержимое файла не похоже ни на Excel, ни на PDF, ни на изображение.",
    FileTypeMismatch: "Расширение файла не совпадает с его содержимым.",
    EmptyFile: "Файл пуст.",
    FileTooLarge: "Файл слишком большой.",
    MissingFileName: "У файла нет имени.",
    InvalidFileName: "Недопустимое имя файла.",
    FileOverLimits: "Файл не удалось прочитать в отведённые память и время.",
    FilesBusy: "Сервер сейчас занят чтением других файлов: повторите загрузку через минуту.",
}


def _upload_reason(refused: UploadRejected | FileOverLimits | Unavailable) -> str:
    return _UPLOAD_REASONS.get(type(refused), "Файл не принят.") + f" ({refused.detail})"


def _status(refused: UploadRejected | FileOverLimits | Unavailable) -> int:
    """The status the API answers for the same refusal."""
    problem = problem_of(refused)
    return problem.status if problem is not None else 400
