"""The jobs a recognition service has acked and not yet finished, run in arrival order.

Spec 001 wants the ack «немедленно», whatever is in work; a worker process, though, recognises
one file at a time. So the intake acks and submits, and `JobBacklog` runs the submitted jobs on
`workers` tasks (JOBS_IN_FLIGHT), first in first out. A waiting job holds only its small request
(the protocol reads the S3 object when a worker takes it), and at most `limit` (BACKLOG_MAX) of
them wait: the intake asks `full()` and answers a request beyond it at once instead of queueing
it (docs/decisions/0010-ack-on-arrival-bounded-backlog.md).

At shutdown `close` lets the workers go on for the graceful timeout, then cancels what still
runs and hands back every item that did not finish, for the service to name in its log.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

__all__ = ["JobBacklog"]

T = TypeVar("T")

_log = logging.getLogger(__name__)


class JobBacklog(Generic[T]):
    """Items waiting for one of `workers` slots; `run(item)` does the work and must not raise."""

    def __init__(
        self,
        run: Callable[[T], Awaitable[None]],
        *,
        workers: int,
        limit: int,
        logger: logging.Logger | None = None,
    ) -> None:
        if workers < 1 or limit < 0:
            msg = "workers must be >= 1 and limit >= 0"
            raise ValueError(msg)
        self._run = run
        self._workers = workers
        self._limit = limit
        self._log = logger or _log
        self._waiting: deque[tuple[int, T]] = deque()
        self._running: dict[int, T] = {}
        self._done: dict[int, asyncio.Event] = {}
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._closing = False
        self.submitted = 0
        """How many items were ever submitted: the sequence number of the next one."""

    @property
    def waiting(self) -> int:
        """Items submitted and not taken by a worker yet."""
        return len(self._waiting)

    @property
    def busy(self) -> int:
        """Items a worker is running now."""
        return len(self._running)

    @property
    def limit(self) -> int:
        return self._limit

    def full(self) -> bool:
        """True when a new item would exceed `limit` waiting ones (or the backlog is closing)."""
        return self._closing or len(self._waiting) >= self._limit

    def submit(self, item: T) -> None:
        """Queue `item` behind the others; the caller checked `full()` first."""
        if self.full():
            msg = "the backlog is full or closing"
            raise RuntimeError(msg)
        seq = self.submitted
        self.submitted += 1
        self._done[seq] = asyncio.Event()
        self._waiting.append((seq, item))
        self._wake.set()

    async def finished(self, since: int) -> None:
        """Until every item numbered `since` or later that was submitted so far has finished."""
        for seq in [s for s in self._done if s >= since]:
            event = self._done.get(seq)
            if event is not None:
                await event.wait()

    def start(self) -> None:
        """Start the worker tasks (in the running event loop)."""
        if self._tasks:
            return
        self._tasks = [
            asyncio.create_task(self._worker(), name=f"backlog-worker-{n}")
            for n in range(self._workers)
        ]

    async def close(self, grace_seconds: float) -> list[T]:
        """Take nothing new; let the workers drain for `grace_seconds`, then cancel them.

        Returns the items that did not finish (running when cancelled, or never taken), oldest
        first.
        """
        self._closing = True
        self._wake.set()
        tasks, self._tasks = self._tasks, []
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=grace_seconds)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        left = sorted(self._running.items()) + list(self._waiting)
        self._running.clear()
        self._waiting.clear()
        for seq, _ in left:
            self._finish(seq)
        return [item for _, item in left]

    async def _worker(self) -> None:
        while True:
            if not self._waiting:
                if self._closing:
                    return
                self._wake.clear()
                await self._wake.wait()
                continue
            seq, item = self._waiting.popleft()
            self._running[seq] = item
            try:
                await self._run(item)
            except Exception:  # `run` must not raise; a worker must never die of one item
                self._log.exception("a backlog item failed unexpectedly")
            # Cancelled (at shutdown): the item stays in `_running` for `close` to report.
            del self._running[seq]
            self._finish(seq)

    def _finish(self, seq: int) -> None:
        event = self._done.pop(seq, None)
        if event is not None:
            event.set()
