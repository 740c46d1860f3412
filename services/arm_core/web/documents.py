"""The document page: a document beside its source, its panels, corrections and export."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import replace
from typing import Annotated, Any

from fastapi import APIRouter, Form, Query, Request, Response
from fastapi.responses import HTMLResponse

from services.arm_core.db.documents import Document
from services.arm_core.db.models import CorrectionKind, StoredFile
from services.arm_core.documents.corrections import (
    HEADER_FIELDS,
    CorrectedDocument,
    CorrectionRequest,
    add_correction,
    load_corrected,
    statement_lines,
)
from services.arm_core.documents.read import (
    DocumentBody,
    load_osv_row_labels,
    load_osv_rows,
    osv_row_json,
)
from services.arm_core.documents.review import review_of
from services.arm_core.documents.store import is_osv
from services.arm_core.exceptions import DoubtsLeft, InvalidCorrection
from services.arm_core.rest.deps import Analyst, ApiDeps, Deps
from services.arm_core.rest.downloads import export_response
from services.arm_core.rest.paging import MAX_OFFSET
from services.arm_core.web.not_found import PageNotFound
from services.arm_core.web.osv import RowLabel, error_steps, osv_checks, page_offset
from services.arm_core.web.render import UI_PREFIX, render
from services.arm_core.web.sources import Sources, evidence_origin
from services.arm_core.web.views import StatementView, header_shown, remarks, statement_view
from services.arm_statements.money import format_amount, parse_amount, too_precise

__all__ = ["router"]

router = APIRouter(include_in_schema=False)

_DOCUMENT = f"{UI_PREFIX}/files/{{file_id}}/documents/{{document_id}}"
_ROWS_PAGE = 100


async def _document_in_file(
    deps: ApiDeps, file_id: uuid.UUID, document_id: uuid.UUID
) -> tuple[StoredFile, Document, CorrectedDocument[DocumentBody]]:
    async with deps.sessions() as session:
        stored = await session.get(StoredFile, file_id)
        found = await load_corrected(session, document_id)
    if stored is None:
        raise PageNotFound("файл")
    if found is None or found[0].file_id != file_id:
        raise PageNotFound("документ")
    return stored, found[0], found[1]


def _doc_context(
    stored: StoredFile, document: Document, corrected: CorrectedDocument[DocumentBody]
) -> dict[str, Any]:
    context: dict[str, Any] = {
        "file": stored,
        "document": document,
        "corrected": corrected,
        "review": review_of(corrected),
        "base": f"{UI_PREFIX}/files/{stored.id}/documents/{document.id}",
        "remarks": remarks(corrected.document),
    }
    if not is_osv(document.document_type):
        context["view"] = statement_view(corrected)
    return context


async def _osv_context(
    deps: ApiDeps,
    document_id: uuid.UUID,
    corrected: CorrectedDocument[DocumentBody],
    offset: int,
    error: int | None,
) -> dict[str, Any]:
    """An ОСВ's page of rows (the page of its `error`-th failed check, when asked), its
    failed checks with their rows, the rows and cells to mark, the error steps around."""
    async with deps.sessions() as session:
        labels = [RowLabel(*row) for row in await load_osv_row_labels(session, document_id)]
        checks = osv_checks(corrected.osv.get("checks"), labels)
        current = checks[error - 1] if error is not None and error <= len(checks) else None
        if current is not None and current.row is not None:
            offset = page_offset(current.row, _ROWS_PAGE)
        rows = await load_osv_rows(session, document_id, limit=_ROWS_PAGE, offset=offset)
    return {
        "rows": [osv_row_json(r) for r in rows],
        "offset": offset,
        "limit": _ROWS_PAGE,
        "rows_total": len(labels),
        "osv_checks": checks,
        "current_error": current,
        "error_steps": error_steps(checks, current, offset),
        "failing_rows": {c.row: c for c in reversed(checks) if c.row is not None},
        "failing_cells": {(c.row, c.field) for c in checks if c.field is not None},
    }


def _next_doubtful(
    view: StatementView, line: int | None, column: int | None
) -> tuple[int, int] | None:
    """The first doubtful value after (line, column), else the first one above it: where the
    keyboard goes on after a save."""
    if line is None:
        return None
    after = [d for d in view.doubtful if d > (line, column or 0)]
    if after:
        return after[0]
    before = [d for d in view.doubtful if d < (line, column or 0)]
    return before[0] if before else None


@router.get(_DOCUMENT, response_class=HTMLResponse)
async def document_page(
    request: Request,
    deps: Deps,
    _who: Analyst,
    file_id: uuid.UUID,
    document_id: uuid.UUID,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
    error: Annotated[int | None, Query(ge=1, le=MAX_OFFSET)] = None,
) -> HTMLResponse:
    """The document page; for an ОСВ a page of rows, or with `error=k` the page of rows that
    shows its k-th failed control sum (the row focused)."""
    stored, document, corrected = await _document_in_file(deps, file_id, document_id)
    context = _doc_context(stored, document, corrected)
    if is_osv(document.document_type):
        context.update(await _osv_context(deps, document_id, corrected, offset, error))
    return render(request, "document.html", **context)


@router.get(f"{_DOCUMENT}/cell", response_class=HTMLResponse)
async def cell_panel(
    request: Request,
    deps: Deps,
    sources: Sources,
    _who: Analyst,
    file_id: uuid.UUID,
    document_id: uuid.UUID,
    line: Annotated[int, Query(ge=0, le=MAX_OFFSET)],
    column: Annotated[int | None, Query(ge=0, le=MAX_OFFSET)] = None,
) -> HTMLResponse:
    stored, document, corrected = await _document_in_file(deps, file_id, document_id)
    lines = statement_lines(corrected.document)
    if line >= len(lines):
        raise PageNotFound("строка")
    the_line = lines[line]
    value: Mapping[str, object] = next(
        (v for v in the_line.get("values") or [] if v.get("column_index") == column), {}
    )
    origin = await sources.origin(deps.uploads, stored, the_line.get("ref"), value)
    if deps.evidence is not None:
        origin = await evidence_origin(
            deps.evidence, stored, document.id, document.job_id, the_line.get("ref"), column, origin
        )
    columns = {c.get("column_index"): c for c in corrected.statement.get("columns") or []}
    return render(
        request,
        "_panel_cell.html",
        base=f"{UI_PREFIX}/files/{file_id}/documents/{document_id}",
        file=stored,
        line_index=line,
        line=the_line,
        column=columns.get(column) if column is not None else None,
        column_index=column,
        value=value,
        origin=origin,
        editable=not is_osv(document.document_type),
    )


@router.get(f"{_DOCUMENT}/row", response_class=HTMLResponse)
async def row_panel(
    request: Request,
    deps: Deps,
    sources: Sources,
    _who: Analyst,
    file_id: uuid.UUID,
    document_id: uuid.UUID,
    index: Annotated[int, Query(ge=0, le=MAX_OFFSET)],
) -> HTMLResponse:
    """An ОСВ row beside the source cells of its `ref` (rows are not corrected)."""
    stored, document, _corrected = await _document_in_file(deps, file_id, document_id)
    if not is_osv(document.document_type):
        raise PageNotFound("строка")
    async with deps.sessions() as session:
        rows = await load_osv_rows(session, document_id, limit=1, offset=index)
    if not rows:
        raise PageNotFound("строка")
    row = osv_row_json(rows[0])
    origin = await sources.origin(deps.uploads, stored, row.get("ref"), {})
    return render(request, "_panel_row.html", file=stored, row=row, origin=origin)


@router.get(f"{_DOCUMENT}/field", response_class=HTMLResponse)
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
        raise PageNotFound("поле")
    header = corrected.document.get("header") or {}
    return render(
        request,
        "_panel_field.html",
        base=f"{UI_PREFIX}/files/{file_id}/documents/{document_id}",
        field=field,
        label=HEADER_FIELDS[field],
        value=header_shown(field, header.get(field)),
        text=header.get(f"{field}_text"),
    )


@router.post(f"{_DOCUMENT}/corrections", response_class=HTMLResponse)
async def correct(
    request: Request,
    deps: Deps,
    who: Analyst,
    file_id: uuid.UUID,
    document_id: uuid.UUID,
    kind: Annotated[str, Form()],
    line: Annotated[int | None, Form(ge=0, le=MAX_OFFSET)] = None,
    column: Annotated[int | None, Form(ge=0, le=MAX_OFFSET)] = None,
    field: Annotated[str | None, Form()] = None,
    value: Annotated[str | None, Form()] = None,
    confirm_doubts: Annotated[int | None, Form(ge=0, le=MAX_OFFSET)] = None,
) -> HTMLResponse:
    _stored, document, corrected = await _document_in_file(deps, file_id, document_id)
    try:
        asked = _correction_request(corrected, kind, line, column, field, value)
        asked = replace(asked, confirm_doubts=confirm_doubts)
        async with deps.sessions() as session, session.begin():
            await add_correction(session, document, asked, author=who.subject)
    except DoubtsLeft as left:  # ask again, naming the count: the analyst confirms it or not
        base = f"{UI_PREFIX}/files/{file_id}/documents/{document_id}"
        response = render(request, "_doubts_left.html", 409, count=left.count, base=base)
        response.headers["HX-Retarget"] = "#panel-message"
        response.headers["HX-Reswap"] = "innerHTML"
        return response
    except InvalidCorrection as refused:
        response = render(request, "_refused.html", 422, reason=refused.detail)
        response.headers["HX-Retarget"] = "#panel-message"
        response.headers["HX-Reswap"] = "innerHTML"
        return response
    stored, document, corrected = await _document_in_file(deps, file_id, document_id)
    context = _doc_context(stored, document, corrected)
    if is_osv(document.document_type):
        context.update(await _osv_context(deps, document_id, corrected, 0, None))
    if "view" in context:
        context["focus"] = _next_doubtful(context["view"], line, column) or (
            (line, column) if line is not None and column is not None else None
        )
    context["saved"] = asked
    return render(request, "_doc_body.html", **context)


@router.get(f"{_DOCUMENT}/export.{{fmt}}")
async def export(
    deps: Deps, _who: Analyst, file_id: uuid.UUID, document_id: uuid.UUID, fmt: str
) -> Response:
    if fmt not in ("xlsx", "csv"):
        raise PageNotFound("формат")
    _stored, document, corrected = await _document_in_file(deps, file_id, document_id)
    return await export_response(deps, document, corrected, "xlsx" if fmt == "xlsx" else "csv")


def _correction_request(
    corrected: CorrectedDocument[DocumentBody],
    kind: str,
    line: int | None,
    column: int | None,
    field: str | None,
    value: str | None,
) -> CorrectionRequest:
    """The page's form as a correction; `auto` (Enter on a value) confirms an unchanged value
    and corrects a changed one."""
    if kind == "auto":
        lines = statement_lines(corrected.document)
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
        typed = None if too_precise(value) else parse_amount((value or "").strip())
        unchanged = current is not None and typed is not None and format_amount(typed) == current
        kind = CorrectionKind.CONFIRM.value if unchanged else CorrectionKind.VALUE.value
    try:
        correction_kind = CorrectionKind(kind)
    except ValueError as exc:
        raise InvalidCorrection(f"неизвестный вид исправления «{kind}»") from exc
    return CorrectionRequest(correction_kind, line, column, field, value)
