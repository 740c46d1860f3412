"""The flush that confirms a publish, against a scripted NATS server that shows the client's
commands in the order they reach it and answers PINGs when the test says.

Two nats-py behaviours the confirm must not inherit: its flush writes the PING straight to the
socket, ahead of a PUB still in its buffer (so the PONG proved nothing about the PUB); and a
flush whose wait is cancelled (its own timeout) leaves the cancelled future queued, so the
PONG that comes late kills the client's read loop (it stays "connected", deaf to every
message, until stale PINGs reconnect it).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import AsyncIterator

import pytest
from nats.aio.msg import Msg

from services.runtime.messaging import MSG_ID_HEADER, PublishGaveUp, build_broker, msg_id
from services.runtime.settings import Settings, load_settings
from tests.support.nats_wire import round_trip

WAIT = 10  # seconds: an upper bound for what must happen; never a speed assertion
_INFO = {"server_id": "scripted", "version": "2.10.0", "proto": 1, "headers": True}


class ScriptedNats:
    """One client at a time: records each command's verb and PONGs at once, except the first
    PING read after `hold_next_ping` is set: then it stops reading (as a stalled server
    would) until `release()`."""

    def __init__(self) -> None:
        self.ops: list[str] = []
        self.subs: dict[str, str] = {}  # subject → sid
        self.hold_next_ping = False
        self.held = asyncio.Event()
        self._release = asyncio.Event()
        self._writer: asyncio.StreamWriter | None = None
        self._server: asyncio.Server | None = None
        self.url = ""

    async def __aenter__(self) -> ScriptedNats:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.url = f"nats://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"
        return self

    async def __aexit__(self, *_: object) -> None:
        self._release.set()
        if self._writer is not None:
            self._writer.close()
        assert self._server is not None
        self._server.close()

    def release(self) -> None:
        self._release.set()

    async def send(self, subject: str, data: bytes) -> None:
        assert self._writer is not None
        sid = self.subs[subject]
        self._writer.write(
            b"MSG %s %s %d\r\n%s\r\n" % (subject.encode(), sid.encode(), len(data), data)
        )
        await self._writer.drain()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writer = writer
        writer.write(b"INFO " + json.dumps(_INFO).encode() + b"\r\n")
        with contextlib.suppress(ConnectionError):
            while line := await reader.readline():
                verb, *args = line.decode().split()
                if verb in {"PUB", "HPUB"}:
                    await reader.readexactly(int(args[-1]) + 2)
                elif verb == "SUB":
                    self.subs[args[0]] = args[-1]
                self.ops.append(verb)
                if verb == "PING":
                    if self.hold_next_ping and not self.held.is_set():
                        self.held.set()
                        await self._release.wait()
                    writer.write(b"PONG\r\n")
                    await writer.drain()


@pytest.fixture
async def scripted() -> AsyncIterator[ScriptedNats]:
    async with ScriptedNats() as server:
        yield server


def _settings(url: str, **overrides: object) -> Settings:
    return load_settings(nats={"nats_url": url}, publish_retry_pause_seconds=0.01, **overrides)


async def test_the_confirming_ping_follows_the_published_message(scripted: ScriptedNats) -> None:
    """The PONG that confirms a publish answers a PING sent after the message, so the server
    had read the message when it answered."""
    broker = build_broker(_settings(scripted.url), client_name="t")
    await broker.connect()
    try:
        scripted.ops.clear()
        mid = msg_id("ack", uuid.uuid4(), 1)
        await broker.publish({"status": "processing"}, "s", headers={MSG_ID_HEADER: mid})
        assert "HPUB" in scripted.ops
        assert "PING" in scripted.ops[scripted.ops.index("HPUB") :], scripted.ops
    finally:
        await broker.stop()


async def test_a_confirm_that_timed_out_leaves_the_client_reading(scripted: ScriptedNats) -> None:
    """The PONG of a timed-out confirm arrives late: the client still reads what comes next
    (a message to its subscription), instead of going deaf."""
    settings = _settings(scripted.url, publish_retries=0, publish_confirm_timeout_seconds=0.2)
    broker = build_broker(settings, client_name="t")
    await broker.connect()
    try:
        got = asyncio.Event()

        async def receive(msg: Msg) -> None:
            got.set()

        client = broker.connection
        await client.subscribe("probe", cb=receive)
        await round_trip(client)  # the SUB is on the server
        scripted.hold_next_ping = True
        mid = msg_id("result", uuid.uuid4(), 1)
        with pytest.raises(PublishGaveUp):
            await broker.publish({"status": "done"}, "s", headers={MSG_ID_HEADER: mid})
        assert scripted.held.is_set()  # the confirm's PONG was held, then it timed out
        scripted.release()  # the late PONG
        await client.flush(timeout=WAIT)  # a round trip after it: the late PONG was read
        await scripted.send("probe", b"hello")
        await asyncio.wait_for(got.wait(), WAIT)
    finally:
        await broker.stop()
