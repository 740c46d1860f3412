"""A scan of several pages, in a real Chromium against the local stack: while scan-gateway's
local recogniser reads it, the files list says how many pages are done of how many (issue #25
item 9, decision 0037), and once the document is in, the count is gone."""

from __future__ import annotations

import re
import shutil

import pytest
from playwright.async_api import FilePayload, Page, expect

from services.devstack import LocalStack
from tests.scan_gateway._forms import BALANCE, INCOME, font_path, render_scanned_pdf

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.slow,
    pytest.mark.browser,
    pytest.mark.skipif(shutil.which("tesseract") is None, reason="no tesseract"),
    pytest.mark.skipif(font_path() is None, reason="no DejaVuSans font to render with"),
]


async def test_a_running_scan_shows_its_pages_done_of_its_pages(
    page: Page, stack: LocalStack
) -> None:
    scan: FilePayload = {
        "name": "скан-три-страницы.pdf",
        "mimeType": "application/pdf",
        "buffer": render_scanned_pdf((BALANCE, INCOME, BALANCE), dpi=150),
    }
    await page.goto("/ui/files")
    await page.set_input_files("#upload-input", files=[scan])
    row = page.locator("#files-table tr", has_text="скан-три-страницы.pdf")
    await expect(row).to_contain_text(re.compile(r"готово страниц: [0-3] из 3"), timeout=90_000)
    await expect(row).not_to_contain_text("распознаётся", timeout=180_000)
    await expect(row).not_to_contain_text("готово страниц")
