"""Waiting for a condition on the wire without timing assertions: poll, fail after a bound."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest


async def eventually(predicate: Callable[[], bool], what: str, *, within: float = 15.0) -> None:
    """Return once `predicate()` holds; fail the test naming `what` after `within` seconds."""
    try:
        async with asyncio.timeout(within):
            while not predicate():  # noqa: ASYNC110 - client state offers no event to await
                await asyncio.sleep(0.02)
    except TimeoutError:
        pytest.fail(f"timed out waiting for {what}")
