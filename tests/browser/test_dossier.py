"""A borrower's dossier in a real Chromium: two years of one company, a prior-year figure
changed; the analyst finds the organisation, sees the disagreement and follows a value's link
to its place on the document's page."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from playwright.async_api import Page, expect

from services.devstack import LocalStack
from services.devstack._samples import BALANCE, ORG_INN
from tests.arm_core._borrower import balance_xlsx, last_year, shifted

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.browser]


async def _recognised(http: httpx.AsyncClient, name: str, data: bytes) -> str:
    """Upload through the API and wait for the file's documents; the file id."""
    response = await http.post("/api/v1/files", files={"file": (name, data)})
    assert response.status_code == 201, response.text
    file_id: str = response.json()["file_id"]
    for _ in range(240):
        documents = await http.get(f"/api/v1/files/{file_id}/documents")
        if documents.status_code == 200 and documents.json()["items"]:
            return file_id
        await asyncio.sleep(0.25)
    raise AssertionError(f"{name} was not recognised in a minute")


async def test_the_analyst_follows_a_disagreement_to_the_value(
    page: Page, stack: LocalStack
) -> None:
    wrong_cash = shifted(last_year(), {"1250": (4650, 3870, 3870)})
    async with httpx.AsyncClient(base_url=stack.core_url, timeout=30) as http:
        await _recognised(http, "b-2024.xlsx", balance_xlsx(2024, BALANCE))
        earlier = await _recognised(http, "b-2023.xlsx", balance_xlsx(2023, wrong_cash))

    await page.goto("/ui/organizations")
    await page.click(f'a[href="/ui/organizations/{ORG_INN}"]')
    rows = page.locator("#disagreements tbody tr")
    await expect(rows).to_have_count(1)
    await expect(rows.first).to_contain_text("1250")
    link = rows.first.locator(f'a.value-link[href*="/ui/files/{earlier}/"]')
    await expect(link).to_contain_text("4\u202f650")
    anchor = (await link.get_attribute("href") or "").split("#")[1]
    await link.click()
    value = page.locator(f"#{anchor}")
    await expect(value).to_be_visible()
    await expect(value).to_have_text("4\u202f650")
