"""Headless Chromium for the browser tests and `make screenshots`: the machine's own package.

A browser download at install time is not possible here, so Playwright drives the Debian
`chromium` (`apt-get install chromium`); `CHROMIUM` moves it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from playwright.async_api import Browser, async_playwright

__all__ = ["chromium_path", "launch"]


def chromium_path() -> str | None:
    """The Chromium executable, or None when it is not installed."""
    wanted = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    if os.path.exists(wanted):
        return wanted
    return shutil.which("chromium") or shutil.which("chromium-browser")


@asynccontextmanager
async def launch() -> AsyncIterator[Browser]:
    """A headless Chromium (no sandbox: CI runs as root in a container)."""
    path = chromium_path()
    if path is None:
        msg = "chromium is not installed (apt-get install chromium)"
        raise RuntimeError(msg)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=path, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            yield browser
        finally:
            await browser.close()
