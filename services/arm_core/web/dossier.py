"""The dossier pages: the organisations, and one borrower's documents held against each other."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from services.arm_core.documents.dossier import Dossier, dossier_of, organizations
from services.arm_core.rest.deps import Deps, Reader
from services.arm_core.web.not_found import PageNotFound
from services.arm_core.web.render import UI_PREFIX, render

__all__ = ["router"]

router = APIRouter(include_in_schema=False)

_ROLES = {
    "balance": "баланс",
    "balance_previous": "баланс (предыдущий год)",
    "income": "ОФР",
    "osv": "ОСВ",
}


def _value_links(dossier: Dossier) -> dict[str, str]:
    """Each document's page, by document id."""
    return {str(d.id): f"{UI_PREFIX}/files/{d.file_id}/documents/{d.id}" for d in dossier.documents}


def _by_period(dossier: Dossier) -> list[tuple[str, list[Any]]]:
    """The documents grouped by report date, the latest period first."""
    periods: dict[str, list[Any]] = {}
    for document in reversed(dossier.documents):
        label = document.report_date.strftime("%d.%m.%Y") if document.report_date else "без даты"
        periods.setdefault(label, []).append(document)
    return list(periods.items())


@router.get(f"{UI_PREFIX}/organizations", response_class=HTMLResponse)
async def organizations_page(request: Request, deps: Deps, _who: Reader) -> HTMLResponse:
    async with deps.sessions() as session:
        found = await organizations(session, deps.official)
    return render(request, "organizations.html", organizations=found)


@router.get(f"{UI_PREFIX}/organizations/{{key}}", response_class=HTMLResponse)
async def dossier_page(request: Request, deps: Deps, _who: Reader, key: str) -> HTMLResponse:
    async with deps.sessions() as session:
        dossier = await dossier_of(session, key, deps.official)
    if dossier is None:
        raise PageNotFound("организация")
    return render(
        request,
        "dossier.html",
        dossier=dossier,
        periods=_by_period(dossier),
        links=_value_links(dossier),
        roles=_ROLES,
        disagreements=[d.as_json() for d in dossier.disagreements],
        cross_form=[f.as_json() for f in dossier.cross_form],
    )
