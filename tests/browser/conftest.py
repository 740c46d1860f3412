"""Fixtures of the browser tests: the local stack on a fresh database, a headless Chromium.

Real nats-server, moto S3, arm-core, tabular-parser and scan-gateway as processes (the e2e
helpers); skipped, with the reason, only when the machine has no Chromium.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page

from services.devstack import LocalStack
from tests.browser._browser import chromium_path, launch
from tests.e2e._system import fresh_database, stack_env, start_stack, stop_stack


@pytest.fixture(scope="module")
async def browser_db(
    database_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[str]:
    """A migrated database of the module's own."""
    async with fresh_database(database_url, tmp_path_factory.mktemp("browser-db")) as url:
        yield url


@pytest.fixture(scope="module")
async def stack(
    browser_db: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[LocalStack]:
    """The whole system on loopback, on the module's database."""
    if chromium_path() is None:
        pytest.skip(
            "chromium is not installed (apt-get install chromium); the browser tests need it"
        )
    data_dir: Path = tmp_path_factory.mktemp("browser-stack")
    local = LocalStack(data_dir=data_dir, extra_env=stack_env(browser_db))
    await start_stack(local)
    try:
        yield local
    finally:
        await stop_stack(local)


@pytest.fixture(scope="module")
async def browser() -> AsyncIterator[Browser]:
    """A headless Chromium of the machine's packages."""
    if chromium_path() is None:
        pytest.skip(
            "chromium is not installed (apt-get install chromium); the browser tests need it"
        )
    async with launch() as running:
        yield running


PAGE_WAIT_MS = 60_000


@pytest.fixture
async def page(browser: Browser, stack: LocalStack) -> AsyncIterator[Page]:
    """A fresh browser context on the stack (downloads accepted), waiting up to a minute."""
    context = await browser.new_context(accept_downloads=True, base_url=stack.core_url)
    page = await context.new_page()
    page.set_default_timeout(PAGE_WAIT_MS)
    try:
        yield page
    finally:
        await context.close()
