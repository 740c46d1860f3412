"""An analyst's session in a real headless Chromium against the real system.

Upload → live status → open the document → the highlighted doubtful value → its source cell →
correct it by keyboard → the check result changes → the XLSX download equals the corrected
document. And the bad inputs: an unsupported upload, a correction that is not an amount, a
document under another file's id.
"""

from __future__ import annotations

import io
import re
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import openpyxl
import pytest
from playwright.async_api import FilePayload, Page, expect

from services.arm_core.documents.export import TABLE_HEADING
from services.devstack import LocalStack
from tests.arm_core.web._doubtful import (
    DOUBTFUL_TEXT,
    RIGHT_AMOUNT,
    RIGHT_VALUE,
    doubtful_income_xlsx,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.browser]

DOUBTFUL = "#v-1-3"  # line 2120, the current year's column
WAIT_MS = 60_000


async def _upload(page: Page, name: str, data: bytes, mime: str) -> None:
    payload: FilePayload = {"name": name, "mimeType": mime, "buffer": data}
    await page.set_input_files("#upload-input", files=[payload])


async def _tab_to(page: Page, selector: str, limit: int = 400) -> None:
    """Press Tab until `selector` has the focus: proves the tab order reaches it."""
    target = page.locator(selector)
    for _ in range(limit):
        if await target.evaluate("el => el === document.activeElement"):
            return
        await page.keyboard.press("Tab")
    msg = f"{selector} not reached by {limit} presses of Tab"
    raise AssertionError(msg)


async def _corrected(stack: LocalStack, document_id: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=stack.core_url) as http:
        response = await http.get(f"/api/v1/documents/{document_id}/corrected")
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body


async def test_an_analyst_goes_from_upload_to_a_corrected_export(
    page: Page, stack: LocalStack, tmp_path: Path
) -> None:
    """The whole review of a workbook with keyboard and mouse, each step asserted."""
    await page.goto("/ui/files")
    await page.evaluate("window.__sameLoad = true")
    name = f"ofr-{uuid.uuid4().hex[:6]}.xlsx"
    await _upload(page, name, doubtful_income_xlsx(), "application/octet-stream")
    await expect(page.locator("#upload-message")).to_contain_text("загружен")

    # Live status: the row reaches needs_check while the page is never reloaded.
    row = page.locator("#files-table tr", has_text=name)
    await expect(row.locator("[data-status]")).to_have_attribute(
        "data-status", "needs_check", timeout=WAIT_MS
    )
    assert await page.evaluate("window.__sameLoad === true"), "the page was reloaded"
    await expect(row).to_contain_text("нужна проверка")

    # The filter and the polling ask the page's own URL for its table: htmx gets the table
    # alone (one table, one upload form: no page swapped into the page).
    await page.locator("#status-filter").select_option("needs_check")
    await expect(page.locator("#files-table tr", has_text=name)).to_be_visible()
    await expect(page.locator("#files-table")).to_have_attribute(
        "hx-get", re.compile(r"^/ui/files\?status=needs_check&")
    )
    await expect(page.locator("#files-table")).to_have_count(1)
    await expect(page.locator("#upload-form")).to_have_count(1)

    await row.get_by_role("link", name=name).click()
    await page.locator("#documents a", has_text="ОФР").click()
    await expect(page.locator("h1")).to_contain_text("ОФР")
    document_id = page.url.rstrip("/").rsplit("/", 1)[-1]

    # The doubtful value is marked, the failed relation is listed, its line flagged.
    cell = page.locator("td", has=page.locator(DOUBTFUL))
    await expect(cell).to_have_class(re.compile(r"\breview\b"))
    await expect(cell).to_have_class(re.compile(r"\bin-failed\b"))
    await expect(page.locator("#checks")).to_contain_text("2100=2110+2115-2120")
    await expect(page.locator("#line-1")).to_have_class(re.compile("failed-line"))

    # Keyboard only: Tab reaches the value, Enter opens its source, the input has the focus.
    await page.locator("body").focus()
    await _tab_to(page, DOUBTFUL)
    await page.keyboard.press("Enter")
    hit = page.locator("#source-cells td.hit")
    await expect(hit).to_have_text(DOUBTFUL_TEXT)
    await expect(page.locator("#value-input")).to_be_focused()

    # A correction that is not an amount is refused with the reason; nothing changes.
    await page.keyboard.press("Control+A")
    await page.keyboard.type("сто")
    await page.keyboard.press("Enter")
    await expect(page.locator("#panel-message")).to_contain_text("не сумма")
    await expect(page.locator("#checks")).to_contain_text("2100=2110+2115-2120")

    # The right amount, typed and confirmed with Enter: the relation holds again.
    await page.locator("#value-input").fill(RIGHT_AMOUNT)
    await page.keyboard.press("Enter")
    await expect(page.locator("#checks-ok")).to_be_visible()
    await expect(page.locator("#panel-content")).to_contain_text("Сохранено")
    await expect(cell).to_have_class(re.compile(r"\bcorrected\b"))
    await expect(page.locator(DOUBTFUL)).to_have_text("−118\u202f450")
    # Nothing doubtful is left: the corrected document is done, not yet reviewed.
    await expect(page.locator("#doc-status [data-status]")).to_have_attribute("data-status", "done")
    await expect(page.locator("#review-state [data-review]")).to_have_attribute(
        "data-review", "corrected"
    )

    # Enter on an unchanged value confirms it (once htmx has settled the swap: its autofocus
    # of the next doubtful value would otherwise take the focus back after ours).
    await _settled(page)
    await page.locator("#v-0-3").focus()
    await expect(page.locator("#v-0-3")).to_be_focused()
    await page.keyboard.press("Enter")
    await expect(page.locator("#value-input")).to_be_focused()
    await page.keyboard.press("Enter")
    await expect(page.locator("#corrections")).to_contain_text("подтверждена сумма: 2110 Выручка")

    body = await _corrected(stack, document_id)
    assert [c["kind"] for c in body["corrections"]] == ["value", "confirm"]
    assert body["corrections"][0]["new_value"] == RIGHT_VALUE
    assert body["document"]["checks"]["relations_failed"] == []

    # Mark reviewed, then the XLSX download equals the corrected document.
    await page.locator("#mark-reviewed").click()
    await expect(page.locator("#review-state")).to_contain_text("Проверен")
    await expect(page.locator("#review-state [data-review]")).to_have_attribute(
        "data-review", "reviewed"
    )
    async with page.expect_download() as info:
        await page.locator("#export-xlsx").click()
    download = await info.value
    saved = tmp_path / "export.xlsx"
    await download.save_as(saved)
    sheet, checks, _warnings = openpyxl.load_workbook(io.BytesIO(saved.read_bytes())).worksheets
    document = (await _corrected(stack, document_id))["document"]
    columns = sorted(c["column_index"] for c in document["columns"])
    start = next(r for r in range(1, 30) if sheet.cell(r, 1).value == TABLE_HEADING)
    assert sheet.max_row == start + len(document["lines"])
    for row_number, line in enumerate(document["lines"], start=start + 1):
        assert sheet.cell(row_number, 1).value == line["line_code"]
        assert sheet.cell(row_number, 2).value == line["line_name"]
        amounts = {v["column_index"]: v["amount"] for v in line["values"]}
        for offset, column in enumerate(columns):
            amount = amounts.get(column)
            got = sheet.cell(row_number, 4 + offset).value
            assert got == (None if amount is None else float(amount)), (line["line_code"], column)
    assert checks.max_row == 1  # only the heading: no failed check is left


async def test_an_unsupported_upload_shows_a_readable_message(page: Page) -> None:
    """A text file dropped on the page: a Russian sentence, no trace, nothing listed."""
    await page.goto("/ui/files")
    name = f"notes-{uuid.uuid4().hex[:6]}.txt"
    transfer = await page.evaluate_handle(
        """name => {
            const transfer = new DataTransfer();
            transfer.items.add(new File(["just text"], name, { type: "text/plain" }));
            return transfer;
        }""",
        name,
    )
    await page.dispatch_event("#drop-zone", "drop", {"dataTransfer": transfer})
    message = page.locator("#upload-message .message.error")
    await expect(message).to_contain_text("Такой файл не распознаётся")
    assert "Traceback" not in await page.content()
    await expect(page.locator("#files-table")).not_to_contain_text(name)


async def test_a_document_of_another_file_is_a_404_page(page: Page, stack: LocalStack) -> None:
    """A document opened under a file id that is not its own: the 404 page."""
    deadline = time.monotonic() + 60
    async with httpx.AsyncClient(base_url=stack.core_url) as http:
        upload = (
            await http.post("/api/v1/files", files={"file": ("a.xlsx", doubtful_income_xlsx())})
        ).json()
        while time.monotonic() < deadline:
            listing = (await http.get(f"/api/v1/files/{upload['file_id']}/documents")).json()
            if listing["items"]:
                break
            await page.wait_for_timeout(200)
        document_id = listing["items"][0]["document_id"]
    response = await page.goto(f"/ui/files/{uuid.uuid4()}/documents/{document_id}")
    assert response is not None
    assert response.status == 404
    await expect(page.locator("p.message.error")).to_contain_text("не найден")


async def _settled(page: Page) -> None:
    """Wait until no htmx request, swap or settle is in progress on the page."""
    await page.wait_for_function(
        "!document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')"
    )
