"""An ОСВ's failed control sums on its page: listed with the rows they concern, the rows
marked, «следующая ошибка» walking them across pages of rows."""

from __future__ import annotations

import re
from typing import cast

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.app import CoreApp
from services.arm_core.web.osv import OsvCheck, RowLabel, error_steps, osv_checks
from services.contract.models.result_v2_dicts import OsvChecks
from tests.arm_core.web._osv import counterparty, paged_osv_xlsx
from tests.arm_core.web._recognition import Recognised, upload_and_recognize


@pytest.fixture
async def osv(
    app: CoreApp, client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession]
) -> Recognised:
    return await upload_and_recognize(app, client, sessions, "osv.xlsx", paged_osv_xlsx())


def _items(page: str) -> list[str]:
    listing = re.search(r'<ol id="osv-check-list">(.*?)</ol>', page, re.S)
    assert listing is not None, "no list of failed checks"
    return re.findall(r"<li[^>]*>(.*?)</li>", listing.group(1), re.S)


@pytest.mark.db
async def test_failed_checks_are_listed_and_their_rows_marked(
    client: httpx.AsyncClient, osv: Recognised
) -> None:
    """Three failures listed in row order with the row's account or counterparty and the
    sums; on the first page the rows of the first two are marked, the third's is not there."""
    page = (await client.get(osv.page)).text
    items = _items(page)
    assert len(items) == 3
    assert "62.01" in items[0] and "Сумма подчинённых строк" in items[0]
    assert counterparty(5) in items[1] and "ожидалось 120, фактически 125" in items[1]
    assert counterparty(140) in items[2]
    assert re.search(r'<tr id="osv-row-0" class="failed-line" data-error="1"', page)
    assert re.search(r'<tr id="osv-row-5" class="failed-line" data-error="2"', page)
    assert not re.search(r'<tr id="osv-row-6" class="failed-line"', page)
    assert 'id="osv-row-140"' not in page
    assert re.search(r'id="next-error" href="[^"]*\?error=1"', page)
    assert 'id="prev-error"' not in page


@pytest.mark.db
async def test_next_error_goes_to_the_page_of_its_row(
    client: httpx.AsyncClient, osv: Recognised
) -> None:
    """`?error=3` shows the second page of rows with row 140 marked and focused; its steps
    lead back to error 2 and nowhere further."""
    page = (await client.get(f"{osv.page}?error=3")).text
    assert "101–152 из 152" in page
    assert re.search(r'<tr id="osv-row-140" class="failed-line" data-error="3"', page)
    assert re.search(r'id="row-140"[^>]*autofocus', page)
    assert "ошибка 3 из 3" in page
    assert re.search(r'id="prev-error" href="[^"]*\?error=2"', page)
    assert 'id="next-error"' not in page
    second = (await client.get(f"{osv.page}?offset=100")).text
    assert re.search(r'id="prev-error" href="[^"]*\?error=2"', second)
    assert re.search(r'id="next-error" href="[^"]*\?error=3"', second)


def test_a_failure_whose_row_is_unknown_comes_last_and_steps_still_reach_it() -> None:
    """A failure naming a ref no row has is listed last, without a row, and is reachable."""
    rows = [RowLabel("A1", "01", None), RowLabel("A2", "02", None)]
    failed = [
        {"check": "TOTAL_SUM", "ref": "Z9", "column": "closing_debit"},
        {"check": "ROW_BALANCE", "ref": "A2", "column": "closing_balance"},
    ]
    checks = osv_checks(cast(OsvChecks, {"failed": failed}), rows)
    assert [(c.check, c.row, c.number) for c in checks] == [
        ("ROW_BALANCE", 1, 1),
        ("TOTAL_SUM", None, 2),
    ]
    last: OsvCheck = checks[1]
    assert error_steps(checks, last, 0) == (1, None)
    assert error_steps(checks, None, 100) == (1, 2)
