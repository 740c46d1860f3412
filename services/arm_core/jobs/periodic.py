"""A background loop that runs one pass, then sleeps until its interval or a wake-up.

The relay and the sweeper are such loops. A pass that raises is logged and the loop goes on:
a database or NATS outage must not kill the core's clock. SQLite's «database is locked» is a
warning without a traceback: the next pass retries it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from services.arm_core.db.engine import is_database_locked

__all__ = ["PeriodicTask"]


class PeriodicTask:
    """Runs `step()` every `interval` seconds (sooner after `wake()`), from `start()` to `stop()`."""

    def __init__(
        self,
        name: str,
        step: Callable[[], Awaitable[object]],
        interval: float,
        *,
        logger: logging.Logger,
    ) -> None:
        self.name = name
        self._step = step
        self._interval = interval
        self._logger = logger
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @property
    def running(self) -> bool:
        """True between `start()` and `stop()`."""
        return self._task is not None and not self._task.done()

    def wake(self) -> None:
        """Run the next pass now instead of at the end of the interval."""
        self._wake.set()

    def start(self) -> None:
        """Start the loop in the running event loop (idempotent)."""
        if not self.running:
            self._task = asyncio.create_task(self._run(), name=self.name)

    async def stop(self) -> None:
        """Cancel the loop and wait for it; a pass in flight is cancelled with it."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            try:
                await self._step()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if is_database_locked(exc):
                    self._logger.warning(
                        "%s: the database is locked by another writer; retrying in %.1fs",
                        self.name,
                        self._interval,
                    )
                else:
                    self._logger.exception(
                        "%s: pass failed; retrying in %.1fs", self.name, self._interval
                    )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=self._interval)
