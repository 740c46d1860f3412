"""NATS_JWT and NATS_SEED really reach the connection: a server in operator mode lets the
service in with them, and shuts it out when the seed does not match the JWT."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Iterator
from pathlib import Path

import nats
import nats.errors
import pytest
from nats.aio.msg import Msg

from services.devstack.embedded import NatsServer
from services.runtime.messaging import MSG_ID_HEADER, build_broker, msg_id
from services.runtime.settings import load_settings
from tests.support.nats_wire import round_trip

from .nats_auth import OperatorChain, make_operator_chain, operator_mode_server, other_user_seed
from .waiting import eventually

pytestmark = pytest.mark.wire


@pytest.fixture(scope="module")
def chain() -> OperatorChain:
    return make_operator_chain()


@pytest.fixture(scope="module")
def secured_server(
    chain: OperatorChain, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[NatsServer]:
    """A nats-server that admits only users of the chain's account."""
    with operator_mode_server(chain, tmp_path_factory.mktemp("nats-auth")) as server:
        yield server


async def test_jwt_and_seed_from_settings_authenticate_the_broker(
    chain: OperatorChain, secured_server: NatsServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Settings from OPENBAO__NATS__NATS_JWT / _SEED get the broker in; its publish arrives."""
    monkeypatch.setenv("OPENBAO__NATS__NATS_URL", secured_server.url)
    monkeypatch.setenv("OPENBAO__NATS__NATS_JWT", chain.user_jwt)
    monkeypatch.setenv("OPENBAO__NATS__NATS_SEED", chain.user_seed)
    settings = load_settings()

    received: list[Msg] = []

    async def on_msg(msg: Msg) -> None:
        received.append(msg)

    listener = await nats.connect(**settings.nats_connect_kwargs())
    subject = f"secured.{uuid.uuid4().hex}"
    await listener.subscribe(subject, cb=on_msg)
    await round_trip(listener)

    broker = build_broker(settings, client_name="auth-test")
    await broker.connect()
    try:
        mid = msg_id("ack", uuid.uuid4(), 1)
        await broker.publish({"ok": True}, subject, headers={MSG_ID_HEADER: mid})
        await eventually(lambda: bool(received), "the message")
        assert [(m.headers or {}).get(MSG_ID_HEADER) for m in received] == [mid]
    finally:
        await broker.stop()
        await listener.close()


async def test_a_seed_that_does_not_match_the_jwt_is_refused_without_leaking(
    chain: OperatorChain,
    secured_server: NatsServer,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The server rejects a nonce signed by the wrong seed; no log line quotes JWT or seed."""
    wrong_seed = other_user_seed()
    settings = load_settings(
        nats={"nats_url": secured_server.url, "nats_jwt": chain.user_jwt, "nats_seed": wrong_seed}
    )
    broker = build_broker(settings, client_name="auth-test")
    with caplog.at_level(logging.DEBUG), pytest.raises(nats.errors.Error) as info:
        await asyncio.wait_for(broker.connect(), 10)
    assert "authorization violation" in str(info.value).lower()
    for text in (caplog.text, str(info.value)):
        assert chain.user_jwt not in text
        assert wrong_seed not in text
    with contextlib.suppress(Exception):
        await broker.stop()
