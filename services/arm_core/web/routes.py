"""The analyst's pages (`/ui`): files, a document beside its source, corrections, export.

Server-rendered Jinja2 with htmx for the live parts (the file list polls while a job runs,
the side panel, corrections); every route reads and writes through the same services as the
JSON API. Answers a page can show (a refused upload, a refused correction) are 4xx fragments
with a readable reason; an unknown file or document is a 404 page.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, cast

from fastapi import APIRouter, Depends, File, Form, Query, Request, Response, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.templating import Jinja2Templates
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from services.arm_core._api_deps import ApiDeps, Deps
from services.arm_core.auth import Principal, require
from services.arm_core.correction_routes import export_file
from services.arm_core.corrections import (
    HEADER_FIELDS,
    CorrectedDocument,
    CorrectionRequest,
    InvalidCorrection,
    add_correction,
    load_corrected,
)
from services.arm_core.db.documents import Document
from services.arm_core.db.models import ACTIVE_STATUSES, Correction, CorrectionKind, StoredFile
from services.arm_core.document_read import (
    count_osv_rows,
    latest_result_job,
    list_documents,
    load_osv_rows,
    osv_row_json,
)
from services.arm_core.document_store import is_osv
from services.arm_core.exceptions import ApiProblem
from services.arm_core.listing import file_with_jobs, query_files
from services.arm_core.review import Review, review_of
from services.arm_core.routes import read_limited
from services.arm_core.web import source
from services.arm_core.web.source_cache import SourceCache, workbook_bytes
from services.arm_core.web.views import money, statement_view
from services.arm_statements.money import format_amount, parse_amount
from services.excel import ExcelError, Workbook
from services.runtime.storage import StorageError

if TYPE_CHECKING:
    from services.arm_core.schemas import JobStatusName

__all__ = ["UI_PREFIX", "build_web_router", "install_not_found_page", "templates"]

UI_PREFIX = "/ui"
_HERE = Path(__file__).parent
templates = Jinja2Templates(directory=str(_HERE / "templates"))
templates.env.filters["money"] = money

STATUS_NAMES: dict[str, str] = {
    "queued": "в очереди",
    "published": "отправлен",
    "processing": "распознаётся",
    "done": "готово",
    "needs_check": "нужна проверка",
    "error": "ошибка",
    "timeout": "нет ответа",
    "dlq": "не доставлен",
}
DOCUMENT_TYPES = {"BALANCE": "Баланс", "INCOME": "ОФР", "OSV": "ОСВ", "DISCLOSURE": "Пояснения"}
LINE_STATUSES = {
    "ok": "",
    "unreadable": "код не прочитан",
    "missing": "нет кода",
    "detail": "детализация",
}
templates.env.globals.update(
    STATUS_NAMES=STATUS_NAMES, DOCUMENT_TYPES=DOCUMENT_TYPES, LINE_STATUSES=LINE_STATUSES
)
_EXCEL = frozenset({"XLS", "XLSX", "XLSB"})
_ACTIVE = frozenset(s.value for s in ACTIVE_STATUSES)
# At most two workbooks are read for the source view at once: each is held whole while read.
_SOURCE_READS = asyncio.Semaphore(2)
_FILES_PAGE = 20
_FILES_TABLE = "files-table"  # the table's element id: htmx names it in HX-Target
_ROWS_PAGE = 100
Analyst = Annotated[Principal, Depends(require("analyst"))]
Integrator = Annotated[Principal, Depends(require("integrator"))]
Reader = Annotated[Principal, Depends(require("integrator", "analyst"))]


class _PageNotFound(Exception):
    """No such file or document (or not of that file): the 404 page."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


def _render(request: Request, template: str, code: int = 200, **context: Any) -> HTMLResponse:
    return templates.TemplateResponse(request, template, context, status_code=code)


async def _file_page_data(deps: ApiDeps, status: str | None, offset: int) -> dict[str, Any]:
    # The filter's «все» sends an empty status; an unknown one filters nothing either.
    status = status if status in STATUS_NAMES else None
    async with deps.sessions() as session:
        total, files = await query_files(
            session,
            limit=_FILES_PAGE,
            offset=offset,
            status=cast("JobStatusName", status) if status is not None else None,
        )
    latest = [(f, f.jobs[-1] if f.jobs else None) for f in files]
    running = any(job is not None and job.status in _ACTIVE for _f, job in latest)
    items = [{"file": f, "job": job} for f, job in latest]
    return {
        "items": items,
        "total": total,
        "offset": offset,
        "limit": _FILES_PAGE,
        "status": status or "",
        "running": running,
    }


async def _document_in_file(
    deps: ApiDeps, file_id: uuid.UUID, document_id: uuid.UUID
) -> tuple[StoredFile, Document, CorrectedDocument]:
    async with deps.sessions() as session:
        stored = await session.get(StoredFile, file_id)
        found = await load_corrected(session, document_id)
    if stored is None:
        raise _PageNotFound("файл")
    if found is None or found[0].file_id != file_id:
        raise _PageNotFound("документ")
    return stored, found[0], found[1]


def _doc_context(
    stored: StoredFile, document: Document, corrected: CorrectedDocument
) -> dict[str, Any]:
    context: dict[str, Any] = {
        "file": stored,
        "document": document,
        "corrected": corrected,
        "review": review_of(corrected),
        "base": f"{UI_PREFIX}/files/{stored.id}/documents/{document.id}",
    }
    if not is_osv(document.document_type):
        context["view"] = statement_view(corrected)
    return context


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


def _next_doubtful(view: Any, line: int | None, column: int | None) -> tuple[int, int] | None:
    """The first doubtful value after (line, column), for the keyboard's next stop."""
    if line is None:
        return None
    after = [d for d in view.doubtful if d > (line, column or 0)]
    return after[0] if after else None


def build_web_router(cache: SourceCache | None = None) -> APIRouter:
    """The pages under `/ui` (and `/` redirecting to the files page); the source view keeps
    what it read in `cache` (a default-sized one when none is given)."""
    router = APIRouter(include_in_schema=False)
    sources = cache if cache is not None else SourceCache()

    @router.get("/")
    async def root() -> RedirectResponse:
        return RedirectResponse(f"{UI_PREFIX}/files", status_code=307)

    @router.get(f"{UI_PREFIX}/files", response_class=HTMLResponse)
    @router.get(f"{UI_PREFIX}/files/table", response_class=HTMLResponse)
    async def files_page(
        request: Request,
        deps: Deps,
        _who: Reader,
        status: Annotated[str | None, Query()] = None,
        offset: Annotated[int, Query(ge=0)] = 0,
    ) -> HTMLResponse:
        """The files page, or only its table for htmx (the filter, the polling) and for
        `/ui/files/table`; `Vary` keeps a cache from serving one for the other."""
        data = await _file_page_data(deps, status, offset)
        fragment = _wants_table(request)
        response = _render(request, "_files_table.html" if fragment else "files.html", **data)
        response.headers["Vary"] = "HX-Request, HX-Target"
        return response

    @router.post(f"{UI_PREFIX}/files", response_class=HTMLResponse)
    async def upload(
        request: Request,
        deps: Deps,
        _who: Integrator,
        file: Annotated[UploadFile | None, File()] = None,
    ) -> HTMLResponse:
        if file is None:
            return _render(request, "_upload_result.html", 400, error="Выберите файл.")
        try:
            data = await read_limited(file, deps.uploads.max_bytes)
            accepted = await deps.uploads.accept(file.filename, data)
        except ApiProblem as problem:
            return _render(
                request,
                "_upload_result.html",
                problem.status,
                error=_upload_reason(problem),
                name=file.filename,
            )
        response = _render(request, "_upload_result.html", 201, stored=accepted.file)
        response.headers["HX-Trigger"] = "files-changed"
        return response

    @router.post(f"{UI_PREFIX}/files/{{file_id}}/recognitions")
    async def rerun(deps: Deps, _who: Integrator, file_id: uuid.UUID) -> Response:
        await deps.uploads.recognize_again(file_id)
        return Response(status_code=204, headers={"HX-Trigger": "files-changed"})

    @router.get(f"{UI_PREFIX}/files/{{file_id}}", response_class=HTMLResponse)
    async def file_page(
        request: Request, deps: Deps, _who: Reader, file_id: uuid.UUID
    ) -> HTMLResponse:
        async with deps.sessions() as session:
            stored = await file_with_jobs(session, file_id)
            if stored is None:
                raise _PageNotFound("файл")
            job = await latest_result_job(session, file_id)
            documents = await list_documents(session, job.id) if job is not None else []
            reviews = await _reviews(session, documents)
        latest = stored.jobs[-1] if stored.jobs else None
        return _render(
            request,
            "file.html",
            file=stored,
            jobs=list(reversed(stored.jobs)),
            documents=documents,
            reviews=reviews,
            running=latest is not None and latest.status in _ACTIVE,
        )

    @router.get(
        f"{UI_PREFIX}/files/{{file_id}}/documents/{{document_id}}", response_class=HTMLResponse
    )
    async def document_page(
        request: Request,
        deps: Deps,
        _who: Analyst,
        file_id: uuid.UUID,
        document_id: uuid.UUID,
        offset: Annotated[int, Query(ge=0)] = 0,
    ) -> HTMLResponse:
        stored, document, corrected = await _document_in_file(deps, file_id, document_id)
        context = _doc_context(stored, document, corrected)
        if is_osv(document.document_type):
            async with deps.sessions() as session:
                context["rows_total"] = await count_osv_rows(session, document_id)
                rows = await load_osv_rows(session, document_id, limit=_ROWS_PAGE, offset=offset)
            context.update(rows=[osv_row_json(r) for r in rows], offset=offset, limit=_ROWS_PAGE)
        return _render(request, "document.html", **context)

    @router.get(
        f"{UI_PREFIX}/files/{{file_id}}/documents/{{document_id}}/cell",
        response_class=HTMLResponse,
    )
    async def cell_panel(
        request: Request,
        deps: Deps,
        _who: Analyst,
        file_id: uuid.UUID,
        document_id: uuid.UUID,
        line: Annotated[int, Query(ge=0)],
        column: Annotated[int | None, Query(ge=0)] = None,
    ) -> HTMLResponse:
        stored, document, corrected = await _document_in_file(deps, file_id, document_id)
        lines = corrected.document.get("lines") or []
        if line >= len(lines):
            raise _PageNotFound("строка")
        the_line = lines[line]
        value: dict[str, Any] = next(
            (v for v in the_line.get("values") or [] if v.get("column_index") == column), {}
        )
        origin = await _origin(deps, sources, stored, the_line.get("ref"), value)
        columns = {c.get("column_index"): c for c in corrected.document.get("columns") or []}
        return _render(
            request,
            "_panel_cell.html",
            base=f"{UI_PREFIX}/files/{file_id}/documents/{document_id}",
            file=stored,
            line_index=line,
            line=the_line,
            column=columns.get(column),
            column_index=column,
            value=value,
            origin=origin,
            editable=not is_osv(document.document_type),
        )

    @router.get(
        f"{UI_PREFIX}/files/{{file_id}}/documents/{{document_id}}/row",
        response_class=HTMLResponse,
    )
    async def row_panel(
        request: Request,
        deps: Deps,
        _who: Analyst,
        file_id: uuid.UUID,
        document_id: uuid.UUID,
        index: Annotated[int, Query(ge=0)],
    ) -> HTMLResponse:
        """An ОСВ row beside the source cells of its `ref` (rows are not corrected)."""
        stored, document, _corrected = await _document_in_file(deps, file_id, document_id)
        if not is_osv(document.document_type):
            raise _PageNotFound("строка")
        async with deps.sessions() as session:
            rows = await load_osv_rows(session, document_id, limit=1, offset=index)
        if not rows:
            raise _PageNotFound("строка")
        row = osv_row_json(rows[0])
        origin = await _origin(deps, sources, stored, row.get("ref"), {})
        return _render(request, "_panel_row.html", file=stored, row=row, origin=origin)

    @router.get(
        f"{UI_PREFIX}/files/{{file_id}}/documents/{{document_id}}/field",
        response_class=HTMLResponse,
    )
    async def field_panel(
        request: Request,
        deps: Deps,
        _who: Analyst,
        file_id: uuid.UUID,
        document_id: uuid.UUID,
        field: Annotated[str, Query()],
    ) -> HTMLResponse:
        _stored, _document, corrected = await _document_in_file(deps, file_id, document_id)
        if field not in HEADER_FIELDS:
            raise _PageNotFound("поле")
        header = corrected.document.get("header") or {}
        return _render(
            request,
            "_panel_field.html",
            base=f"{UI_PREFIX}/files/{file_id}/documents/{document_id}",
            field=field,
            label=HEADER_FIELDS[field],
            value=header.get(field),
            text=header.get(f"{field}_text"),
        )

    @router.post(
        f"{UI_PREFIX}/files/{{file_id}}/documents/{{document_id}}/corrections",
        response_class=HTMLResponse,
    )
    async def correct(
        request: Request,
        deps: Deps,
        who: Analyst,
        file_id: uuid.UUID,
        document_id: uuid.UUID,
        kind: Annotated[str, Form()],
        line: Annotated[int | None, Form()] = None,
        column: Annotated[int | None, Form()] = None,
        field: Annotated[str | None, Form()] = None,
        value: Annotated[str | None, Form()] = None,
    ) -> HTMLResponse:
        stored, document, corrected = await _document_in_file(deps, file_id, document_id)
        try:
            request_ = _correction_request(corrected, kind, line, column, field, value)
            async with deps.sessions() as session, session.begin():
                found = await load_corrected(session, document_id)
                assert found is not None  # checked above; documents are not deleted meanwhile
                await add_correction(session, found[0], request_, author=who.subject)
        except InvalidCorrection as refused:
            response = _render(request, "_refused.html", 422, reason=refused.detail)
            response.headers["HX-Retarget"] = "#panel-message"
            response.headers["HX-Reswap"] = "innerHTML"
            return response
        stored, document, corrected = await _document_in_file(deps, file_id, document_id)
        context = _doc_context(stored, document, corrected)
        if "view" in context:
            context["focus"] = _next_doubtful(context["view"], line, column) or (
                (line, column) if line is not None and column is not None else None
            )
        context["saved"] = request_
        return _render(request, "_doc_body.html", **context)

    @router.get(f"{UI_PREFIX}/files/{{file_id}}/documents/{{document_id}}/export.{{fmt}}")
    async def export(
        deps: Deps, _who: Analyst, file_id: uuid.UUID, document_id: uuid.UUID, fmt: str
    ) -> Response:
        if fmt not in ("xlsx", "csv"):
            raise _PageNotFound("формат")
        _stored, document, corrected = await _document_in_file(deps, file_id, document_id)
        return await export_file(deps, document, corrected, "xlsx" if fmt == "xlsx" else "csv")

    @router.get(f"{UI_PREFIX}/files/{{file_id}}/pages/{{page}}.png")
    async def page_image(deps: Deps, _who: Analyst, file_id: uuid.UUID, page: int) -> Response:
        async with deps.sessions() as session:
            stored = await session.get(StoredFile, file_id)
        if stored is None or stored.file_type in _EXCEL:
            raise _PageNotFound("страница")

        async def render() -> tuple[bytes | None, int]:
            data = await deps.uploads.read(stored)
            png = await asyncio.to_thread(source.render_page, data, stored.file_type, page)
            return png, len(png or b"")

        image = await sources.get(stored.id, ("page", page), render)
        if image is None:
            raise _PageNotFound("страница")
        return Response(image, media_type="image/png", headers={"Cache-Control": "max-age=3600"})

    return router


def _correction_request(
    corrected: CorrectedDocument,
    kind: str,
    line: int | None,
    column: int | None,
    field: str | None,
    value: str | None,
) -> CorrectionRequest:
    """The page's form as a correction; `auto` (Enter on a value) confirms an unchanged value
    and corrects a changed one."""
    if kind == "auto":
        lines = corrected.document.get("lines") or []
        current = None
        if line is not None and 0 <= line < len(lines):
            current = next(
                (
                    v.get("amount")
                    for v in lines[line].get("values") or []
                    if v.get("column_index") == column
                ),
                None,
            )
        typed = parse_amount((value or "").strip())
        unchanged = current is not None and typed is not None and format_amount(typed) == current
        kind = CorrectionKind.CONFIRM.value if unchanged else CorrectionKind.VALUE.value
    try:
        correction_kind = CorrectionKind(kind)
    except ValueError as exc:
        raise InvalidCorrection(f"неизвестный вид исправления «{kind}»") from exc
    return CorrectionRequest(correction_kind, line, column, field, value)


async def _origin(
    deps: ApiDeps, sources: SourceCache, stored: StoredFile, ref: str | None, value: dict[str, Any]
) -> dict[str, Any]:
    """Where the line came from: an Excel window, or a page image with what was read."""
    if stored.file_type not in _EXCEL:
        page = source.page_of_ref(ref)
        return {"kind": "page", "page": page, "text": value.get("text"), "ref": ref}
    parsed = source.parse_excel_ref(ref)
    if parsed is None:
        return {"kind": "none", "reason": f"у строки нет ссылки на ячейку ({ref})"}

    async def read() -> tuple[Workbook, int]:
        async with _SOURCE_READS:
            data = await deps.uploads.read(stored)
            return await asyncio.to_thread(_weighed_workbook, data)

    try:
        workbook = await sources.get(stored.id, "workbook", read)
    except (StorageError, ExcelError):
        return {"kind": "none", "reason": "исходный файл сейчас не прочитать"}
    window = source.excel_window(
        workbook, parsed, amount=value.get("amount"), text=value.get("text")
    )
    if window is None:
        return {"kind": "none", "reason": f"в файле нет листа «{parsed.sheet}»"}
    return {"kind": "excel", "window": window, "ref": ref}


def _weighed_workbook(data: bytes) -> tuple[Workbook, int]:
    workbook = source.read_workbook(data)
    return workbook, workbook_bytes(workbook)


_UPLOAD_REASONS = {
    "unsupported-file-type": "Такой файл не распознаётся: загрузите XLS, XLSX, XLSB, PDF, PNG или JPG.",
    "unsupported-file-content": "Содержимое файла не похоже ни на Excel, ни на PDF, ни на изображение.",
    "file-type-mismatch": "Расширение файла не совпадает с его содержимым.",
    "empty-file": "Файл пуст.",
    "file-too-large": "Файл слишком большой.",
    "missing-file-name": "У файла нет имени.",
    "invalid-file-name": "Недопустимое имя файла.",
}


def _upload_reason(problem: ApiProblem) -> str:
    return _UPLOAD_REASONS.get(problem.problem.slug, "Файл не принят.") + f" ({problem.detail})"


def install_not_found_page(app: Any) -> None:
    """The 404 page of the pages (the JSON API keeps its problem documents)."""

    async def handler(request: Request, exc: Exception) -> HTMLResponse:
        what = exc.what if isinstance(exc, _PageNotFound) else "страница"
        return _render(request, "not_found.html", 404, what=what)

    app.add_exception_handler(_PageNotFound, handler)
