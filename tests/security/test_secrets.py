"""The stack runs on its credentials and never gives them away (issue 27: "NATS with
credentials, S3 with keys"; decision 0038).

The suite's nats-server admits only the operator chain's user (conftest `secured_nats`), and
the core and tabular-parser get in with its JWT and seed; every test of the suite is watched
for secrets in logs and answers (conftest `secret_watch`). These tests add the paths where a
secret is most likely to slip out: a whole recognition over the secured NATS, the reprs of
the running core, and the error texts of a NATS login refused, an S3 and a database that
cannot be reached with their credentials.
"""

from __future__ import annotations

import socket
import uuid
from collections.abc import Callable
from typing import Any

import nats
import nats.errors
import pytest

from services.arm_core.app import CoreApp
from services.devstack.embedded import NatsServer
from tests.arm_core.auth._flow import bearer
from tests.arm_core.auth._provider import FakeProvider
from tests.arm_core.auth.conftest import CoreFactory
from tests.e2e import _files
from tests.runtime.nats_auth import OperatorChain, other_user_seed

from ._leaks import SecretWatch
from ._recognition import recognised
from .conftest import DB_PASSWORD

pytestmark = [pytest.mark.db, pytest.mark.wire]


def _closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


async def test_the_nats_server_admits_only_the_credentials(
    nats_chain: OperatorChain, secured_nats: NatsServer, secret_watch: SecretWatch
) -> None:
    """Operator mode is really on: no credentials, or the JWT with a seed it was not issued
    to, are refused; the error texts hold neither the JWT nor a seed."""
    attempts: list[dict[str, Any]] = [
        {},
        {"user_jwt_cb": lambda: nats_chain.user_jwt.encode(), "nkeys_seed_str": other_user_seed()},
    ]
    for extra in attempts:
        with pytest.raises((nats.errors.Error, OSError)) as refused:
            await nats.connect(
                secured_nats.url,
                allow_reconnect=False,
                connect_timeout=2,
                max_reconnect_attempts=0,
                **extra,
            )
        secret_watch.see("nats refusal", f"{refused.value!s} {refused.value!r}")


async def test_a_recognition_runs_over_the_secured_nats(
    core: CoreFactory,
    oidc: dict[str, Any],
    provider: FakeProvider,
    tabular_parser: Callable[..., Any],
) -> None:
    """A workbook uploaded with an integrator's token goes to tabular-parser and its result
    comes back to the core, both services logged into NATS with the JWT and seed (the
    server admits nobody else): the job ends final, the core reports NATS connected."""
    app, client = await core(oidc)
    health = (await client.get("/healthcheck")).json()
    assert health["nats"] == "connected", health
    async with tabular_parser():
        job = await recognised(
            app, client, bearer(provider, "integrator"), "осв.xlsx", _files.osv_xlsx()
        )
    assert job["request_subject"] == app.core.settings.request_subject("tabular")


async def test_the_running_core_shows_no_secret_in_its_reprs(
    core: CoreFactory, oidc: dict[str, Any], secret_watch: SecretWatch
) -> None:
    """The reprs of the core's settings, runtime, broker, storage and auth objects (what an
    exception's locals or a debugger print) hold none of the stack's secrets."""
    app, _ = await core(oidc)
    assert isinstance(app, CoreApp)
    runtime = app.core
    for name, value in {
        "settings": runtime.settings,
        "nats settings": runtime.settings.nats,
        "s3 settings": runtime.settings.s3,
        "db settings": runtime.settings.db,
        "auth settings": runtime.settings.auth,
        "runtime": runtime,
        "broker": runtime.broker,
        "storage": runtime.storage,
        "engine": runtime.engine,
        "auth": app.api.state.auth,
    }.items():
        secret_watch.see(f"repr {name}", repr(value))
        secret_watch.see(f"str {name}", str(value))
    assert len(secret_watch.secrets) >= 5


async def test_an_unreachable_s3_names_no_key(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """A core whose S3 is a closed port: the upload is answered 503, and neither the
    answer nor the logs hold the S3 keys (watched by `secret_watch`)."""
    _, client = await core(oidc, s3={"s3_endpoint_url": f"http://127.0.0.1:{_closed_port()}"})
    upload = await client.post(
        "/api/v1/files",
        files={"file": (f"{uuid.uuid4().hex}.xlsx", _files.osv_xlsx())},
        headers=bearer(provider, "integrator"),
    )
    assert upload.status_code == 503, upload.text


async def test_an_unreachable_database_names_no_password(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider, secret_watch: SecretWatch
) -> None:
    """A core whose PostgreSQL, with a password, is a closed port: the listing is answered
    503 unavailable (never a 500 with the driver's traceback), and neither the answer nor
    the core's logs hold the password."""
    dead_db = f"postgresql+asyncpg://arm@127.0.0.1:{_closed_port()}/arm"
    _, client = await core(
        oidc, db={"db_url": dead_db, "db_password": DB_PASSWORD}, db_migrate_on_start=False
    )
    listing = await client.get("/api/v1/files", headers=bearer(provider, "integrator"))
    assert listing.status_code == 503, listing.text
    assert listing.json()["type"] == "urn:arm-ka:problem:unavailable"
    secret_watch.see("database error", listing.text)
