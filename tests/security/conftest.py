"""The security suite's stack: arm-core with authentication on, against the fake OpenID
Connect provider on loopback (tests/arm_core/auth/_provider.py), a nats-server that admits
only a user with the operator chain's JWT and seed (tests/runtime/nats_auth.py; the core's
broker is connected with them), the harness's real S3 (moto, with keys) and database (with a
password when it is PostgreSQL); `core(...)` answers an in-memory client on it (httpx's ASGI
transport: the whole middleware stack, as uvicorn runs it). `tabular_parser(settings)` runs
the recogniser on the same NATS, with the same credentials.

Every test is watched (`secret_watch`, autouse): no log record (any logger, before
redaction) and no answer of the core may hold a secret of the stack — the NATS JWT and
seed, the S3 keys, the database password, the cookie key.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
from faststream import TestApp
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.settings import CoreSettings
from services.devstack.embedded import NatsServer
from services.runtime.settings import S3Settings
from services.tabular_parser.app import create_app as create_tabular_parser
from services.tabular_parser.settings import TabularParserSettings
from tests.arm_core.auth.conftest import COOKIE_KEY, CoreFactory, core_factory, oidc, provider
from tests.arm_core.conftest import core_db_url, core_settings_on, engine, sessions, subjects
from tests.runtime.nats_auth import OperatorChain, make_operator_chain, operator_mode_server
from tests.support.nats_wire import round_trip
from tests.support.recognition_service import service_settings

from ._leaks import SecretWatch

__all__ = [
    "DB_PASSWORD",
    "core",
    "core_db_url",
    "core_settings",
    "engine",
    "nats_chain",
    "oidc",
    "provider",
    "secret_watch",
    "secured_nats",
    "sessions",
    "subjects",
    "tabular_parser",
]

# The database password of the stack (PostgreSQL's trust authentication takes it; SQLite
# has none, so tests/security/test_secrets.py also points a core at a closed port with it).
DB_PASSWORD = "db-pass-Zq7:@/x-0123456789"


@pytest.fixture(scope="session")
def nats_chain() -> OperatorChain:
    """The operator → account → user chain the suite's nats-server trusts."""
    return make_operator_chain()


@pytest.fixture(scope="session")
def secured_nats(
    nats_chain: OperatorChain, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[NatsServer]:
    """nats-server in operator mode: only users of the chain's account get in."""
    with operator_mode_server(nats_chain, tmp_path_factory.mktemp("op")) as server:
        yield server


def _credentials(chain: OperatorChain, server: NatsServer) -> dict[str, str]:
    return {"nats_url": server.url, "nats_jwt": chain.user_jwt, "nats_seed": chain.user_seed}


@pytest.fixture
def core_settings(
    core_db_url: str,
    subjects: dict[str, str],
    nats_chain: OperatorChain,
    secured_nats: NatsServer,
) -> Callable[..., CoreSettings]:
    """CoreSettings on the secured NATS (JWT and seed), the test database (its password on
    PostgreSQL) and unique subjects; keyword overrides by field."""
    db: dict[str, Any] = {"db_url": core_db_url}
    if core_db_url.startswith("postgresql"):
        db["db_password"] = DB_PASSWORD
    nats = {**subjects, **_credentials(nats_chain, secured_nats)}
    return core_settings_on({"db": db, "nats": nats})


@pytest.fixture(autouse=True)
def secret_watch(nats_chain: OperatorChain, s3_settings: S3Settings) -> Iterator[SecretWatch]:
    """Every log record of the test (the services' loggers from DEBUG, the rest from INFO,
    as a service runs) and every answer of `core`: none may hold a secret of the stack."""
    keys = (s3_settings.s3_access_key, s3_settings.s3_secret_key)
    watch = SecretWatch(
        [
            nats_chain.user_jwt,
            nats_chain.user_seed,
            *(k.get_secret_value() for k in keys if k is not None),
            DB_PASSWORD,
            COOKIE_KEY,
        ]
    )
    root, ours = logging.getLogger(), logging.getLogger("services")
    levels = root.level, ours.level
    root.addHandler(watch)
    root.setLevel(logging.INFO)
    ours.setLevel(logging.DEBUG)
    try:
        yield watch
    finally:
        root.removeHandler(watch)
        root.setLevel(levels[0])
        ours.setLevel(levels[1])
    assert watch.leaks() == []


@pytest.fixture
async def core(
    core_settings: Callable[..., CoreSettings],
    s3_settings: S3Settings,
    bucket: str,
    sessions: async_sessionmaker[AsyncSession],
    secret_watch: SecretWatch,
) -> AsyncIterator[CoreFactory]:
    """A factory of cores with their brokers connected to the secured NATS; every answer is
    watched for secrets."""
    async with core_factory(
        core_settings, s3_settings, bucket, connect=True, watch=secret_watch.answer
    ) as make:
        yield make


@pytest.fixture
async def tabular_parser(
    nats_chain: OperatorChain,
    secured_nats: NatsServer,
    subjects: dict[str, str],
    s3_settings: S3Settings,
) -> AsyncIterator[Callable[..., contextlib.AbstractAsyncContextManager[TabularParserSettings]]]:
    """`async with tabular_parser(): ...` runs the real tabular-parser on the core's subjects
    of the test, connected to the secured NATS with the chain's JWT and seed."""

    @contextlib.asynccontextmanager
    async def run(**overrides: Any) -> AsyncIterator[TabularParserSettings]:
        settings = service_settings(
            TabularParserSettings,
            s3_settings,
            nats={**subjects, **_credentials(nats_chain, secured_nats)},
            **overrides,
        )
        app = create_tabular_parser(settings)
        async with TestApp(app):
            await round_trip(app.broker.connection)  # type: ignore[union-attr]
            yield settings

    yield run
