"""The dossier pages: organisations listed with their open disagreements, a borrower's page
linking each disputed value to its place on both documents' pages."""

from __future__ import annotations

import re

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.app import CoreApp
from services.devstack._samples import BALANCE, ORG_INN
from tests.arm_core._borrower import balance_xlsx, last_year, shifted, upload

pytestmark = pytest.mark.db


async def test_the_dossier_page_links_both_values_of_a_disagreement(
    app: CoreApp, client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession]
) -> None:
    wrong_cash = shifted(last_year(), {"1250": (4650, 3870, 3870)})
    this, last = await upload(
        app,
        client,
        sessions,
        [
            ("b-2024.xlsx", balance_xlsx(2024, BALANCE)),
            ("b-2023.xlsx", balance_xlsx(2023, wrong_cash)),
        ],
    )
    listing = await client.get("/ui/organizations")
    assert listing.status_code == 200
    assert f'href="/ui/organizations/{ORG_INN}"' in listing.text
    assert 'data-disagreements="1"' in listing.text

    page = await client.get(f"/ui/organizations/{ORG_INN}")
    assert page.status_code == 200
    table = page.text.split('id="disagreements"', 1)[1].split("</table>", 1)[0]
    links = re.findall(r'class="value-link" href="([^"]+)"', table)
    assert len(links) == 2
    for recognised in (this, last):
        assert any(link.startswith(recognised.page + "#v-") for link in links), links
    # each link's anchor is a value button on that document's page
    for link in links:
        path, anchor = link.split("#")
        document_page = await client.get(path)
        assert f'id="{anchor}"' in document_page.text
    assert "4\u202f150" in table and "4\u202f650" in table


async def test_an_unknown_organisation_page_is_404(client: httpx.AsyncClient) -> None:
    page = await client.get("/ui/organizations/7700000000")
    assert page.status_code == 404
    assert "организация" in page.text
