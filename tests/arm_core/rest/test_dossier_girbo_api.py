"""The dossier held against the official filing: a fake ГИР БО API on loopback at
OPENBAO__GIRBO__GIRBO_URL serves the company's filing; a statement that prints what was filed
agrees, one figure changed is a disagreement with source `girbo`, a failing service leaves the
dossier without official figures and says so."""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.app import CoreApp
from services.devstack._official import official_filing
from services.devstack._samples import BALANCE, INCOME, ORG_INN
from services.girbo import FakeGirboServer
from tests.arm_core._borrower import balance_xlsx, income_xlsx, json_of, upload
from tests.arm_core._girbo import girbo_api_settings, girbo_fixture  # noqa: F401  (fixtures)

pytestmark = pytest.mark.db

FILING = f"girbo:{ORG_INN}:2024"


async def test_statements_that_print_the_filed_figures_agree_with_it(
    app: CoreApp,
    client: httpx.AsyncClient,
    sessions: async_sessionmaker[AsyncSession],
    girbo: FakeGirboServer,
) -> None:
    """The balance and ОФР of 2024 print what ГИР БО holds (its expenses positive, the forms'
    in brackets; its figures in thousands like the forms): compared, nothing disagrees."""
    girbo.fake.serve([official_filing(2024)])
    await upload(
        app,
        client,
        sessions,
        [("balance-2024.xlsx", balance_xlsx(2024, BALANCE)), ("ofr-2024.xlsx", income_xlsx(2024))],
    )
    dossier = await json_of(client, f"/api/v1/organizations/{ORG_INN}/dossier")
    assert dossier["official"] == {"state": "compared", "filings": [FILING]}
    assert dossier["disagreements"] == []


async def test_a_figure_that_differs_from_the_filing_is_a_girbo_disagreement(
    app: CoreApp,
    client: httpx.AsyncClient,
    sessions: async_sessionmaker[AsyncSession],
    girbo: FakeGirboServer,
) -> None:
    """ГИР БО says 1250 = 6 200 and 2120 = 118 000 for 2024 where the statements print 6 140
    and (118 450): two disagreements, each naming the document and the filing."""
    girbo.fake.serve([official_filing(2024, changes={"1250": 6200, "2120": 118000})])
    balance, income = await upload(
        app,
        client,
        sessions,
        [("balance-2024.xlsx", balance_xlsx(2024, BALANCE)), ("ofr-2024.xlsx", income_xlsx(2024))],
    )
    listed = await json_of(client, "/api/v1/organizations")
    assert {o["inn"]: o["open_disagreements"] for o in listed["items"]} == {ORG_INN: 2}

    dossier = await json_of(client, f"/api/v1/organizations/{ORG_INN}/dossier")
    found = {(d["line_code"], d["period_date"]): d for d in dossier["disagreements"]}
    assert set(found) == {("1250", "2024-12-31"), ("2120", "2024-12-31")}
    cash = found[("1250", "2024-12-31")]
    assert sorted((d["source"], d["document_id"], d["amount"]) for d in cash["documents"]) == [
        ("document", str(balance.document_id), "6140"),
        ("girbo", FILING, "6200"),
    ]
    assert (cash["difference"], cash["units"]) == ("60", "тыс. руб.")
    cost = found[("2120", "2024-12-31")]
    assert sorted((d["source"], d["amount"]) for d in cost["documents"]) == [
        ("document", "-118450"),
        ("girbo", "-118000"),
    ]

    corrected = await json_of(client, f"/api/v1/documents/{income.document_id}/corrected")
    assert [(d["line_code"], d["period_date"]) for d in corrected["disagreements"]] == [
        ("2120", "2024-12-31")
    ]


async def test_expenses_printed_without_brackets_agree_with_the_filing(
    app: CoreApp,
    client: httpx.AsyncClient,
    sessions: async_sessionmaker[AsyncSession],
    girbo: FakeGirboServer,
) -> None:
    """An ОФР that prints its expenses as plain numbers (118 450, not (118 450)) presents the
    filed figures all the same: nothing disagrees (ГИР БО's deductions take the documents'
    sign)."""
    plain = [
        (code, name, tuple(a.strip("()") if isinstance(a, str) else a for a in amounts))
        if code != "2410"  # a tax income or a tax expense: its sign means something
        else (code, name, amounts)
        for code, name, amounts in INCOME
    ]
    girbo.fake.serve([official_filing(2024)])
    await upload(app, client, sessions, [("ofr-2024.xlsx", income_xlsx(2024, plain))])
    dossier = await json_of(client, f"/api/v1/organizations/{ORG_INN}/dossier")
    assert dossier["official"]["state"] == "compared"
    assert dossier["disagreements"] == []


async def test_a_failing_service_leaves_the_dossier_without_official_figures(
    app: CoreApp,
    client: httpx.AsyncClient,
    sessions: async_sessionmaker[AsyncSession],
    girbo: FakeGirboServer,
) -> None:
    """ГИР БО answers 503: the statements were recognised all the same, the dossier answers
    with its own disagreements only (none here) and says the service was unavailable."""
    girbo.fake.serve([official_filing(2024, changes={"1250": 6200})])
    girbo.fake.status = 503
    (balance,) = await upload(
        app, client, sessions, [("balance-2024.xlsx", balance_xlsx(2024, BALANCE))]
    )
    dossier = await json_of(client, f"/api/v1/organizations/{ORG_INN}/dossier")
    assert dossier["official"] == {"state": "unavailable", "filings": []}
    assert dossier["disagreements"] == []
    assert [d["id"] for d in dossier["documents"]] == [str(balance.document_id)]
    assert girbo.fake.requests  # it was asked


async def test_an_organisation_unknown_to_girbo_is_not_found(
    app: CoreApp,
    client: httpx.AsyncClient,
    sessions: async_sessionmaker[AsyncSession],
    girbo: FakeGirboServer,
) -> None:
    girbo.fake.serve([official_filing(2024, inn="7707083893")])
    await upload(app, client, sessions, [("balance-2024.xlsx", balance_xlsx(2024, BALANCE))])
    dossier = await json_of(client, f"/api/v1/organizations/{ORG_INN}/dossier")
    assert dossier["official"] == {"state": "not_found", "filings": []}
    assert dossier["disagreements"] == []
