"""/healthcheck: always 200 with the subjects in use, the NATS state, and never a secret."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Iterator

import httpx
import pytest
from faststream.asgi import AsgiFastStream
from faststream.nats import NatsBroker

from services.devstack.embedded import NatsServer, TcpProxy, start_tcp_proxy
from services.runtime.health import healthcheck_route, log_subjects, nats_state
from services.runtime.messaging import build_broker
from services.runtime.settings import Settings, SubjectRole, load_settings
from tests.support.nats_credentials import Credentials

from .waiting import eventually

ROLES: tuple[SubjectRole, ...] = ("tabular_request", "result")


@pytest.fixture
def proxy(nats_server: NatsServer, nats_url: str) -> Iterator[TcpProxy]:
    relay = start_tcp_proxy(nats_server.host, nats_server.port)
    yield relay
    relay.close()


@pytest.fixture
def settings(
    make_settings: Callable[..., Settings], proxy: TcpProxy, credentials: Credentials
) -> Settings:
    """Harness settings reaching NATS through the proxy, with custom subjects and credentials.

    The credentials are never asked for: this nats-server has no auth.
    """
    return make_settings(
        nats={
            "nats_url": proxy.url,
            "nats_tabular_request_subject": "env.test.tabular",
            "nats_result_subject": "env.test.parsed",
            "nats_jwt": credentials.jwt,
            "nats_seed": credentials.seed,
        },
        nats_reconnect_wait_seconds=0.05,
    )


@pytest.fixture
async def broker(settings: Settings) -> AsyncIterator[NatsBroker]:
    broker = build_broker(settings, client_name="health-test")
    yield broker
    try:
        await broker.stop()
    except Exception:
        with contextlib.suppress(Exception):
            await broker.connection.close()


@pytest.fixture
def client(settings: Settings, broker: NatsBroker) -> httpx.AsyncClient:
    app = AsgiFastStream(
        broker,
        asgi_routes=[
            healthcheck_route(
                service="tabular-parser",
                version="1.2.3",
                nats=settings.nats,
                roles=ROLES,
                broker=broker,
            )
        ],
    )
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://svc")


def _assert_no_secret(text: str, credentials: Credentials) -> None:
    assert credentials.jwt not in text
    assert credentials.seed not in text


@pytest.mark.wire
async def test_healthcheck_before_connect_reports_disconnected(
    client: httpx.AsyncClient, credentials: Credentials
) -> None:
    """Not connected yet: 200, nats=disconnected, only the roles the service uses."""
    response = await client.get("/healthcheck")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.json() == {
        "service": "tabular-parser",
        "version": "1.2.3",
        "status": "ok",
        "nats": "disconnected",
        "nats_server": None,
        "subjects": {"tabular_request": "env.test.tabular", "result": "env.test.parsed"},
    }
    _assert_no_secret(response.text, credentials)


@pytest.mark.wire
async def test_healthcheck_follows_the_connection_and_answers_with_nats_down(
    client: httpx.AsyncClient, broker: NatsBroker, proxy: TcpProxy, credentials: Credentials
) -> None:
    """Connected → "connected" on the proxy's address; link cut → still 200 at once, with a
    not-connected state and no server."""
    await broker.connect()
    up = await client.get("/healthcheck")
    assert up.status_code == 200 and up.json()["nats"] == "connected"
    assert up.json()["nats_server"] == f"{proxy.host}:{proxy.port}"
    _assert_no_secret(up.text, credentials)

    proxy.cut()
    await eventually(lambda: nats_state(broker) != "connected", "the client to notice the cut")
    down = await client.get("/healthcheck")
    assert down.status_code == 200
    assert down.json()["nats"] in {"reconnecting", "connecting", "disconnected"}
    assert down.json()["nats_server"] is None
    assert down.json()["subjects"] == up.json()["subjects"]
    _assert_no_secret(down.text, credentials)

    proxy.restore()
    await eventually(lambda: nats_state(broker) == "connected", "the reconnect")
    again = await client.get("/healthcheck")
    assert again.json()["nats"] == "connected"


@pytest.mark.wire
async def test_healthcheck_names_the_connected_server_without_user_info(
    make_settings: Callable[..., Settings], nats_server: NatsServer
) -> None:
    """A URL with user and password in a comma-separated list: /healthcheck shows only
    host:port of the server the client is on, never the user-info."""
    listed = f"nats://operator:hunter2secret@{nats_server.host}:{nats_server.port}"
    settings = make_settings(nats={"nats_url": f"{listed}, nats://127.0.0.1:1"})
    broker = build_broker(settings, client_name="health-user-info")
    try:
        await broker.connect()
        app = AsgiFastStream(
            broker,
            asgi_routes=[
                healthcheck_route(
                    service="arm-core", version="1", nats=settings.nats, roles=(), broker=broker
                )
            ],
        )
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://svc") as http:
            body = (await http.get("/healthcheck")).text
    finally:
        with contextlib.suppress(Exception):
            await broker.stop()
    assert f'"nats_server": "{nats_server.host}:{nats_server.port}"' in body
    assert "operator" not in body and "hunter2secret" not in body


@pytest.mark.wire
async def test_healthcheck_only_answers_get(client: httpx.AsyncClient) -> None:
    """Other methods get 405 (the route is read-only)."""
    assert (await client.post("/healthcheck")).status_code == 405


def test_start_log_line_lists_the_subjects_in_use(caplog: pytest.LogCaptureFixture) -> None:
    """One start-up line names the service and each used subject, and no other subject."""
    settings = load_settings(nats={"nats_image_request_subject": "env.test.image"})
    with caplog.at_level(logging.INFO, logger="services.runtime.health"):
        log_subjects("scan-gateway", settings.nats, ("image_request", "result"))
    assert len(caplog.records) == 1
    line = caplog.records[0].getMessage()
    assert line == (
        "scan-gateway uses NATS subjects: image_request=env.test.image, result=files.tabular_parsed"
    )
