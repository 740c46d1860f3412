"""The borrower's dossier in `/api/v1`: organisations and where their documents disagree.

- `GET /organizations`: every organisation with current documents (by ИНН; by name where no
  document of it has one), its document count, last report date and open disagreements;
- `GET /organizations/{key}/dossier`: its documents by period and the figures that disagree
  (`key` is the ИНН, or the `key` of the list for an organisation known by name only).
"""

from __future__ import annotations

import uuid
from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel, Field

from services.arm_core.documents.dossier import Dossier, dossier_of, organizations
from services.arm_core.exceptions import NotFound
from services.arm_core.rest.deps import READ, Deps
from services.arm_core.rest.openapi import problem_responses
from services.arm_core.rest.reads import ID_PROBLEMS, LIST_PROBLEMS
from services.arm_statements.agreement import Disagreement

__all__ = [
    "CrossFormOut",
    "DisagreementOut",
    "DossierOut",
    "OrganizationList",
    "OrganizationOut",
    "disagreement_out",
    "router",
]


class OrganizationOut(BaseModel):
    """An organisation of the dossier list."""

    key: str = Field(description="The ИНН, or `name:<folded name>` when no document has an ИНН")
    inn: str | None
    name: str | None
    by_name: bool = Field(description="Grouped by name: no document of it carries an ИНН")
    document_count: int
    last_report_date: str | None
    open_disagreements: int


class OrganizationList(BaseModel):
    items: list[OrganizationOut]


class FigureOut(BaseModel):
    """One source's amount of a disputed figure, in the disagreement's `units`."""

    document_id: str
    source: Literal["document", "girbo"]
    amount: str
    needs_review: bool
    line: int | None = Field(description="The line's position in the document's `lines[]`")
    column_index: int | None


class DisagreementOut(BaseModel):
    """The same line for the same period date differs between documents beyond rounding."""

    line_code: str
    period_date: str
    documents: list[FigureOut]
    difference: str = Field(description="Largest amount minus smallest, in `units`")
    units: str = Field(description="The coarsest units among the documents (руб., тыс. руб., …)")


class CrossFormDocumentOut(BaseModel):
    document_id: str
    role: Literal["balance", "balance_previous", "income", "osv"]


class CrossFormOut(BaseModel):
    """What one form implies for a balance line (`expected`) against what the balance prints
    (`actual`), in `units`; `soft`: explainable (dividends, accounting policy), never a failure."""

    rule: Literal["profit-movement", "osv-balance"]
    line_code: str
    period_date: str
    expected: str
    actual: str
    difference: str = Field(description="`actual` − `expected`")
    units: str
    agrees: bool
    soft: bool
    basis: str = Field(description="The rule in accounts or lines, e.g. «Дт 01 − Кт 02»")
    documents: list[CrossFormDocumentOut]


class DossierDocumentOut(BaseModel):
    id: uuid.UUID
    file_id: uuid.UUID
    document_type: str
    form_variant: str | None
    report_date: str | None
    status: str | None
    review_state: str


class OfficialOut(BaseModel):
    """Whether the dossier was held against the official filing (ГИР БО), and which."""

    state: Literal["off", "no_inn", "no_report_year", "compared", "not_found", "unavailable"] = (
        Field(
            description="`compared`: its figures joined the disagreements; `off`: no "
            "OPENBAO__GIRBO__GIRBO_URL; `unavailable`: the service failed (no official figures); "
            "`not_found`: no organisation or no filing of the report years; `no_inn`: a dossier "
            "by name; `no_report_year`: no statement with a report date"
        )
    )
    filings: list[str] = Field(description="The filings compared (`girbo:<ИНН>:<year>`)")


class DossierOut(BaseModel):
    """An organisation's current documents (oldest report first) and their disagreements;
    `cross_form` holds findings between different forms, kept apart from disagreements."""

    key: str
    inn: str | None
    name: str | None
    by_name: bool
    documents: list[DossierDocumentOut]
    disagreements: list[DisagreementOut]
    cross_form: list[CrossFormOut]
    official: OfficialOut


def disagreement_out(disagreement: Disagreement) -> DisagreementOut:
    return DisagreementOut.model_validate(disagreement.as_json())


def _dossier_out(dossier: Dossier) -> DossierOut:
    return DossierOut(
        key=dossier.key,
        inn=dossier.inn,
        name=dossier.name,
        by_name=dossier.by_name,
        documents=[DossierDocumentOut.model_validate(d.as_json()) for d in dossier.documents],
        disagreements=[disagreement_out(d) for d in dossier.disagreements],
        cross_form=[CrossFormOut.model_validate(f.as_json()) for f in dossier.cross_form],
        official=OfficialOut.model_validate(
            {"state": dossier.official.state, "filings": list(dossier.official.filings)}
        ),
    )


router = APIRouter(tags=["dossier"], dependencies=READ)


@router.get("/organizations", response_model=OrganizationList, responses=LIST_PROBLEMS)
async def list_organizations(deps: Deps) -> OrganizationList:
    """Every organisation with current documents, the latest report first."""
    async with deps.sessions() as session:
        found = await organizations(session, deps.official)
    return OrganizationList(items=[OrganizationOut.model_validate(o.as_json()) for o in found])


@router.get(
    "/organizations/{key}/dossier",
    response_model=DossierOut,
    responses=problem_responses(*ID_PROBLEMS),
)
async def organization_dossier(deps: Deps, key: str) -> DossierOut:
    """An organisation's documents and the figures on which they disagree."""
    async with deps.sessions() as session:
        dossier = await dossier_of(session, key, deps.official)
    if dossier is None:
        raise NotFound("organization", key)
    return _dossier_out(dossier)
