"""JobBacklog on its own: arrival order, the bound on waiting items, and shutdown."""

from __future__ import annotations

import asyncio

import pytest

from services.runtime.backlog import JobBacklog


class Work:
    """Records start order; each item waits for its own gate (or a shared one)."""

    def __init__(self) -> None:
        self.started: list[int] = []
        self.finished: list[int] = []
        self.gates: dict[int, asyncio.Event] = {}

    def gate(self, item: int) -> asyncio.Event:
        return self.gates.setdefault(item, asyncio.Event())

    async def __call__(self, item: int) -> None:
        self.started.append(item)
        await self.gate(item).wait()
        self.finished.append(item)


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_items_start_in_arrival_order_on_at_most_workers_tasks() -> None:
    """Two workers, five items: two start at once, each next one starts when a slot frees,
    first in first out."""
    work = Work()
    backlog: JobBacklog[int] = JobBacklog(work, workers=2, limit=10)
    backlog.start()
    for item in range(5):
        backlog.submit(item)
    await _settle()
    assert work.started == [0, 1]
    assert (backlog.busy, backlog.waiting) == (2, 3)
    work.gate(1).set()
    await _settle()
    assert work.started == [0, 1, 2]
    for item in range(5):
        work.gate(item).set()
    await asyncio.wait_for(backlog.finished(0), 5)
    assert work.started == [0, 1, 2, 3, 4]
    assert (backlog.busy, backlog.waiting) == (0, 0)
    assert await backlog.close(1.0) == []


async def test_full_counts_waiting_items_only_and_submit_beyond_it_is_refused() -> None:
    """`limit` bounds the waiting items (the running ones are bounded by the workers)."""
    work = Work()
    backlog: JobBacklog[int] = JobBacklog(work, workers=1, limit=2)
    backlog.start()
    backlog.submit(0)
    await _settle()
    backlog.submit(1)
    assert not backlog.full()
    backlog.submit(2)
    assert backlog.full()
    with pytest.raises(RuntimeError):
        backlog.submit(3)
    for item in range(3):
        work.gate(item).set()
    await asyncio.wait_for(backlog.finished(0), 5)
    assert not backlog.full()
    await backlog.close(1.0)


async def test_a_failing_item_does_not_kill_its_worker() -> None:
    """`run` raising is logged; the worker takes the next item."""
    seen: list[int] = []

    async def run(item: int) -> None:
        seen.append(item)
        if item == 0:
            raise ValueError("boom")

    backlog: JobBacklog[int] = JobBacklog(run, workers=1, limit=5)
    backlog.start()
    backlog.submit(0)
    backlog.submit(1)
    await asyncio.wait_for(backlog.finished(0), 5)
    assert seen == [0, 1]
    await backlog.close(1.0)


async def test_close_drains_within_the_grace_then_returns_what_did_not_finish() -> None:
    """At shutdown nothing new is taken, the workers go on for the grace period (taking waiting
    items too), and what is still running or waiting then comes back, oldest first."""
    work = Work()
    backlog: JobBacklog[int] = JobBacklog(work, workers=1, limit=10)
    backlog.start()
    for item in range(4):
        backlog.submit(item)
    work.gate(0).set()
    work.gate(1).set()
    left = await backlog.close(0.3)
    assert work.finished == [0, 1]
    assert left == [2, 3]
    assert backlog.full()
    await asyncio.wait_for(backlog.finished(0), 1)
