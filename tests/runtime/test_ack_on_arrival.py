"""Ack on arrival, work in arrival order (issue 16): the tabular-parser app under TestNatsBroker
on the real moto S3, with a gated stub recogniser and JOBS_IN_FLIGHT = 1, so that what waits
in the service's backlog is in plain view.

Spec 001: a valid request is acked «немедленно», whatever is in work; a job whose reply_deadline
passed while it waited is answered TIMEOUT without its object being read; beyond BACKLOG_MAX a
request is still acked and answered TIMEOUT at once (never left unacked: no NO_ACK).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import gc
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest

from services.runtime.recognizer import ErrorCode
from services.runtime.settings import S3Settings
from services.runtime.storage import S3Storage
from services.tabular_parser.app import create_app
from services.tabular_parser.settings import TabularParserSettings
from tests.support.recognition_service import (
    RecordingStorage,
    ServiceHarness,
    ack_id,
    result_id,
    serving,
)
from tests.tabular_parser.wire._support import StubRecognizer, request_body, tabular_settings

WAIT = 10.0
LATE_SECONDS = 2.0  # the reply_deadline of a job that is to expire while it waits

Run = Callable[..., Any]


@dataclass(kw_only=True)
class Harness(ServiceHarness[TabularParserSettings]):
    _arrived: asyncio.Event = field(default_factory=asyncio.Event)

    async def new_request(self, **overrides: Any) -> dict[str, Any]:
        key = f"uploads/{uuid.uuid4()}/book.xlsx"
        await self.s3.put_bytes(self.bucket, key, b"PK\x03\x04 stand-in")
        return request_body(self.bucket, key, **overrides)

    def body_of(self, msg_id: str) -> dict[str, Any]:
        return next(body for mid, body in self.published if mid == msg_id)

    async def receive(self, msg_id: str, body: dict[str, Any]) -> None:
        await super().receive(msg_id, body)
        self._arrived.set()

    async def until(self, done: Callable[[], bool]) -> None:
        """Until `done()` holds, checked after each message the service publishes."""
        async with asyncio.timeout(WAIT):
            while not done():
                self._arrived.clear()
                await self._arrived.wait()


@pytest.fixture
def run_app(s3_settings: S3Settings, bucket: str) -> Run:
    """`async with run_app(recognizer, **settings) as h:` — the parser started in memory."""

    @asynccontextmanager
    async def run(recognizer: StubRecognizer, **overrides: Any) -> AsyncIterator[Harness]:
        settings = tabular_settings(s3_settings, **overrides)
        async with S3Storage(s3_settings) as s3:
            harness = Harness(
                settings=settings,
                request_subject=settings.nats.nats_tabular_request_subject,
                s3=s3,
                bucket=bucket,
            )
            app = create_app(settings, recognizer, storage=RecordingStorage(s3, harness.events))
            async with serving(app, harness):
                yield harness

    return run


def _in(seconds: float) -> str:
    return (dt.datetime.now(dt.UTC) + dt.timedelta(seconds=seconds)).isoformat()


async def test_requests_behind_a_busy_worker_are_acked_at_once_and_run_in_arrival_order(
    run_app: Run,
) -> None:
    """JOBS_IN_FLIGHT = 1, the first file stuck in recognition: four more requests are all
    acked before any result, none is read from S3 yet, and once the worker is free they are
    recognised and answered in the order they arrived."""
    gate = asyncio.Event()
    recognizer = StubRecognizer(gate=gate)
    async with run_app(recognizer, jobs_in_flight=1) as h:
        requests = [await h.new_request() for _ in range(5)]
        await h.send(requests[0], wait=False)
        await asyncio.wait_for(recognizer.wait_for_calls(1), WAIT)
        for request in requests[1:]:
            await h.send(request, wait=False)
        assert h.ids() == [ack_id(r) for r in requests]
        assert h.events.kinds("s3.get") == [requests[0]["s3"]["key"]]
        assert h.backlog is not None and h.backlog.waiting == 4

        gate.set()
        await h.until(lambda: len(h.published) == 10)
        assert h.ids()[5:] == [result_id(r) for r in requests]
        assert [job.job_id for _, job in recognizer.calls] == [
            uuid.UUID(r["job_id"]) for r in requests
        ]
        assert h.events.kinds("s3.get") == [r["s3"]["key"] for r in requests]
        assert all(h.body_of(result_id(r))["status"] == "done" for r in requests)


async def test_a_job_whose_deadline_passed_while_it_waited_is_answered_timeout_unread(
    run_app: Run,
) -> None:
    """A request acked behind a busy worker whose reply_deadline passes before a worker is
    free: TIMEOUT as soon as it is its turn, its object never read, the recogniser never
    called for it; the job behind it is recognised as usual."""
    gate = asyncio.Event()
    recognizer = StubRecognizer(gate=gate)
    async with run_app(recognizer, jobs_in_flight=1) as h:
        busy, late, after = [await h.new_request() for _ in range(3)]
        await h.send(busy, wait=False)
        await asyncio.wait_for(recognizer.wait_for_calls(1), WAIT)
        late["reply_deadline"] = _in(LATE_SECONDS)  # ahead on arrival, even on a slow machine
        passes = asyncio.get_running_loop().time() + LATE_SECONDS
        await h.send(late, wait=False)
        await h.send(after, wait=False)
        assert h.ids() == [ack_id(busy), ack_id(late), ack_id(after)]
        await asyncio.sleep(passes - asyncio.get_running_loop().time() + 0.2)  # still waiting

        gate.set()
        await h.until(lambda: len(h.published) == 6)
        assert h.ids()[3:] == [result_id(busy), result_id(late), result_id(after)]
        answer = h.body_of(result_id(late))
        assert answer["status"] == "error"
        assert answer["error"]["code"] == ErrorCode.TIMEOUT.value
        assert "reply_deadline" in answer["error"]["message"]
        assert "result_s3" not in answer
        assert late["s3"]["key"] not in h.events.kinds("s3.get")
        assert uuid.UUID(late["job_id"]) not in [job.job_id for _, job in recognizer.calls]
        assert h.body_of(result_id(after))["status"] == "done"


async def test_a_request_past_its_deadline_on_arrival_is_answered_at_once_not_queued(
    run_app: Run,
) -> None:
    """Every worker busy: a valid request whose reply_deadline has already passed gets its ack
    and TIMEOUT right away, not after the jobs ahead of it, and its object is not read."""
    gate = asyncio.Event()
    recognizer = StubRecognizer(gate=gate)
    async with run_app(recognizer, jobs_in_flight=1) as h:
        busy = await h.new_request()
        expired = await h.new_request(reply_deadline="2001-01-01T00:00:00Z")
        await h.send(busy, wait=False)
        await asyncio.wait_for(recognizer.wait_for_calls(1), WAIT)
        await h.send(expired, wait=False)
        assert h.ids() == [ack_id(busy), ack_id(expired), result_id(expired)]
        assert h.body_of(result_id(expired))["error"]["code"] == ErrorCode.TIMEOUT.value
        assert h.events.kinds("s3.get") == [busy["s3"]["key"]]
        gate.set()


async def test_beyond_backlog_max_a_request_is_acked_and_answered_timeout_at_once(
    run_app: Run,
) -> None:
    """BACKLOG_MAX = 2, one job running and two waiting: the next valid request is acked (the
    core never dead-letters it with NO_ACK) and answered TIMEOUT at once, naming BACKLOG_MAX;
    a repeat of it is acked again only, and the waiting jobs still finish."""
    gate = asyncio.Event()
    recognizer = StubRecognizer(gate=gate)
    async with run_app(recognizer, jobs_in_flight=1, backlog_max=2) as h:
        running, *waiting = [await h.new_request() for _ in range(3)]
        extra = await h.new_request()
        await h.send(running, wait=False)
        await asyncio.wait_for(recognizer.wait_for_calls(1), WAIT)
        for request in waiting:
            await h.send(request, wait=False)
        await h.send(extra, wait=False)
        assert h.ids()[-2:] == [ack_id(extra), result_id(extra)]
        answer = h.body_of(result_id(extra))
        assert answer["error"]["code"] == ErrorCode.TIMEOUT.value
        assert "BACKLOG_MAX" in answer["error"]["message"]
        assert extra["s3"]["key"] not in h.events.kinds("s3.get")

        await h.send(extra, wait=False)
        assert h.ids()[-1] == ack_id(extra)
        gate.set()
        await h.until(lambda: len(h.published) == 3 * 2 + 3)
        assert all(h.body_of(result_id(r))["status"] == "done" for r in [running, *waiting])
        assert len(recognizer.calls) == 3


async def test_a_request_reaches_the_protocol_with_its_headers_and_no_worker_thread(
    run_app: Run, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The handler takes the request's Nats-Msg-Id from the message (a request dropped for
    its job_id is logged under it) without FastStream handing anything to a worker thread
    (`anyio.to_thread.run_sync`, a thread hop before every ack, issue 29); a valid request is
    acked as before. The only hops left are the test's own result subscriber's (it takes a
    `msg: NatsMessage`): one per message it received."""
    import anyio.to_thread

    hops: list[object] = []
    real = anyio.to_thread.run_sync

    async def counted(func: Any, *args: Any, **kwargs: Any) -> Any:
        hops.append(func)
        return await real(func, *args, **kwargs)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counted)
    async with run_app(StubRecognizer()) as h:
        request = await h.new_request()
        await h.send(request)
        broken = {**await h.new_request(), "job_id": "not-a-uuid"}
        await h.send(broken, msg_id="probe-msg-id", wait=False)
        assert h.ids() == [ack_id(request), result_id(request)]
        assert len(hops) == len(h.published)
    assert any(
        "job_id missing or not a uuid" in r.getMessage() and "probe-msg-id" in r.getMessage()
        for r in caplog.records
    )


async def test_a_started_service_has_its_start_up_objects_frozen_out_of_the_collector(
    run_app: Run,
) -> None:
    """Once the service has started, the objects it made starting (modules, clients) are in
    the collector's permanent generation, so that a full collection while it serves walks
    only what serving made, not a pause of tens of milliseconds at an ack (issue 29)."""
    gc.unfreeze()
    try:
        async with run_app(StubRecognizer()) as h:
            frozen = gc.get_freeze_count()
            request = await h.new_request()
            await h.send(request)
            assert h.ids() == [ack_id(request), result_id(request)]
        assert frozen > 10_000
    finally:
        gc.unfreeze()
