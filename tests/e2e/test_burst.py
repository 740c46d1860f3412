"""A month-end burst (issue 16): many workbook uploads at once, real processes, default clocks.

One arm-core and one tabular-parser with two worker processes, the core's default
ACK_TIMEOUT_SECONDS (30) and OUTBOX_MAX_REPUBLISH (3), the default reply budget (600 s) and
JOBS_IN_FLIGHT (8). Every request must be acked on arrival, however long the queue of work
behind it: before the ack-on-arrival backlog, a request waited unacked for one of
JOBS_IN_FLIGHT slots, so a burst of more than ~30 s of work made the core republish (and
beyond ~120 s dead-letter healthy jobs with NO_ACK).

BURST = 300 uploads of workbooks taking ~0.3–0.9 s each (the issue's figure): about two minutes
of parsing on two workers, four times ACK_TIMEOUT_SECONDS, so a request held until a slot frees
would be republished and, past ~120 s, dead-lettered. It prints the ack latency the core saw
(published_at → started_at: the relay's batch and commit included) and the one on the wire
(request → ack, seen by a plain subscriber).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import statistics
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from nats.aio.msg import Msg

from services.devstack import LocalStack
from tests.e2e import _files
from tests.e2e._system import (
    Core,
    Wire,
    final_statuses,
    service_log,
    stack_env,
    start_stack,
    stop_stack,
)
from tests.support.nats_wire import round_trip

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

REQUEST_SUBJECT = "files.tabular_uploaded"
RESULT_SUBJECT = "files.tabular_parsed"
BURST = 300
UPLOADS_AT_ONCE = 16  # concurrent POSTs: the burst reaches the parser faster than it parses
# Reference-sheet sizes: ~0.3 to ~0.9 s of parsing each on this kind of machine.
ROWS = (1200, 1800, 2400, 3000)
# The service defaults this test keeps (FAST_ENV shortens them for the fault tests).
DEFAULTS_KEPT = (
    "ACK_TIMEOUT_SECONDS",
    "OUTBOX_MAX_REPUBLISH",
    "TABULAR_REPLY_BUDGET_SECONDS",
    "JOBS_IN_FLIGHT",
)


@pytest.fixture(scope="module")
async def stack(e2e_db: str, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[LocalStack]:
    env = stack_env(e2e_db, PARSE_WORKERS="2")
    for name in DEFAULTS_KEPT:
        env.pop(name, None)
    local = LocalStack(data_dir=tmp_path_factory.mktemp("e2e-burst"), extra_env=env)
    await start_stack(local)
    try:
        yield local
    finally:
        await stop_stack(local)


async def _time_first_copies(wire: Wire, subjects: list[str]) -> dict[str, float]:
    """When the first copy of each Nats-Msg-Id on `subjects` reached the wire recorder."""
    first_seen: dict[str, float] = {}

    async def record(msg: Msg) -> None:
        mid = (msg.headers or {}).get("Nats-Msg-Id")
        if mid is not None:
            first_seen.setdefault(mid, time.monotonic())

    for subject in subjects:
        await wire.client.subscribe(subject, cb=record)
    await round_trip(wire.client)
    return first_seen


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _seconds(job: dict[str, Any], start: str, end: str) -> float:
    return (
        dt.datetime.fromisoformat(job[end]) - dt.datetime.fromisoformat(job[start])
    ).total_seconds()


@pytest.mark.timeout(480)  # ~3 min on a busy two-core machine; the suite's 300 s is too tight
async def test_a_burst_of_uploads_is_acked_at_once_and_every_job_ends_done(
    stack: LocalStack,
) -> None:
    """BURST workbooks uploaded at once: every job ends done (none dlq, timeout or error),
    each request crossed the wire exactly once (no republish), each job was acked once and
    answered once; the ack latency stays far below ACK_TIMEOUT_SECONDS."""
    assert stack.nats is not None
    books = [_files.large_workbook(rows) for rows in ROWS]
    core = Core(stack.core_url)
    wire = await Wire.listen(stack.nats.url, [REQUEST_SUBJECT, RESULT_SUBJECT])
    first_seen = await _time_first_copies(wire, [REQUEST_SUBJECT, RESULT_SUBJECT])
    gate = asyncio.Semaphore(UPLOADS_AT_ONCE)

    async def upload(n: int) -> dict[str, Any]:
        async with gate:
            return await core.upload(f"burst-{n}.xlsx", books[n % len(books)])

    began = time.monotonic()
    try:
        uploads = await asyncio.gather(*(upload(n) for n in range(BURST)))
        uploaded = time.monotonic() - began
        job_ids = [u["job_id"] for u in uploads]
        try:
            jobs = await core.wait_all_final(job_ids, within=360)
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n{service_log(stack, 'tabular-parser')}") from exc
        drained = time.monotonic() - began
        await wire.client.flush()
    finally:
        await wire.close()
        await core.aclose()

    assert final_statuses(jobs) == {"done": BURST}, final_statuses(jobs)
    assert all(job["republish_count"] == 0 for job in jobs.values())
    requests = wire.msg_ids(REQUEST_SUBJECT)
    answers = wire.msg_ids(RESULT_SUBJECT)
    for job_id in job_ids:
        assert requests[f"{job_id}:1"] == 1, (
            f"request of {job_id} published {requests[f'{job_id}:1']}×"
        )
        assert answers[f"ack:{job_id}:1"] == 1
        assert answers[f"result:{job_id}:1"] == 1

    core_acks = [_seconds(job, "published_at", "started_at") for job in jobs.values()]
    wire_acks = [first_seen[f"ack:{job_id}:1"] - first_seen[f"{job_id}:1"] for job_id in job_ids]
    report = (
        f"burst of {BURST}: uploaded in {uploaded:.1f} s, all final in {drained:.1f} s; "
        f"ack seen by the core p50 {statistics.median(core_acks) * 1000:.0f} ms, "
        f"p99 {_percentile(core_acks, 0.99) * 1000:.0f} ms, max {max(core_acks) * 1000:.0f} ms; "
        f"on the wire p50 {statistics.median(wire_acks) * 1000:.1f} ms, "
        f"p99 {_percentile(wire_acks, 0.99) * 1000:.1f} ms"
    )
    print(report)  # the figures the issue asks for (pytest -s, or -rP)
    # Far below ACK_TIMEOUT_SECONDS (30 s), though the last job finished ~a minute in.
    assert _percentile(core_acks, 0.99) < 5.0, report
