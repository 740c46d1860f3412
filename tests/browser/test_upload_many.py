"""Several files picked in one go, and the same bytes again, in a real Chromium: each file gets
its own line, and the repeat names the earlier file and links to it."""

from __future__ import annotations

import pytest
from playwright.async_api import FilePayload, Page, expect

from services.devstack import LocalStack
from tests.arm_core.web._doubtful import doubtful_income_xlsx
from tests.e2e._files import osv_xlsx

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.browser]

_XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def _file(name: str, data: bytes) -> FilePayload:
    return {"name": name, "mimeType": _XLSX, "buffer": data}


async def test_several_files_at_once_and_a_repeat_named(page: Page, stack: LocalStack) -> None:
    await page.goto("/ui/files")
    osv = osv_xlsx()
    await page.set_input_files(
        "#upload-input",
        files=[_file("osv-a.xlsx", osv), _file("ofr-a.xlsx", doubtful_income_xlsx())],
    )
    message = page.locator("#upload-message")
    await expect(message).to_contain_text("«osv-a.xlsx» загружен")
    await expect(message).to_contain_text("«ofr-a.xlsx» загружен")
    await expect(page.locator("#files-table tr", has_text="osv-a.xlsx")).to_have_count(1)
    await expect(page.locator("#files-table tr", has_text="ofr-a.xlsx")).to_have_count(1)

    await page.set_input_files("#upload-input", files=[_file("osv-b.xlsx", osv)])
    repeat = message.locator(".duplicate")
    await expect(repeat).to_contain_text("Такой же файл уже загружен")
    await expect(repeat.locator("a")).to_have_text("«osv-a.xlsx»")
    await repeat.locator("a").click()
    await expect(page.locator("h1")).to_contain_text("osv-a.xlsx")
