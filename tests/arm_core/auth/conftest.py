"""Fixtures of the authentication tests: the fake provider on loopback and arm-core on it.

`core(auth=..., base_url=..., client=..., **settings)` builds the core (real S3 and database of the
harness, lifespan running) with the given `OPENBAO__AUTH__*` values and answers an in-memory
HTTP client on it; `oidc` is the usual set of those values for `provider`.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.app import CoreApp, create_app
from services.arm_core.settings import CoreSettings
from services.runtime.settings import S3Settings

from ._provider import AUDIENCE, CLIENT_ID, FakeProvider

# The refresh cookie's sealing secret of the tests (OPENBAO__AUTH__AUTH_COOKIE_KEY).
COOKIE_KEY = "test-cookie-key-0123456789abcdef-0123456789"

CoreFactory = Callable[..., Awaitable[tuple[CoreApp, httpx.AsyncClient]]]


@pytest.fixture
def provider() -> Iterator[FakeProvider]:
    """The fake provider, started on a free loopback port for one test."""
    running = FakeProvider().start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def oidc(provider: FakeProvider) -> dict[str, Any]:
    """AuthSettings values trusting `provider` (JWKS refresh cooldown off unless overridden,
    the refresh cookie sealed under `COOKIE_KEY`)."""
    return {
        "auth_issuer": provider.issuer,
        "auth_client_id": CLIENT_ID,
        "auth_audience": AUDIENCE,
        "auth_jwks_cooldown_seconds": 0,
        "auth_cookie_key": COOKIE_KEY,
    }


@contextlib.asynccontextmanager
async def core_factory(
    core_settings: Callable[..., CoreSettings],
    s3_settings: S3Settings,
    bucket: str,
    *,
    connect: bool = False,
    watch: Callable[[httpx.Response], Awaitable[None]] | None = None,
) -> AsyncIterator[CoreFactory]:
    """A factory of cores on the harness's S3 and database (`connect`: with the broker
    started on the settings' NATS; `watch`: called with every answer), each closed when the
    context ends."""
    async with contextlib.AsyncExitStack() as stack:

        async def make(
            auth: dict[str, Any] | None = None,
            *,
            base_url: str | None = None,
            client: tuple[str, int] = ("127.0.0.1", 50000),
            **overrides: Any,
        ) -> tuple[CoreApp, httpx.AsyncClient]:
            s3 = {**s3_settings.model_dump(), "s3_bucket": bucket, **overrides.pop("s3", {})}
            settings = core_settings(s3=s3, auth=auth or {}, **overrides)
            app = create_app(settings, run_background=False)
            await stack.enter_async_context(app.api.router.lifespan_context(app.api))
            if connect:
                await app.core.broker.start()
                stack.push_async_callback(app.core.broker.stop)
            transport = httpx.ASGITransport(app=app, client=client)
            if base_url is None:  # the unauthenticated core answers loopback names only
                base_url = "http://core" if auth else "http://127.0.0.1"
            hooks = {"response": [watch]} if watch is not None else {}
            http = await stack.enter_async_context(
                httpx.AsyncClient(transport=transport, base_url=base_url, event_hooks=hooks)
            )
            return app, http

        yield make


@pytest.fixture
async def core(
    core_settings: Callable[..., CoreSettings],
    s3_settings: S3Settings,
    bucket: str,
    sessions: async_sessionmaker[AsyncSession],
) -> AsyncIterator[CoreFactory]:
    """A factory of cores on the harness's S3 and database, closed at the end of the test."""
    async with core_factory(core_settings, s3_settings, bucket) as make:
        yield make
