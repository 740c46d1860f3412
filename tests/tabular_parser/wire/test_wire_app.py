"""tabular-parser on the real nats-server and S3, watched by a plain nats-py subscriber."""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import nats
import pytest
from faststream import TestApp
from faststream.asgi import AsgiFastStream
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg

from services.contract import Kind
from services.devstack.embedded import start_tcp_proxy
from services.runtime.recognizer import Job, Recognition
from services.runtime.service import service_backlog
from services.runtime.settings import S3Settings
from services.runtime.storage import S3Storage
from services.tabular_parser.app import create_app
from tests.support.nats_wire import round_trip
from tests.support.recognition_service import MSG_ID, contract_errors

from ._support import StubRecognizer, request_body, tabular_settings

pytestmark = pytest.mark.wire

WAIT = 30.0  # generous upper bound for a message to show up; never a speed assertion


class Watcher:
    """A plain nats-py subscriber on the result subject: (Nats-Msg-Id, body) in arrival order."""

    def __init__(self) -> None:
        self.messages: list[tuple[str | None, dict[str, Any]]] = []
        self._changed = asyncio.Event()
        self._signals: list[tuple[str, asyncio.Event]] = []

    def on_id(self, prefix: str, event: asyncio.Event) -> None:
        """Set `event` once a message whose Nats-Msg-Id starts with `prefix` arrives."""
        self._signals.append((prefix, event))

    async def on_message(self, msg: Msg) -> None:
        msg_id = (msg.headers or {}).get(MSG_ID)
        self.messages.append((msg_id, json.loads(msg.data)))
        for prefix, event in self._signals:
            if msg_id is not None and msg_id.startswith(prefix):
                event.set()
        self._changed.set()

    def ids(self) -> list[str | None]:
        return [mid for mid, _ in self.messages]

    async def wait_for(self, done: Callable[[Watcher], bool]) -> None:
        try:
            async with asyncio.timeout(WAIT):
                while not done(self):
                    self._changed.clear()
                    await self._changed.wait()
        except TimeoutError:
            msg = f"gave up waiting after {WAIT} s; seen so far: {self.ids()}"
            raise AssertionError(msg) from None


async def started(recognizer: StubRecognizer, watcher: Watcher, app: AsgiFastStream) -> None:
    """Until the recogniser was called; on time-out, say what the result subject saw."""
    try:
        await asyncio.wait_for(recognizer.started.wait(), WAIT)
    except TimeoutError:
        broker: Any = app.broker
        sub: Any = broker.subscribers[0]
        nats_sub = sub.subscription
        state = {
            "connected": broker.connection.is_connected,
            "stats": broker.connection.stats,
            "running": sub.running,
            "delivered": getattr(nats_sub, "delivered", None),
            "pending": getattr(nats_sub, "pending_msgs", None),
            "tasks": [t.done() for t in getattr(sub, "tasks", ())],
        }
        msg = (
            f"the recogniser was not called within {WAIT} s; seen so far: {watcher.ids()}; "
            f"state {state}"
        )
        raise AssertionError(msg) from None


@asynccontextmanager
async def client(url: str) -> AsyncIterator[NatsClient]:
    nc = await nats.connect(url)
    try:
        yield nc
    finally:
        await nc.drain()


@asynccontextmanager
async def watching(nc: NatsClient, subject: str) -> AsyncIterator[Watcher]:
    watcher = Watcher()
    sub = await nc.subscribe(subject, cb=watcher.on_message)
    await round_trip(nc)
    try:
        yield watcher
    finally:
        await sub.unsubscribe()


@asynccontextmanager
async def running(app: AsgiFastStream) -> AsyncIterator[AsgiFastStream]:
    """The app started for real (broker connected to the server)."""
    async with TestApp(app):
        await round_trip(app.broker.connection)  # type: ignore[union-attr]  # SUB on the server
        yield app


async def publish_request(nc: NatsClient, subject: str, body: dict[str, Any] | bytes) -> None:
    if isinstance(body, bytes):
        await nc.publish(subject, body)
    else:
        headers = {MSG_ID: f"{body['job_id']}:{body['attempt']}"}
        await nc.publish(subject, json.dumps(body).encode(), headers=headers)
    await round_trip(nc)


async def test_ack_and_result_travel_with_their_msg_ids_on_the_wire(
    nats_url: str, s3_settings: S3Settings, s3: S3Storage, bucket: str
) -> None:
    """On the real server: a junk message gets nothing; a valid request gets the ack then the
    result, each with its Nats-Msg-Id header and a body valid by the 2.0 schemas."""
    settings = tabular_settings(s3_settings, nats_url=nats_url)
    await s3.put_bytes(bucket, "uploads/a/book.xlsx", b"PK\x03\x04 stand-in")
    request = request_body(bucket, "uploads/a/book.xlsx")
    app = create_app(settings, StubRecognizer())
    async with (
        client(nats_url) as nc,
        watching(nc, settings.nats.nats_result_subject) as watcher,
        running(app),
    ):
        await publish_request(nc, settings.nats.nats_tabular_request_subject, b"\x00junk")
        await publish_request(nc, settings.nats.nats_tabular_request_subject, request)
        await watcher.wait_for(lambda w: len(w.messages) >= 2)

    job = request["job_id"]
    assert watcher.ids() == [f"ack:{job}:1", f"result:{job}:1"]
    (_, ack), (_, result) = watcher.messages
    assert ack["status"] == "processing"
    assert result["status"] == "done"
    for body in (ack, result):
        assert contract_errors(Kind.RESULT_MESSAGE, body) == []
    stored = json.loads(await s3.get_bytes(bucket, result["result_s3"]["key"], 10_000_000))
    assert contract_errors(Kind.RESULT, stored) == []
    assert stored["status"] == result["status"]


async def test_two_instances_in_one_queue_group_process_each_request_once(
    nats_url: str, s3_settings: S3Settings, s3: S3Storage, bucket: str
) -> None:
    """Two service instances share 20 requests through queue group `tabular-parser`: each
    request gets exactly one ack and one result, each file is recognised once, and both
    instances took part."""
    settings = tabular_settings(s3_settings, nats_url=nats_url)
    recognizers = [StubRecognizer(), StubRecognizer()]
    apps = [create_app(settings, r) for r in recognizers]
    requests = []
    for n in range(20):
        key = f"uploads/{n}/book.xlsx"
        await s3.put_bytes(bucket, key, b"PK\x03\x04 stand-in")
        requests.append(request_body(bucket, key))

    async with AsyncExitStack() as stack:
        nc = await stack.enter_async_context(client(nats_url))
        watcher = await stack.enter_async_context(watching(nc, settings.nats.nats_result_subject))
        for app in apps:
            await stack.enter_async_context(running(app))
        for request in requests:
            await publish_request(nc, settings.nats.nats_tabular_request_subject, request)
        await watcher.wait_for(
            lambda w: sum(1 for mid in w.ids() if mid and mid.startswith("result:")) >= 20
        )

    expected = sorted(
        [f"ack:{r['job_id']}:1" for r in requests] + [f"result:{r['job_id']}:1" for r in requests]
    )
    assert sorted(mid or "" for mid in watcher.ids()) == expected
    jobs = [str(job.job_id) for r in recognizers for _, job in r.calls]
    assert sorted(jobs) == sorted(r["job_id"] for r in requests)
    assert all(r.calls for r in recognizers), "both instances of the queue group took requests"


class CuttingRecognizer(StubRecognizer):
    """Cuts the service's NATS connection while recognising, restores it a moment later, so the
    first attempts to publish the result fail. It cuts only once the ack was seen on the server
    (`acked`): the ack is not what the test is about, and a cut before it reached the server
    would lose it."""

    def __init__(
        self, cut: Callable[[], None], restore: Callable[[], None], acked: asyncio.Event
    ) -> None:
        super().__init__()
        self._cut = cut
        self._restore = restore
        self._acked = acked

    async def recognize(self, data: bytes, job: Job) -> Recognition:
        result = await super().recognize(data, job)
        await asyncio.wait_for(self._acked.wait(), WAIT)
        self._cut()
        asyncio.get_running_loop().call_later(0.8, self._restore)
        return result


async def test_result_whose_first_publish_fails_arrives_with_the_same_msg_id(
    nats_url: str,
    s3_settings: S3Settings,
    s3: S3Storage,
    bucket: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Spec 002 «Повтор публикации» on the wire: the connection drops right before the result
    is published; the publish is retried and the result arrives with `result:<job>:<attempt>`
    (any copy that arrives carries that same id), recognised once."""
    caplog.set_level(logging.WARNING)
    host, _, port = nats_url.removeprefix("nats://").partition(":")
    proxy = start_tcp_proxy(host, int(port))
    try:
        settings = tabular_settings(
            s3_settings,
            nats_url=proxy.url,
            publish_retries=12,
            publish_confirm_timeout_seconds=0.3,
            nats_reconnect_wait_seconds=0.1,
        )
        acked = asyncio.Event()
        recognizer = CuttingRecognizer(proxy.cut, proxy.restore, acked)
        await s3.put_bytes(bucket, "uploads/r/book.xlsx", b"PK\x03\x04 stand-in")
        request = request_body(bucket, "uploads/r/book.xlsx")
        app = create_app(settings, recognizer)
        async with (
            client(nats_url) as nc,  # the watcher listens on the server, not via the proxy
            watching(nc, settings.nats.nats_result_subject) as watcher,
            running(app),
        ):
            watcher.on_id("ack:", acked)
            await publish_request(nc, settings.nats.nats_tabular_request_subject, request)
            await started(recognizer, watcher, app)  # on a time-out: the broker's state
            await watcher.wait_for(
                lambda w: any(mid and mid.startswith("result:") for mid in w.ids())
            )
    finally:
        proxy.close()

    job = request["job_id"]
    results = [(mid, body) for mid, body in watcher.messages if mid != f"ack:{job}:1"]
    assert results
    assert {mid for mid, _ in results} == {f"result:{job}:1"}
    assert all(body == results[0][1] for _, body in results)
    assert results[0][1]["status"] == "done"
    assert len(recognizer.calls) == 1
    assert any(
        "publish attempt 1/" in r.getMessage() and f"result:{job}:1" in r.getMessage()
        for r in caplog.records
    ), "the first attempt to publish the result failed and was retried"


async def _put_requests(s3: S3Storage, bucket: str, count: int) -> list[dict[str, Any]]:
    requests = []
    for _ in range(count):
        body = request_body(bucket, f"uploads/{uuid.uuid4()}/book.xlsx")
        await s3.put_bytes(bucket, body["s3"]["key"], b"PK\x03\x04 stand-in")
        requests.append(body)
    return requests


async def test_a_request_is_acked_at_once_while_every_job_slot_is_busy(
    nats_url: str, s3_settings: S3Settings, s3: S3Storage, bucket: str
) -> None:
    """JOBS_IN_FLIGHT = 2 and two files stuck in recognition: a third valid request is acked
    over the real server while both slots are still held (issue 16: it used to wait, unacked,
    for a free slot, so its ack could not come before the gate opens); it is recognised once
    a slot frees, and every job gets its result. How fast the ack comes is a benchmark's
    matter (benchmarks/), not this test's."""
    settings = tabular_settings(s3_settings, nats_url=nats_url, jobs_in_flight=2)
    gate = asyncio.Event()
    recognizer = StubRecognizer(gate=gate)
    busy, fresh = await _put_requests(s3, bucket, 2), (await _put_requests(s3, bucket, 1))[0]
    app = create_app(settings, recognizer)
    subject = settings.nats.nats_tabular_request_subject
    async with (
        client(nats_url) as nc,
        watching(nc, settings.nats.nats_result_subject) as watcher,
        running(app),
    ):
        for request in busy:
            await publish_request(nc, subject, request)
        await watcher.wait_for(lambda w: len(w.messages) >= 2)
        await asyncio.wait_for(recognizer.wait_for_calls(2), WAIT)
        await publish_request(nc, subject, fresh)
        await watcher.wait_for(lambda w: f"ack:{fresh['job_id']}:1" in w.ids())
        assert not gate.is_set()
        assert service_backlog(app).busy == 2  # both slots still held when the ack came
        assert not any(mid and mid.startswith("result:") for mid in watcher.ids())
        assert len(recognizer.calls) == 2  # the third waits for a slot
        gate.set()
        await watcher.wait_for(lambda w: len(w.messages) >= 6)
    assert sorted(
        mid or "" for mid in watcher.ids() if mid and mid.startswith("result:")
    ) == sorted(f"result:{r['job_id']}:1" for r in [*busy, fresh])
    assert len(recognizer.calls) == 3


def _open_when_closing(app: AsgiFastStream, gate: asyncio.Event, mp: pytest.MonkeyPatch) -> None:
    """Opens `gate` when the service's shutdown closes its backlog (before the grace period)."""
    backlog = service_backlog(app)
    close = backlog.close

    async def closing(grace_seconds: float) -> list[Any]:
        gate.set()
        return await close(grace_seconds)

    mp.setattr(backlog, "close", closing)


async def test_shutdown_lets_a_job_in_flight_finish(
    nats_url: str,
    s3_settings: S3Settings,
    s3: S3Storage,
    bucket: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Graceful shutdown (what SIGTERM triggers): a job in flight finishing within
    GRACEFUL_TIMEOUT_SECONDS still publishes its result before the service stops. The job is
    let go only once the shutdown has begun, so it did not simply finish before it."""
    settings = tabular_settings(s3_settings, nats_url=nats_url, graceful_timeout_seconds=20.0)
    gate = asyncio.Event()
    recognizer = StubRecognizer(gate=gate)
    (request,) = await _put_requests(s3, bucket, 1)
    app = create_app(settings, recognizer)
    async with client(nats_url) as nc, watching(nc, settings.nats.nats_result_subject) as watcher:
        async with running(app):
            await publish_request(nc, settings.nats.nats_tabular_request_subject, request)
            await started(recognizer, watcher, app)
            _open_when_closing(app, gate, monkeypatch)
        # leaving `running` stopped the app: it waited for the job
        await watcher.wait_for(lambda w: len(w.messages) >= 2)
    assert watcher.ids() == [f"ack:{request['job_id']}:1", f"result:{request['job_id']}:1"]


async def test_shutdown_abandons_a_job_past_the_graceful_timeout_with_a_log_line(
    nats_url: str,
    s3_settings: S3Settings,
    s3: S3Storage,
    bucket: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A job still running when GRACEFUL_TIMEOUT_SECONDS runs out is abandoned: one error line
    naming the job, no result, and the shutdown completes."""
    caplog.set_level(logging.ERROR)
    settings = tabular_settings(s3_settings, nats_url=nats_url, graceful_timeout_seconds=0.3)
    recognizer = StubRecognizer(gate=asyncio.Event())  # never opens
    (request,) = await _put_requests(s3, bucket, 1)
    app = create_app(settings, recognizer)
    async with client(nats_url) as nc, watching(nc, settings.nats.nats_result_subject) as watcher:
        async with running(app):
            await publish_request(nc, settings.nats.nats_tabular_request_subject, request)
            await started(recognizer, watcher, app)
            await watcher.wait_for(lambda w: f"ack:{request['job_id']}:1" in w.ids())
        # the app is closed: what it published is on the server; one more round trip on the
        # watcher's connection and any result would have arrived
        await round_trip(nc)
    assert watcher.ids() == [f"ack:{request['job_id']}:1"]
    abandoned = [r for r in caplog.records if "abandoned" in r.getMessage()]
    assert len(abandoned) == 1
    assert request["job_id"] in abandoned[0].getMessage()
