"""The borrower's page held against the official filing: a value that differs from ГИР БО is
listed with the filing beside the document's value, and the page says it was compared."""

from __future__ import annotations

import re

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.app import CoreApp
from services.devstack._official import official_filing
from services.devstack._samples import BALANCE, ORG_INN
from services.girbo import FakeGirboServer
from tests.arm_core._borrower import balance_xlsx, upload
from tests.arm_core._girbo import girbo_api_settings, girbo_fixture  # noqa: F401  (fixtures)

pytestmark = pytest.mark.db


async def test_the_page_shows_the_official_figure_beside_the_documents(
    app: CoreApp,
    client: httpx.AsyncClient,
    sessions: async_sessionmaker[AsyncSession],
    girbo: FakeGirboServer,
) -> None:
    girbo.fake.serve([official_filing(2024, changes={"1250": 6200})])
    (balance,) = await upload(app, client, sessions, [("b.xlsx", balance_xlsx(2024, BALANCE))])
    page = await client.get(f"/ui/organizations/{ORG_INN}")
    assert page.status_code == 200
    assert 'id="official" data-state="compared"' in page.text
    table = page.text.split('id="disagreements"', 1)[1].split("</table>", 1)[0]
    links = re.findall(r'class="value-link" href="([^"]+)"', table)
    assert [link.split("#")[0] for link in links] == [balance.page]
    official = re.findall(r'<span class="official"[^>]*>([^<]+)</span>', table)
    assert official == ["6\u202f200 тыс. руб. — ГИР БО, отчётность за 2024 г."]
    listing = await client.get("/ui/organizations")
    assert 'data-disagreements="1"' in listing.text
