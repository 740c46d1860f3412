"""The correction routes of `/api/v1`: the corrected document, its corrections, export.

- `GET /documents/{document_id}/corrected`: the document with the corrections applied and its
  checks recomputed, the corrections and the review mark;
- `GET /documents/{document_id}/corrections`: the corrections, oldest first;
- `POST /documents/{document_id}/corrections`: a new correction (role `analyst`);
- `GET /documents/{document_id}/export?format=xlsx|csv`: the corrected document as a file.

Every route needs the `analyst` role; the correction records the principal's subject.
"""

from __future__ import annotations

import uuid
from dataclasses import asdict
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Response
from pydantic import BaseModel, Field

from services.arm_core.db.documents import Document
from services.arm_core.db.models import CorrectionKind
from services.arm_core.documents.corrections import (
    CorrectedDocument,
    CorrectionRequest,
    add_correction,
    correction_json,
    load_corrected,
)
from services.arm_core.documents.dossier import dossier_of_document
from services.arm_core.documents.read import DocumentBody
from services.arm_core.documents.review import review_of
from services.arm_core.exceptions import NotFound
from services.arm_core.rest.deps import Analyst, Deps
from services.arm_core.rest.downloads import XLSX_TYPE, export_response
from services.arm_core.rest.openapi import problem_responses
from services.arm_core.rest.organizations import DisagreementOut, disagreement_out
from services.arm_core.rest.paging import MAX_OFFSET
from services.arm_core.rest.problem_types import DOUBTS_LEFT, INVALID_CORRECTION
from services.arm_core.rest.reads import ID_PROBLEMS

__all__ = [
    "ChangeOut",
    "CorrectedOut",
    "CorrectionIn",
    "CorrectionOut",
    "ReviewOut",
    "corrected_out",
    "router",
]


class CorrectionIn(BaseModel):
    """A correction: a value (`line`, `column_index`, `value`), a line code (`line`, `value`),
    a header field (`field`, `value`), a confirmation of a value, or the review mark."""

    kind: Literal["value", "line_code", "header", "confirm", "reviewed"]
    line: int | None = Field(
        None, ge=0, le=MAX_OFFSET, description="The line's position in `lines[]`"
    )
    column_index: int | None = Field(None, ge=0, le=MAX_OFFSET)
    field: str | None = Field(None, description="A header field, e.g. `inn`")
    value: str | None = Field(None, description="The new value, as the analyst typed it")
    confirm_doubts: int | None = Field(
        None,
        ge=0,
        le=MAX_OFFSET,
        description="`reviewed` only: the number of doubts left that the analyst knowingly "
        "confirms; with doubts left and no exact count the mark is refused (409 doubts-left)",
    )


class CorrectionOut(BaseModel):
    """A stored correction: who, when, what, old and new."""

    id: int
    kind: str
    line: int | None
    column_index: int | None
    field: str | None
    old_value: str | None
    new_value: str | None = Field(
        description="The value now; for `reviewed`, the number of doubts the analyst confirmed "
        "leaving (null: none were left)"
    )
    author: str
    created_at: str


class ChangeOut(BaseModel):
    """The standing correction of one place (a value, a line's code, a header field)."""

    kind: str = Field(description="The last correction there: value, confirm, line_code, header")
    line: int | None
    ref: str | None = Field(description="The line's `ref`")
    column_index: int | None
    field: str | None
    recognised: str | None = Field(description="The value as recognised, before any analyst")
    value: str | None = Field(description="The value now")
    author: str
    at: str


class ReviewOut(BaseModel):
    """Where the review stands (docs/review-page.md «Статус после проверки»)."""

    state: Literal["recognised", "corrected", "reviewed"] = Field(
        description="recognised: no correction; corrected: corrections, no review mark after "
        "the last of them; reviewed: marked reviewed after every correction"
    )
    recognised_status: str | None = Field(description="The status the service sent")
    status: str | None = Field(description="The corrected document's status (`document.status`)")
    doubts_left: int | None = Field(
        description="Values, lines and header fields still flagged needs_review (null: an ОСВ)"
    )
    changes: list[ChangeOut]
    confirmed_doubts: int | None = Field(
        None,
        description="reviewed: how many doubts the reviewer knowingly left (null: none)",
    )


class CorrectedOut(BaseModel):
    """The corrected document (the 2.0 document shape; an ОСВ without its rows): its flags and
    status are those of the corrected values; `review` says what changed and who checked."""

    document_id: uuid.UUID
    file_id: uuid.UUID
    document: dict[str, Any]
    corrections: list[CorrectionOut]
    review: ReviewOut
    reviewed: bool = Field(description="`review.state` is `reviewed`")
    reviewed_by: str | None
    reviewed_at: str | None
    disagreements: list[DisagreementOut] = Field(
        default=[],
        description="Figures of this document that another document of the borrower's dossier, "
        "or its official filing (`source: girbo`), prints differently "
        "(`GET /organizations/{key}/dossier`)",
    )


def corrected_out(
    document: Document,
    corrected: CorrectedDocument[DocumentBody],
    disagreements: list[DisagreementOut],
) -> CorrectedOut:
    """The API's answer for a corrected document."""
    review = review_of(corrected)
    return CorrectedOut(
        document_id=document.id,
        file_id=document.file_id,
        document=corrected.document,
        corrections=[CorrectionOut(**correction_json(c)) for c in corrected.corrections],
        review=ReviewOut(
            state=review.state,
            recognised_status=review.recognised_status,
            status=review.status,
            doubts_left=review.doubts_left,
            changes=[ChangeOut(**{**asdict(c), "at": c.at.isoformat()}) for c in review.changes],
            confirmed_doubts=review.confirmed_doubts,
        ),
        reviewed=review.state == "reviewed",
        reviewed_by=review.reviewed_by,
        reviewed_at=review.reviewed_at.isoformat() if review.reviewed_at else None,
        disagreements=disagreements,
    )


router = APIRouter(tags=["corrections"])


async def _load(
    deps: Deps, document_id: uuid.UUID
) -> tuple[Document, CorrectedDocument[DocumentBody]]:
    async with deps.sessions() as session:
        found = await load_corrected(session, document_id)
    if found is None:
        raise NotFound("document", document_id)
    return found


async def _answer(deps: Deps, document_id: uuid.UUID) -> CorrectedOut:
    """The corrected document with the dossier's disagreements that touch it."""
    document, found = await _load(deps, document_id)
    async with deps.sessions() as session:
        dossier = await dossier_of_document(session, document_id, deps.official)
    touching = dossier.touching(document_id) if dossier is not None else []
    return corrected_out(document, found, [disagreement_out(d) for d in touching])


@router.get(
    "/documents/{document_id}/corrected",
    response_model=CorrectedOut,
    responses=problem_responses(*ID_PROBLEMS),
)
async def corrected(deps: Deps, _who: Analyst, document_id: uuid.UUID) -> CorrectedOut:
    """The document with the analysts' corrections applied and its checks recomputed."""
    return await _answer(deps, document_id)


@router.get(
    "/documents/{document_id}/corrections",
    response_model=list[CorrectionOut],
    responses=problem_responses(*ID_PROBLEMS),
)
async def corrections(deps: Deps, _who: Analyst, document_id: uuid.UUID) -> list[CorrectionOut]:
    """The corrections of a document, oldest first."""
    _document, found = await _load(deps, document_id)
    return [CorrectionOut(**correction_json(c)) for c in found.corrections]


@router.post(
    "/documents/{document_id}/corrections",
    status_code=201,
    response_model=CorrectedOut,
    responses=problem_responses(*ID_PROBLEMS, INVALID_CORRECTION, DOUBTS_LEFT),
)
async def correct(
    deps: Deps, who: Analyst, document_id: uuid.UUID, body: CorrectionIn
) -> CorrectedOut:
    """Store a correction (never changing what was recognised); answers the corrected
    document. A value that is not an amount, an unknown line, column or field: 422; the
    review mark while doubts are left, without `confirm_doubts` equal to their count: 409."""
    request = CorrectionRequest(
        CorrectionKind(body.kind),
        body.line,
        body.column_index,
        body.field,
        body.value,
        body.confirm_doubts,
    )
    async with deps.sessions() as session, session.begin():
        found = await load_corrected(session, document_id)
        if found is None:
            raise NotFound("document", document_id)
        await add_correction(session, found[0], request, author=who.subject)
    return await _answer(deps, document_id)


@router.get(
    "/documents/{document_id}/export",
    response_class=Response,
    responses={
        200: {
            "description": "The corrected document as XLSX or CSV",
            "content": {
                XLSX_TYPE: {"schema": {"type": "string", "format": "binary"}},
                "text/csv": {"schema": {"type": "string"}},
            },
        },
        **problem_responses(*ID_PROBLEMS),
    },
)
async def export(
    deps: Deps,
    _who: Analyst,
    document_id: uuid.UUID,
    format: Annotated[Literal["xlsx", "csv"], Query()] = "xlsx",
) -> Response:
    """The corrected document: XLSX (a sheet of lines, a sheet of failed checks) or CSV."""
    document, found = await _load(deps, document_id)
    return await export_response(deps, document, found, format)
