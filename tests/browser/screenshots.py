"""`make screenshots`: PNGs of the review pages, taken from a real local stack by Chromium.

`python -m tests.browser.screenshots DIR` starts the whole system on loopback (SQLite in a
temporary folder), uploads the ОФР with one unreadable amount, an ОСВ and two balances, and writes
`files.png`, `document.png` (the doubtful value beside its source cells), `osv.png` and
`dossier.png` (two years of one company whose prior-year cash differs).
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

from playwright.async_api import FilePayload, Page, expect

from services.devstack import LocalStack
from services.devstack._samples import BALANCE, ORG_INN
from tests.arm_core._borrower import balance_xlsx, last_year, shifted
from tests.arm_core.web._doubtful import doubtful_income_xlsx
from tests.browser._browser import launch
from tests.e2e._files import osv_xlsx

WAIT_MS = 90_000


async def _upload(page: Page, name: str, data: bytes, status: str = "done") -> None:
    payload: FilePayload = {"name": name, "mimeType": "application/octet-stream", "buffer": data}
    await page.set_input_files("#upload-input", files=[payload])
    row = page.locator("#files-table tr", has_text=name)
    await expect(row.locator("[data-status]")).to_have_attribute(
        "data-status", status, timeout=WAIT_MS
    )


async def _open(page: Page, name: str, kind: str) -> None:
    await page.goto("/ui/files")
    await page.locator("#files-table a", has_text=name).click()
    await page.locator("#documents a", has_text=kind).click()
    await expect(page.locator("h1")).to_contain_text(kind)


async def take(out: Path, core_url: str) -> list[Path]:
    """Take the screenshots against the core at `core_url` into the folder `out`."""
    async with launch() as browser:
        context = await browser.new_context(
            base_url=core_url, viewport={"width": 1600, "height": 900}, locale="ru-RU"
        )
        page = await context.new_page()
        page.set_default_timeout(WAIT_MS)
        await page.goto("/ui/files")
        await _upload(page, "osv-2025.xlsx", osv_xlsx())
        await _upload(page, "ofr-2024.xlsx", doubtful_income_xlsx(), "needs_check")
        written = [out / "files.png"]
        await page.screenshot(path=written[-1], full_page=True)
        await _open(page, "ofr-2024.xlsx", "ОФР")
        await page.locator("#v-1-3").click()
        await expect(page.locator("#source-cells td.hit")).to_be_visible()
        written.append(out / "document.png")
        await page.screenshot(path=written[-1], full_page=True)
        await _open(page, "osv-2025.xlsx", "ОСВ")
        written.append(out / "osv.png")
        await page.screenshot(path=written[-1], full_page=True)
        await page.goto("/ui/files")
        await _upload(page, "balance-2024.xlsx", balance_xlsx(2024, BALANCE))
        wrong_cash = shifted(last_year(), {"1250": (4650, 3870, 3870)})
        await _upload(page, "balance-2023.xlsx", balance_xlsx(2023, wrong_cash), "needs_check")
        await page.goto(f"/ui/organizations/{ORG_INN}")
        await expect(page.locator("#disagreements")).to_be_visible()
        written.append(out / "dossier.png")
        await page.screenshot(path=written[-1], full_page=True)
        await context.close()
    return written


def main(argv: list[str]) -> int:
    out = Path(argv[0] if argv else "docs/images")
    out.mkdir(parents=True, exist_ok=True)
    with (
        tempfile.TemporaryDirectory(prefix="arm-ka-screens-") as tmp,
        LocalStack(data_dir=Path(tmp)) as stack,
    ):
        for path in asyncio.run(take(out, stack.core_url)):
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
