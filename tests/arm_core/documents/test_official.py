"""The official figures beside the documents': which filings are asked for, a deduction
printed without brackets by every document is the same figure, a line whose sign means
something keeps the filing's sign."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal
from typing import cast

from services.arm_core.documents.dossier import DossierDocument, _report_years
from services.arm_core.documents.official import OFF, Official, in_documents_signs, official_of
from services.arm_statements.agreement import Figure, Source, disagreements
from services.contract.models.result_v2_dicts import StatementDocument

END = dt.date(2024, 12, 31)
FILING = Source("girbo:7707083893:2024", "girbo")
DEDUCTIONS = frozenset({"2120", "2411"})


def _figure(source: Source, code: str, amount: int) -> Figure:
    return Figure(source, code, END, Decimal(amount), "тыс. руб.")


def _official(*figures: Figure) -> Official:
    return Official("compared", (FILING.document_id,), figures, DEDUCTIONS)


def test_a_deduction_printed_plain_by_every_document_agrees_with_the_filing() -> None:
    plain = [_figure(Source("a"), "2120", 118450), _figure(Source("b"), "2120", 118450)]
    official = in_documents_signs(_official(_figure(FILING, "2120", -118450)), plain)
    assert [f.amount for f in official] == [118450]
    assert disagreements([*plain, *official]) == []


def test_a_deduction_in_brackets_or_mixed_keeps_the_printed_sign() -> None:
    bracketed = [_figure(Source("a"), "2120", -118450)]
    mixed = [*bracketed, _figure(Source("b"), "2120", 118450)]
    for documents in (bracketed, mixed):
        (official,) = in_documents_signs(_official(_figure(FILING, "2120", -118450)), documents)
        assert official.amount == -118450


def test_a_signed_line_keeps_the_filings_sign() -> None:
    """A loss of 500 in the filing against 500 printed plain is a real difference."""
    documents = [_figure(Source("a"), "1370", 500)]
    (official,) = in_documents_signs(_official(_figure(FILING, "1370", -500)), documents)
    assert official.amount == -500
    (found,) = disagreements([*documents, official])
    assert found.line_code == "1370"


async def test_without_a_source_the_comparison_is_off() -> None:
    assert await official_of(None, "7707083893", {2024}) == OFF


def _document(report_date: dt.date | None, columns: list[dict[str, object]]) -> DossierDocument:
    return DossierDocument(
        id=uuid.uuid4(),
        file_id=uuid.uuid4(),
        document_type="BALANCE",
        form_variant="full",
        report_date=report_date,
        status="done",
        review_state="recognised",
        inn="7707083893",
        organization_name=None,
        corrected=cast(StatementDocument, {"columns": columns}),
    )


def test_the_filings_asked_for_are_of_the_statements_report_years() -> None:
    """The report date's year; without one, the latest printed column's (a statement whose
    header date was not read is still held against its filing)."""
    dated = _document(END, [])
    undated = _document(None, [{"period_date": "2022-12-31"}, {"period_date": "2021-12-31"}])
    blank = _document(None, [{"period_date": None}])
    assert _report_years([dated, undated, blank]) == {2024, 2022}
