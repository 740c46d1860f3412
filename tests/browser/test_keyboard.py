"""The verification station by keyboard, in a real headless Chromium against the real system.

`n` / `p` walk the doubts of the whole document (a header field, then a value), the opened
value is selected so typing replaces it and Enter saves it, Esc leaves the input; only doubts
are Tab stops; the review mark with a doubt left asks with the number; an ОСВ lists its
failed control sums and `n` walks them across pages of rows.
"""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from dataclasses import replace

import httpx
import pytest
from playwright.async_api import Page, expect

from services.devstack import LocalStack
from services.devstack._samples import INCOME, INCOME_LABELS, ORG_INN, statement_sheet
from tests.arm_core.web._doubtful import DOUBTFUL_CODE, DOUBTFUL_TEXT, RIGHT_AMOUNT, SHEET
from tests.arm_core.web._osv import counterparty, paged_osv_xlsx
from tests.builders import write_xlsx

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.browser]

WAIT_MS = 60_000
BAD_INN = "7728168972"  # the printed ИНН with a wrong check digit: the field is in doubt
DOUBTFUL = "#v-1-3"  # 2120, the current year


def _two_doubts_xlsx() -> bytes:
    """The ОФР with its 2120 unreadable and its ИНН failing the checksum: two doubts, a
    header field above a value."""
    lines = [
        (code, name, (DOUBTFUL_TEXT, *amounts[1:]) if code == DOUBTFUL_CODE else amounts)
        for code, name, amounts in INCOME
    ]
    sheet = statement_sheet(
        SHEET, SHEET, "за Январь - Декабрь 2024 г.", "0710002", INCOME_LABELS, lines
    )
    rows = [[BAD_INN if value == ORG_INN else value for value in row] for row in sheet.rows]
    return write_xlsx([replace(sheet, rows=rows)])


async def _recognised(stack: LocalStack, name: str, data: bytes) -> str:
    """Upload through the API and wait for the first document: its page's path."""
    deadline = time.monotonic() + WAIT_MS / 1000
    async with httpx.AsyncClient(base_url=stack.core_url) as http:
        upload = (await http.post("/api/v1/files", files={"file": (name, data)})).json()
        file_id = upload["file_id"]
        while time.monotonic() < deadline:
            items = (await http.get(f"/api/v1/files/{file_id}/documents")).json()["items"]
            if items:
                return f"/ui/files/{file_id}/documents/{items[0]['document_id']}"
            await asyncio.sleep(0.3)
    raise AssertionError(f"{name} was not recognised in time")


async def _focused_id(page: Page) -> str:
    return str(await page.evaluate("document.activeElement && document.activeElement.id"))


async def _settled(page: Page) -> None:
    await page.wait_for_function(
        "!document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')"
    )


async def test_n_and_p_walk_the_doubts_and_the_keys_confirm_replace_and_leave(
    page: Page, stack: LocalStack
) -> None:
    """n opens the ИНН (a header field), Esc returns to it, n opens the 2120 value with its
    text selected; typing replaces it and Enter saves it; p goes back to the ИНН, and Enter
    on it unchanged confirms it: nothing is left in doubt."""
    path = await _recognised(stack, f"ofr-{uuid.uuid4().hex[:6]}.xlsx", _two_doubts_xlsx())
    await page.goto(path)
    await expect(page.locator("#grid")).to_have_attribute("role", "grid")
    doubt = page.locator(DOUBTFUL)
    await expect(doubt).to_have_attribute("aria-label", re.compile(r"строка 2120.*нужна проверка"))

    await page.locator("body").press("n")
    await expect(page.locator("#field-input")).to_be_focused()
    await expect(page.locator("#field-input")).to_have_value(BAD_INN)
    await page.keyboard.press("Escape")
    await expect(page.locator("#f-inn")).to_be_focused()

    await page.keyboard.press("n")
    value = page.locator("#value-input")
    await expect(value).to_be_focused()
    selected = await value.evaluate("el => el.value.substring(el.selectionStart, el.selectionEnd)")
    assert selected == await value.input_value() != ""  # all selected: typing replaces it
    await page.keyboard.type(RIGHT_AMOUNT)
    await expect(value).to_have_value(RIGHT_AMOUNT)
    await page.keyboard.press("Enter")
    await expect(page.locator("#checks-ok")).to_be_visible()
    cell = page.locator("td", has=page.locator(DOUBTFUL))
    await expect(cell).to_have_class(re.compile(r"\bcorrected\b"))
    await _settled(page)

    await page.locator(DOUBTFUL).focus()
    await page.keyboard.press("p")
    await expect(page.locator("#field-input")).to_be_focused()
    # Enter on the opened field, unchanged, confirms it: no doubt is left.
    await page.keyboard.press("Enter")
    await expect(page.locator("#f-inn")).not_to_have_attribute("data-doubt", "")
    await expect(page.locator("#doc-body [data-doubt]")).to_have_count(0)
    await expect(page.locator("#doc-status")).not_to_contain_text("сомнительных осталось")


async def test_only_doubts_are_tab_stops_and_arrows_reach_the_rest(
    page: Page, stack: LocalStack
) -> None:
    """Tab from the grid's start lands on the doubtful value, never on a clean or empty one;
    the arrow keys still reach the clean neighbours."""
    path = await _recognised(stack, f"ofr-{uuid.uuid4().hex[:6]}.xlsx", _two_doubts_xlsx())
    await page.goto(path)
    clean = page.locator("#grid button.cell:not([data-doubt])")
    assert await clean.count() > 20
    for i in range(await clean.count()):
        await expect(clean.nth(i)).to_have_attribute("tabindex", "-1")
    await page.locator("#next-doubt").focus()
    stops: list[str] = []
    for _ in range(40):
        await page.keyboard.press("Tab")
        focused = await _focused_id(page)
        if focused.startswith(("v-", "c-")):
            stops.append(focused)
    assert set(stops) == {DOUBTFUL.lstrip("#")}, stops
    await page.locator(DOUBTFUL).focus()
    await page.keyboard.press("ArrowUp")
    assert await _focused_id(page) == "v-0-3"
    await page.keyboard.press("ArrowRight")
    assert await _focused_id(page) == "v-0-4"


async def test_marking_reviewed_with_a_doubt_left_asks_with_the_number(
    page: Page, stack: LocalStack
) -> None:
    """Two doubts left: the mark asks «2», Esc dismisses the question, the confirm button
    marks the document reviewed and the page says two were left."""
    path = await _recognised(stack, f"ofr-{uuid.uuid4().hex[:6]}.xlsx", _two_doubts_xlsx())
    await page.goto(path)
    await page.locator("#mark-reviewed").click()
    question = page.locator("#doubts-left")
    await expect(question).to_contain_text("Остались сомнительные значения: 2")
    await expect(page.locator("#cancel-reviewed")).to_be_focused()
    await page.keyboard.press("Escape")
    await expect(question).to_have_count(0)
    await expect(page.locator("#review-state [data-review]")).to_have_attribute(
        "data-review", "recognised"
    )
    await page.locator("#mark-reviewed").click()
    await page.locator("#confirm-reviewed").click()
    await expect(page.locator("#review-state [data-review]")).to_have_attribute(
        "data-review", "reviewed"
    )
    await expect(page.locator("#confirmed-doubts")).to_contain_text("2")


async def test_an_osv_lists_its_failures_and_n_walks_them_across_pages(
    page: Page, stack: LocalStack
) -> None:
    """Three failed control sums listed, the first page's failing rows marked; n goes to the
    first, the second, then the third on the second page of rows, focused; p comes back."""
    path = await _recognised(stack, f"osv-{uuid.uuid4().hex[:6]}.xlsx", paged_osv_xlsx())
    await page.goto(path)
    await expect(page.locator("#osv-check-list li")).to_have_count(3)
    await expect(page.locator("#osv-check-list li").nth(1)).to_contain_text(counterparty(5))
    await expect(page.locator("#osv-row-5")).to_have_class(re.compile("failed-line"))
    for number in (1, 2, 3):
        await page.locator("body").press("n")
        await page.wait_for_url(re.compile(rf"error={number}$"))
        await expect(page.locator("#current-error")).to_contain_text(f"ошибка {number} из 3")
    await expect(page.locator("#row-140")).to_be_focused()
    await expect(page.locator("#osv-rows")).not_to_contain_text(counterparty(5))
    await page.keyboard.press("p")
    await page.wait_for_url(re.compile(r"error=2$"))
    await expect(page.locator("#row-5")).to_be_focused()
    # Only the first row and the failing rows are Tab stops; the arrows reach the others.
    await expect(page.locator("#row-6")).to_have_attribute("tabindex", "-1")
    await page.keyboard.press("ArrowDown")
    await expect(page.locator("#row-6")).to_be_focused()
