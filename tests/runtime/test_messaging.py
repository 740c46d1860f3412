"""Messaging: Nats-Msg-Id on every publish, retries with the same id, giving up without dying.

The wire tests run on the harness's real nats-server. Connection faults come from a loopback
TCP proxy between the service's client and the server: cutting it breaks the connection the
way a network does, while a plain subscriber connected straight to the server keeps listening.
"""

from __future__ import annotations

import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import nats
import pytest
from faststream.nats import NatsBroker, TestNatsBroker
from nats.aio.msg import Msg

from services.devstack.embedded import NatsServer, TcpProxy, start_tcp_proxy
from services.runtime.health import nats_state
from services.runtime.ids import MsgKind, parse_answer_msg_id, parse_uuid
from services.runtime.messaging import (
    MSG_ID_HEADER,
    MissingMsgIdError,
    MsgId,
    PublishGaveUp,
    build_broker,
    msg_id,
    parse_request_msg_id,
)
from services.runtime.settings import Settings, load_settings
from tests.support.nats_wire import round_trip

from .waiting import eventually

MESSAGING_LOGGER = "services.runtime.messaging"


# -- ids ------------------------------------------------------------------------------------


def test_msg_id_forms() -> None:
    """The three id forms of spec 001: request, ack and result of one job attempt."""
    job = uuid.UUID("0b5e0d3c-6a57-4d0e-9f7a-3c1b2e4d5f60")
    assert msg_id("request", job, 2) == f"{job}:2"
    assert msg_id("ack", job, 2) == f"ack:{job}:2"
    assert msg_id("result", str(job), 1) == f"result:{job}:1"


def test_request_msg_id_round_trips() -> None:
    """A request id parses back to its job id and attempt."""
    job = uuid.uuid4()
    assert parse_request_msg_id(msg_id("request", job, 3)) == MsgId(job, 3)


@pytest.mark.parametrize(
    "value",
    [
        None,
        "",
        "no-colon",
        "not-a-uuid:1",
        f"{uuid.uuid4()}:0",
        f"{uuid.uuid4()}:x",
        f"ack:{uuid.uuid4()}:1",
        f"{uuid.uuid4()}:-1",
    ],
)
def test_malformed_request_msg_ids_parse_to_none(value: str | None) -> None:
    """Anything but `<uuid>:<attempt ≥ 1>` (an ack id too) is not a request id."""
    assert parse_request_msg_id(value) is None


@pytest.mark.parametrize("kind", ["ack", "result"])
def test_answer_msg_ids_round_trip_and_requests_are_no_answers(kind: MsgKind) -> None:
    """`ack:` / `result:<job_id>:<attempt>` parse back (the core drops a stale attempt's
    answer by it); a request's id is no answer's, and an answer's is no request's."""
    job = uuid.uuid4()
    assert parse_answer_msg_id(msg_id(kind, job, 4)) == MsgId(job, 4, kind)
    assert parse_answer_msg_id(msg_id("request", job, 4)) is None
    assert parse_request_msg_id(msg_id(kind, job, 4)) is None
    assert parse_answer_msg_id(f"{kind}:{job}:0") is None
    assert parse_answer_msg_id(f"{kind}:{job.hex}:1") is None


@pytest.mark.parametrize(
    "value",
    [
        "0b5e0d3c6a574d0e9f7a3c1b2e4d5f60",
        "urn:uuid:0b5e0d3c-6a57-4d0e-9f7a-3c1b2e4d5f60",
        "{0b5e0d3c-6a57-4d0e-9f7a-3c1b2e4d5f60}",
        "0b5e0d3c-6a57-4d0e-9f7a-3c1b2e4d5f60\n",
        " 0b5e0d3c-6a57-4d0e-9f7a-3c1b2e4d5f60",
        42,
        None,
    ],
)
def test_only_the_canonical_uuid_form_is_an_id(value: object) -> None:
    """The forms `uuid.UUID` also reads are not a job or file id (spec 001: the schema's uuid)."""
    assert parse_uuid(value) is None


def test_the_canonical_uuid_form_is_read_in_either_case() -> None:
    """8-4-4-4-12 hex digits, as the schema's pattern (upper case included)."""
    job = uuid.UUID("0b5e0d3c-6a57-4d0e-9f7a-3c1b2e4d5f60")
    assert parse_uuid(str(job)) == job
    assert parse_uuid(str(job).upper()) == job


async def test_the_built_broker_works_under_test_nats_broker() -> None:
    """In-memory tests of services keep working: ids pass, a missing id is still refused."""
    broker = build_broker(load_settings(), client_name="in-memory")
    seen: list[dict[str, int]] = []

    @broker.subscriber("in.memory")
    async def handler(body: dict[str, int]) -> None:
        seen.append(body)

    async with TestNatsBroker(broker) as test_broker:
        await test_broker.publish({"n": 1}, "in.memory", headers={MSG_ID_HEADER: "ack:j:1"})
        with pytest.raises(MissingMsgIdError):
            await test_broker.publish({"n": 2}, "in.memory")
    assert seen == [{"n": 1}]


# -- wire helpers -----------------------------------------------------------------------------


class _Inbox:
    """A plain nats-py subscriber: what really went over the wire."""

    def __init__(self) -> None:
        self.messages: list[Msg] = []

    async def receive(self, msg: Msg) -> None:
        self.messages.append(msg)

    def ids(self) -> list[str | None]:
        return [(m.headers or {}).get(MSG_ID_HEADER) for m in self.messages]


@pytest.fixture
async def listen(nats_url: str) -> AsyncIterator[Callable[[str], Awaitable[_Inbox]]]:
    """Subscribe a plain client (straight to the server) to a subject."""
    client = await nats.connect(nats_url)

    async def subscribe(subject: str) -> _Inbox:
        inbox = _Inbox()
        await client.subscribe(subject, cb=inbox.receive)
        await round_trip(client)  # the SUB is on the server before any publish
        return inbox

    yield subscribe
    await client.close()


@pytest.fixture
def proxy(nats_server: NatsServer, nats_url: str) -> Iterator[TcpProxy]:
    """A cuttable relay in front of the session's nats-server."""
    relay = start_tcp_proxy(nats_server.host, nats_server.port)
    yield relay
    relay.close()


class _Records(logging.Handler):
    """Collects the messaging logger's records; can act when a given record arrives."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []
        self.on_record: Callable[[logging.LogRecord], None] | None = None

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)
        if self.on_record is not None:
            self.on_record(record)

    def at(self, level: int) -> list[str]:
        return [r.getMessage() for r in self.records if r.levelno == level]


@pytest.fixture
def records() -> Iterator[_Records]:
    handler = _Records()
    logger = logging.getLogger(MESSAGING_LOGGER)
    logger.addHandler(handler)
    previous = logger.level
    logger.setLevel(logging.DEBUG)
    yield handler
    logger.removeHandler(handler)
    logger.setLevel(previous)


@pytest.fixture
async def connected(
    make_settings: Callable[..., Settings],
) -> AsyncIterator[Callable[..., Awaitable[NatsBroker]]]:
    """Build and connect brokers from settings overrides; all closed after the test."""
    brokers: list[NatsBroker] = []

    async def make(**overrides: Any) -> NatsBroker:
        broker = build_broker(make_settings(**overrides), client_name="runtime-test")
        await broker.connect()
        brokers.append(broker)
        return broker

    yield make
    for broker in brokers:
        await _close(broker)


async def _close(broker: NatsBroker) -> None:
    """Stop a broker even mid-reconnect, where FastStream's drain refuses to run."""
    try:
        await broker.stop()
    except Exception:
        with contextlib.suppress(Exception):
            await broker.connection.close()


# -- wire tests -------------------------------------------------------------------------------


@pytest.mark.wire
async def test_msg_id_header_is_on_the_wire(
    connected: Callable[..., Awaitable[NatsBroker]],
    listen: Callable[[str], Awaitable[_Inbox]],
    unique_subject: Callable[[str], str],
) -> None:
    """A publish through the broker reaches a plain subscriber with its Nats-Msg-Id header."""
    subject = unique_subject("files.tabular_parsed")
    inbox = await listen(subject)
    broker = await connected()
    mid = msg_id("ack", uuid.uuid4(), 1)
    await broker.publish({"status": "processing"}, subject, headers={MSG_ID_HEADER: mid})
    await eventually(lambda: len(inbox.messages) == 1, "the message")
    assert inbox.ids() == [mid]
    assert inbox.messages[0].data == b'{"status":"processing"}'


@pytest.mark.wire
async def test_publish_without_msg_id_is_refused(
    connected: Callable[..., Awaitable[NatsBroker]],
    listen: Callable[[str], Awaitable[_Inbox]],
    unique_subject: Callable[[str], str],
) -> None:
    """No header: MissingMsgIdError, and nothing is sent (the next valid message comes first)."""
    subject = unique_subject("files.tabular_parsed")
    inbox = await listen(subject)
    broker = await connected()
    with pytest.raises(MissingMsgIdError) as info:
        await broker.publish({"x": 1}, subject)
    assert info.value.subject == subject
    with pytest.raises(MissingMsgIdError):
        await broker.publish({"x": 1}, subject, headers={MSG_ID_HEADER: ""})
    await broker.publish({"x": 2}, subject, headers={MSG_ID_HEADER: "result:j:1"})
    await eventually(lambda: len(inbox.messages) >= 1, "the valid message")
    assert inbox.ids() == ["result:j:1"]


@pytest.mark.wire
async def test_publish_survives_two_failed_attempts_with_the_same_id(
    proxy: TcpProxy,
    connected: Callable[..., Awaitable[NatsBroker]],
    listen: Callable[[str], Awaitable[_Inbox]],
    unique_subject: Callable[[str], str],
    records: _Records,
) -> None:
    """Connection cut: attempts 1 and 2 fail (no PONG), the link comes back, attempt 3 succeeds.

    Every copy that reaches the server carries the one id; no error line is written.
    """
    subject = unique_subject("files.tabular_parsed")
    inbox = await listen(subject)
    broker = await connected(
        nats={"nats_url": proxy.url},
        publish_retries=3,
        publish_retry_pause_seconds=0.5,
        publish_confirm_timeout_seconds=0.3,
        nats_reconnect_wait_seconds=0.05,
    )
    proxy.cut()
    await eventually(lambda: nats_state(broker) != "connected", "the client to notice the cut")

    def restore_after_second_failure(record: logging.LogRecord) -> None:
        if record.levelno == logging.WARNING and "attempt 2/4 failed" in record.getMessage():
            proxy.restore()

    records.on_record = restore_after_second_failure
    mid = msg_id("result", uuid.uuid4(), 1)
    await broker.publish({"status": "done"}, subject, headers={MSG_ID_HEADER: mid})

    warnings = records.at(logging.WARNING)
    assert [w.split(":")[0] for w in warnings] == [
        "publish attempt 1/4 failed, retrying",
        "publish attempt 2/4 failed, retrying",
    ]
    assert all(f"msg_id={mid}" in w and f"subject={subject}" in w for w in warnings)
    assert records.at(logging.ERROR) == []
    await eventually(lambda: len(inbox.messages) >= 1, "the message after reconnect")
    assert set(inbox.ids()) == {mid}


@pytest.mark.wire
async def test_exhausted_retries_log_one_error_and_the_process_goes_on(
    proxy: TcpProxy,
    connected: Callable[..., Awaitable[NatsBroker]],
    listen: Callable[[str], Awaitable[_Inbox]],
    unique_subject: Callable[[str], str],
    records: _Records,
) -> None:
    """With the link down, 1 + PUBLISH_RETRIES attempts fail: one error line (id, subject),
    publish raises PublishGaveUp naming them (no second flush needed to find out), and once
    the link is back the next publish is delivered."""
    subject = unique_subject("files.tabular_parsed")
    inbox = await listen(subject)
    broker = await connected(
        nats={"nats_url": proxy.url},
        publish_retries=2,
        publish_retry_pause_seconds=0.01,
        publish_confirm_timeout_seconds=0.2,
        nats_reconnect_wait_seconds=0.05,
    )
    proxy.cut()
    await eventually(lambda: nats_state(broker) != "connected", "the client to notice the cut")
    lost = msg_id("ack", uuid.uuid4(), 1)
    with pytest.raises(PublishGaveUp) as gave_up:
        await broker.publish({"status": "processing"}, subject, headers={MSG_ID_HEADER: lost})
    assert (gave_up.value.msg_id, gave_up.value.subject, gave_up.value.attempts) == (
        lost,
        subject,
        3,
    )

    errors = records.at(logging.ERROR)
    assert len(errors) == 1
    assert "after 3 attempts" in errors[0]
    assert f"msg_id={lost}" in errors[0] and f"subject={subject}" in errors[0]
    assert len(records.at(logging.WARNING)) == 2

    proxy.restore()
    await eventually(lambda: nats_state(broker) == "connected", "the reconnect")
    inbox.messages.clear()  # copies of the lost message may be flushed on reconnect
    after = msg_id("ack", uuid.uuid4(), 1)
    await broker.publish({"status": "processing"}, subject, headers={MSG_ID_HEADER: after})
    await eventually(lambda: after in inbox.ids(), "the next message")
    assert len(records.at(logging.ERROR)) == 1


@pytest.mark.wire
async def test_publish_before_connect_fails_softly(
    make_settings: Callable[..., Settings],
    records: _Records,
) -> None:
    """A publish on a broker that never connected is retried, logged, then PublishGaveUp."""
    broker = build_broker(
        make_settings(publish_retries=1, publish_retry_pause_seconds=0.0), client_name="t"
    )
    with pytest.raises(PublishGaveUp):
        await broker.publish({}, "files.x", headers={MSG_ID_HEADER: "ack:j:1"})
    assert len(records.at(logging.ERROR)) == 1
    assert len(records.at(logging.WARNING)) == 1
