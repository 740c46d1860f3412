"""The files page answers "what needs me" in a real browser against the whole local stack:
each document's type, form, organisation, ИНН, date, doubts, failed checks and review state as
columns; what needs attention first and filterable; a reviewed document visibly different."""

from __future__ import annotations

import re
import uuid

import httpx
import pytest
from playwright.async_api import FilePayload, Locator, Page, expect

from services.devstack import LocalStack
from services.devstack._samples import ORG_INN, ORG_NAME, income_sheet
from tests.arm_core.web._doubtful import doubtful_income_xlsx
from tests.builders import write_xlsx

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.browser]


async def _upload(page: Page, name: str, data: bytes, status: str) -> Locator:
    payload: FilePayload = {"name": name, "mimeType": "application/octet-stream", "buffer": data}
    await page.set_input_files("#upload-input", files=[payload])
    row = page.locator("#files-table tr", has_text=name)
    await expect(row.locator("[data-status]")).to_have_attribute("data-status", status)
    return row


async def _background(row: Locator) -> str:
    color: str = await row.locator("td").last.evaluate("td => getComputedStyle(td).backgroundColor")
    return color


async def test_the_files_page_puts_what_needs_the_analyst_first_and_marks_reviewed_ones(
    page: Page, stack: LocalStack
) -> None:
    await page.goto("/ui/files")
    tag = uuid.uuid4().hex[:6]
    doubtful, clean = f"ofr-doubt-{tag}.xlsx", f"ofr-clean-{tag}.xlsx"
    await _upload(page, doubtful, doubtful_income_xlsx(), "needs_check")
    await _upload(page, clean, write_xlsx([income_sheet()]), "done")

    await page.goto("/ui/files")
    rows = page.locator("#files-table tbody tr")
    names = await rows.locator("td:first-child a").all_inner_texts()
    assert names.index(doubtful) < names.index(clean), names  # attention first, though older

    row = page.locator("#files-table tr", has_text=doubtful)
    await expect(row).to_have_attribute("data-attention", "yes")
    await expect(row).to_have_attribute("data-review", "not_reviewed")
    for text in ("ОФР (полная)", ORG_NAME, ORG_INN, "31.12.2024", "требует внимания"):
        await expect(row).to_contain_text(text)
    await expect(row.locator("[data-doubts]")).to_have_text("1")
    failed = await row.locator("[data-failed-checks]").get_attribute("data-failed-checks")
    assert failed is not None and int(failed) >= 1
    fine = page.locator("#files-table tr", has_text=clean)
    await expect(fine).to_have_attribute("data-attention", "no")
    await expect(fine.locator("[data-doubts]")).to_have_text("0")
    await expect(fine).to_contain_text("не проверен")

    await page.locator("#attention-filter").select_option("yes")
    await expect(page.locator("#files-table tr", has_text=clean)).to_have_count(0)
    await expect(page.locator("#files-table tr", has_text=doubtful)).to_be_visible()

    document_id = await row.get_attribute("data-document-id")
    async with httpx.AsyncClient(base_url=stack.core_url) as http:
        url = f"/api/v1/documents/{document_id}/corrections"
        marked = await http.post(url, json={"kind": "reviewed", "confirm_doubts": 1})
        assert marked.status_code == 201, marked.text
    await page.locator("#attention-filter").select_option("")
    reviewed = page.locator("#files-table tr", has_text=doubtful)
    await expect(reviewed).to_have_attribute("data-review", "reviewed")
    await expect(reviewed).to_have_class(re.compile(r"\breviewed\b"))
    await expect(reviewed).to_contain_text("✓ проверен")
    assert await _background(reviewed) != await _background(fine)  # visibly different
    await page.locator("#attention-filter").select_option("yes")
    await expect(page.locator("#files-table tr", has_text=doubtful)).to_have_count(0)
