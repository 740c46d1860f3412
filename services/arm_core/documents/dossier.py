"""A borrower's dossier: the current documents of one organisation, held against each other.

The core only gathers: which documents are current (the latest result of each stored file),
whose they are (the ИНН of the corrected header; the organisation's name where no ИНН was read,
flagged as such) and their figures with every correction applied. The comparison itself is the
rule of `arm_statements.agreement`, where the official filing's figures (the `OfficialFilings`
seam, `official.py`) join the documents' own. Computed on each read from what is stored, so a new
document, a correction or a deleted file changes the dossier at once.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import re
import uuid
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import ColumnElement, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased, selectinload

from services.arm_core.db.documents import Document, OsvRow, StatementLine
from services.arm_core.db.models import Correction, CorrectionKind, JobStatus, RecognitionJob
from services.arm_core.documents.corrections import (
    CorrectedDocument,
    apply_corrections,
    as_statement,
    load_corrected,
)
from services.arm_core.documents.official import (
    OFF,
    Official,
    OfficialFilings,
    in_documents_signs,
    official_of,
)
from services.arm_core.documents.read import DocumentBody, normalised_document, osv_row_json
from services.arm_core.documents.review import review_of
from services.arm_core.documents.store import is_osv
from services.arm_statements.agreement import Disagreement, Source, disagreements, figures_of
from services.arm_statements.cross_form import CrossFinding, osv_findings, profit_movements
from services.contract.models.result_v2_dicts import OsvRow as OsvRowBody

__all__ = [
    "Dossier",
    "DossierDocument",
    "Organization",
    "current_documents",
    "dossier_of",
    "dossier_of_document",
    "organizations",
]

_RESULTS = (JobStatus.DONE.value, JobStatus.NEEDS_CHECK.value)
_SPACES = re.compile(r"\s+")
_QUOTES = re.compile(r"[«»\"'“”„]")


@dataclass(frozen=True, slots=True)
class DossierDocument:
    """One current document as the dossier lists it (its corrected header)."""

    id: uuid.UUID
    file_id: uuid.UUID
    document_type: str
    form_variant: str | None
    report_date: dt.date | None
    status: str | None
    review_state: str
    inn: str | None
    organization_name: str | None
    corrected: DocumentBody = field(repr=False, compare=False)

    def as_json(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "file_id": str(self.file_id),
            "document_type": self.document_type,
            "form_variant": self.form_variant,
            "report_date": self.report_date.isoformat() if self.report_date else None,
            "status": self.status,
            "review_state": self.review_state,
        }


@dataclass(frozen=True, slots=True)
class Dossier:
    """The documents of one organisation and where their figures disagree."""

    key: str
    inn: str | None
    name: str | None
    documents: tuple[DossierDocument, ...]
    disagreements: tuple[Disagreement, ...]
    cross_form: tuple[CrossFinding, ...] = ()
    official: Official = OFF

    @property
    def by_name(self) -> bool:
        """Grouped by the organisation's name: no document of it has an ИНН."""
        return self.inn is None

    @property
    def last_report_date(self) -> dt.date | None:
        dates = [d.report_date for d in self.documents if d.report_date is not None]
        return max(dates) if dates else None

    def touching(self, document_id: uuid.UUID) -> list[Disagreement]:
        """The disagreements one document takes part in."""
        wanted = str(document_id)
        return [
            d for d in self.disagreements if any(f.source.document_id == wanted for f in d.figures)
        ]


@dataclass(frozen=True, slots=True)
class Organization:
    """A line of the organisations list."""

    key: str
    inn: str | None
    name: str | None
    document_count: int
    last_report_date: dt.date | None
    open_disagreements: int

    def as_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "inn": self.inn,
            "name": self.name,
            "by_name": self.inn is None,
            "document_count": self.document_count,
            "last_report_date": self.last_report_date.isoformat()
            if self.last_report_date
            else None,
            "open_disagreements": self.open_disagreements,
        }


def _name_key(name: str) -> str:
    """An organisation's name folded for grouping: case, quotes and spacing do not matter."""
    return _SPACES.sub(" ", _QUOTES.sub(" ", name)).strip().casefold()


def _date(value: object) -> dt.date | None:
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            return None
    return None


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _listed(document: Document, corrected: CorrectedDocument[DocumentBody]) -> DossierDocument:
    body = corrected.document
    header = body.get("header") or {}
    report_date = _date(header.get("report_date")) or _date(header.get("period_end"))
    return DossierDocument(
        id=document.id,
        file_id=document.file_id,
        document_type=document.document_type,
        form_variant=document.form_variant,
        report_date=report_date,
        status=body.get("status"),
        review_state=review_of(corrected).state,
        inn=_str(header.get("inn")),
        organization_name=_str(header.get("organization_name")),
        corrected=body,
    )


def _may_belong_to(inn: str) -> ColumnElement[bool]:
    """Documents that may end in the dossier of `inn`: recognised with it, without any ИНН
    (they join by name), or with a corrected header (a correction may have given it)."""
    recognised_inn = Document.header["inn"].as_string()
    corrected_headers = select(Correction.document_id).where(
        Correction.kind == CorrectionKind.HEADER.value
    )
    return or_(recognised_inn == inn, recognised_inn.is_(None), Document.id.in_(corrected_headers))


async def current_documents(
    session: AsyncSession, *, inn: str | None = None
) -> list[DossierDocument]:
    """Every document of the latest result of each stored file, corrections applied (ОСВ
    documents without their rows: the dossier needs their headers only); with `inn`, only
    those that may belong to its dossier."""
    other = aliased(RecognitionJob)
    latest = (
        select(func.max(other.attempt))
        .where(other.file_id == RecognitionJob.file_id, other.status.in_(_RESULTS))
        .correlate(RecognitionJob)
        .scalar_subquery()
    )
    current_jobs = select(RecognitionJob.id).where(
        RecognitionJob.status.in_(_RESULTS), RecognitionJob.attempt == latest
    )
    documents = (
        await session.scalars(
            select(Document)
            .where(Document.job_id.in_(current_jobs), *([_may_belong_to(inn)] if inn else []))
            .order_by(Document.created_at, Document.id)
            .options(
                selectinload(Document.columns),
                selectinload(Document.lines).selectinload(StatementLine.values),
                selectinload(Document.issues),
            )
        )
    ).all()
    corrections: dict[uuid.UUID, list[Correction]] = defaultdict(list)
    if documents:
        rows = await session.scalars(
            select(Correction)
            .where(Correction.document_id.in_([d.id for d in documents]))
            .order_by(Correction.id)
        )
        for correction in rows:
            corrections[correction.document_id].append(correction)
    return [
        _listed(d, apply_corrections(normalised_document(d), corrections[d.id])) for d in documents
    ]


def _groups(documents: Sequence[DossierDocument]) -> dict[str, list[DossierDocument]]:
    """Documents by ИНН; a document without one joins the ИНН group of the same name, or a
    group of its own name (`name:<folded name>`); nameless documents belong to no dossier."""
    groups: dict[str, list[DossierDocument]] = defaultdict(list)
    inn_of_name: dict[str, str] = {}
    for document in documents:
        if document.inn is not None:
            groups[document.inn].append(document)
            if document.organization_name:
                inn_of_name.setdefault(_name_key(document.organization_name), document.inn)
    for document in documents:
        if document.inn is None and document.organization_name:
            folded = _name_key(document.organization_name)
            groups[inn_of_name.get(folded, f"name:{folded}")].append(document)
    return groups


def _dossier(
    key: str,
    documents: Sequence[DossierDocument],
    osv_rows: Mapping[uuid.UUID, list[OsvRowBody]] | None = None,
    official: Official = OFF,
) -> Dossier:
    """The dossier of one group; with `osv_rows` (the ОСВ documents' rows) also its findings
    across forms; `official`'s figures join the documents' in the disagreements."""
    inn = None if key.startswith("name:") else key
    names = [d.organization_name for d in documents if d.organization_name]
    figures = [
        figure
        for d in documents
        if not is_osv(d.document_type)
        for figure in figures_of(Source(str(d.id)), d.corrected)
    ]
    cross: list[CrossFinding] = []
    if osv_rows is not None:
        cross.extend(profit_movements(figures))
        for d in documents:
            if is_osv(d.document_type):
                osv = {**d.corrected, "rows": osv_rows.get(d.id, [])}
                cross.extend(osv_findings(str(d.id), osv, figures))
    ordered = sorted(documents, key=lambda d: (d.report_date or dt.date.min, str(d.id)))
    return Dossier(
        key,
        inn,
        names[0] if names else None,
        tuple(ordered),
        tuple(disagreements([*figures, *in_documents_signs(official, figures)])),
        tuple(cross),
        official,
    )


def _report_year(document: DossierDocument) -> int | None:
    """A statement's report year: its report date's, else its latest printed column date's."""
    if document.report_date is not None:
        return document.report_date.year
    statement = as_statement(document.corrected)
    columns = (statement.get("columns") or []) if statement is not None else []
    dates = [_date(c.get("period_date")) for c in columns]
    years = [d.year for d in dates if d is not None]
    return max(years) if years else None


def _report_years(documents: Sequence[DossierDocument]) -> set[int]:
    """The report years of a group's statements (what the official filings are asked for)."""
    years = (_report_year(d) for d in documents if not is_osv(d.document_type))
    return {y for y in years if y is not None}


async def _official(
    filings: OfficialFilings | None, key: str, documents: Sequence[DossierDocument]
) -> Official:
    inn = None if key.startswith("name:") else key
    return await official_of(filings, inn, _report_years(documents))


async def _account_rows(
    session: AsyncSession, documents: Sequence[DossierDocument]
) -> dict[uuid.UUID, list[OsvRowBody]]:
    """The account and subaccount rows of the ОСВ documents among `documents` (what the
    findings across forms read; a counterparty's rows are not needed)."""
    ids = [d.id for d in documents if is_osv(d.document_type)]
    rows: dict[uuid.UUID, list[OsvRowBody]] = {i: [] for i in ids}
    if ids:
        found = await session.scalars(
            select(OsvRow)
            .where(OsvRow.document_id.in_(ids), OsvRow.kind.in_(("account", "subaccount")))
            .order_by(OsvRow.document_id, OsvRow.position)
        )
        for row in found:
            rows[row.document_id].append(osv_row_json(row))
    return rows


async def organizations(
    session: AsyncSession, filings: OfficialFilings | None = None
) -> list[Organization]:
    """Every organisation with current documents, the latest report first (its official
    figures, from `filings`, asked for all organisations at once)."""
    listed = []
    groups = _groups(await current_documents(session))
    officials = await asyncio.gather(*(_official(filings, k, d) for k, d in groups.items()))
    for (key, documents), official in zip(groups.items(), officials, strict=True):
        dossier = _dossier(key, documents, official=official)
        listed.append(
            Organization(
                key,
                dossier.inn,
                dossier.name,
                len(dossier.documents),
                dossier.last_report_date,
                len(dossier.disagreements),
            )
        )
    return sorted(listed, key=lambda o: (o.last_report_date or dt.date.min, o.key), reverse=True)


async def dossier_of(
    session: AsyncSession, key: str, filings: OfficialFilings | None = None
) -> Dossier | None:
    """The dossier of an ИНН (or of a `name:` key from the organisations list), held against
    the official filing when `filings` is given; None if no current document belongs to it."""
    inn = None if key.startswith("name:") else key
    groups = _groups(await current_documents(session, inn=inn))
    documents = groups.get(key)
    if not documents:
        return None
    rows = await _account_rows(session, documents)
    return _dossier(key, documents, rows, await _official(filings, key, documents))


async def dossier_of_document(
    session: AsyncSession, document_id: uuid.UUID, filings: OfficialFilings | None = None
) -> Dossier | None:
    """The dossier a document belongs to, if any (with the official figures of `filings`)."""
    own = await load_corrected(session, document_id)
    inn = _str((own[1].document.get("header") or {}).get("inn")) if own is not None else None
    for key, documents in _groups(await current_documents(session, inn=inn)).items():
        if any(d.id == document_id for d in documents):
            return _dossier(key, documents, official=await _official(filings, key, documents))
    return None
