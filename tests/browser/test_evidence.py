"""A scan value checked by its evidence, in a real headless Chromium against the real system.

A balance printed in code (a text-layer PDF) is uploaded, scan-gateway recognises it with its
local recogniser and stores the evidence; on the document page the value panel shows the crop
of the page around the chosen value (OCR'd on its own it shows that value's digits), the
whole page with the value's box drawn over it, and zooms and pans; the line's internal ref is
never shown.
"""

from __future__ import annotations

import io
import re
import shutil
import uuid

import httpx
import pytest
from playwright.async_api import FilePayload, Page, expect

from services.devstack import LocalStack
from tests.scan_gateway._forms import BALANCE, font_path, render_pdf

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.slow,
    pytest.mark.browser,
    pytest.mark.skipif(font_path() is None, reason="no DejaVuSans font to render with"),
    pytest.mark.skipif(shutil.which("tesseract") is None, reason="no tesseract"),
]

WAIT_MS = 90_000
TOTAL = "1600"  # БАЛАНС: 12 790 in the current year
TOTAL_LINE = [code for _name, code, *_values in BALANCE.lines].index(TOTAL)


def _ocr_digits(png: bytes) -> str:
    import pytesseract
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        text = pytesseract.image_to_string(image, lang="rus", config="--psm 6")
    return re.sub(r"\D", "", text)


async def test_a_scan_value_is_shown_by_its_crop_and_its_box_on_the_page(
    page: Page, stack: LocalStack
) -> None:
    """Upload → the balance → the total's value: its crop shows 12 790, the box is drawn on
    the page, «+» zooms the page around the box (swapping in its ≥ 200-dpi rendering) and
    dragging pans it; no internal ref."""
    await page.goto("/ui/files")
    name = f"balance-{uuid.uuid4().hex[:6]}.pdf"
    payload: FilePayload = {
        "name": name,
        "mimeType": "application/pdf",
        "buffer": render_pdf((BALANCE,)),
    }
    await page.set_input_files("#upload-input", files=[payload])
    row = page.locator("#files-table tr", has_text=name)
    await expect(row.locator("[data-status]")).to_have_attribute(
        "data-status", re.compile("done|needs_check"), timeout=WAIT_MS
    )
    await row.get_by_role("link", name=name).click()
    await page.locator("#documents a").first.click()
    await expect(page.locator("h1")).to_contain_text("Баланс")

    value = page.locator(f"[id^='v-{TOTAL_LINE}-']").first
    await value.click()
    crop = page.locator("#evidence-crop")
    await expect(crop).to_be_visible()
    await page.wait_for_function(
        "() => { const i = document.getElementById('evidence-crop');"
        " return i && i.complete && i.naturalWidth > 0; }"
    )
    # The crop the analyst sees, OCR'd on its own, shows the value's digits.
    src = await crop.get_attribute("src")
    assert src is not None and src.startswith("/api/v1/documents/")
    async with httpx.AsyncClient(base_url=stack.core_url) as http:
        shown = await http.get(src)
    assert shown.status_code == 200 and shown.headers["x-evidence-page"] == "1"
    assert "12790" in _ocr_digits(shown.content)
    crop_box = await crop.bounding_box()
    assert crop_box is not None and crop_box["width"] > 150  # shown large, not a thumbnail

    # The whole page beside it with the value's box drawn inside the page image.
    sheet = page.locator("#source-page")
    await page.wait_for_function(
        "() => { const i = document.getElementById('source-page');"
        " return i && i.complete && i.naturalWidth > 0; }"
    )
    page_box = await sheet.bounding_box()
    mark = await page.locator("#evidence-box").bounding_box()
    assert page_box is not None and mark is not None
    assert mark["width"] > 0 and mark["height"] > 0
    assert (
        page_box["x"] <= mark["x"]
        and mark["x"] + mark["width"] <= page_box["x"] + page_box["width"] + 1
    )
    assert (
        page_box["y"] <= mark["y"]
        and mark["y"] + mark["height"] <= page_box["y"] + page_box["height"] + 1
    )

    # «+» on the page view zooms in around the box; dragging pans it. Zoomed, the page drawn
    # at the screen's 108 dpi is swapped for its ≥ 200-dpi rendering, so the digits stay sharp.
    screen_width = await sheet.evaluate("i => i.naturalWidth")
    page_view = page.locator(".evidence-view", has=sheet)
    viewport = page_view.locator(".evidence-viewport")
    await page_view.locator("[data-zoom=in]").click()
    await page_view.locator("[data-zoom=in]").click()
    await page.wait_for_function(
        "least => { const i = document.getElementById('source-page');"
        " return i.src.includes('sharp=true') && i.complete && i.naturalWidth >= least; }",
        arg=screen_width * 200 / 108,
    )
    zoomed = await sheet.bounding_box()
    assert zoomed is not None and zoomed["width"] > page_box["width"] * 2
    before = await viewport.evaluate("v => [v.scrollLeft, v.scrollTop]")
    assert before != [0, 0]  # centred on the box
    area = await viewport.bounding_box()
    assert area is not None
    x, y = area["x"] + area["width"] / 2, area["y"] + area["height"] / 2
    await page.mouse.move(x, y)
    await page.mouse.down()
    await page.mouse.move(x - 60, y - 40, steps=5)
    await page.mouse.up()
    after = await viewport.evaluate("v => [v.scrollLeft, v.scrollTop]")
    assert after[0] > before[0] and after[1] >= before[1]
    await page_view.locator("[data-zoom=fit]").click()
    fitted = await sheet.bounding_box()
    assert fitted is not None and abs(fitted["width"] - page_box["width"]) < 2

    # Never an internal ref such as «p1:t0:r9».
    panel = await page.locator("#panel").inner_text()
    assert not re.search(r"p\d+:t\d+", panel), panel
