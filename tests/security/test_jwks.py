"""The provider cannot be turned against us (issue 27, item 4): made-up `kid`s and a slow or
dead provider never delay a token whose key is cached, and refetch the JWKS at most once per
cooldown whatever the outcome."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from services.arm_core.auth.exceptions import NotAuthenticated
from services.arm_core.auth.keys import JwksCache
from services.arm_core.exceptions import Unavailable
from tests.arm_core.auth._provider import FakeProvider, SigningKey
from tests.arm_core.auth.conftest import CoreFactory

pytestmark = [pytest.mark.db, pytest.mark.wire]


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_a_slow_provider_does_not_stall_a_valid_token(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """Six tokens with made-up kids while the JWKS takes 3 s to answer: the valid token is
    answered at once (PyJWT's client made it wait 12 s), and the JWKS is fetched once more
    at most."""
    _, client = await core({**oidc, "auth_jwks_cooldown_seconds": 60})
    valid = provider.token()
    assert (await client.get("/api/v1/files", headers=_bearer(valid))).status_code == 200
    provider.jwks_delay = 3.0
    forged = [provider.token(key=SigningKey(f"made-up-{n}")) for n in range(6)]
    attacks = [asyncio.create_task(client.get("/api/v1/files", headers=_bearer(t))) for t in forged]
    await asyncio.sleep(0.2)  # the first made-up kid's fetch is in flight
    started = time.monotonic()
    answer = await client.get("/api/v1/files", headers=_bearer(valid))
    waited = time.monotonic() - started
    assert answer.status_code == 200
    assert waited < 1.5
    assert {r.status_code for r in await asyncio.gather(*attacks)} == {401}
    assert provider.jwks_fetches <= 2


async def test_a_failed_fetch_starts_the_cooldown_too(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """With the JWKS answering 503, a flood of made-up kids makes one fetch per cooldown
    (PyJWT retried each one: its cooldown began only after a success)."""
    _, client = await core({**oidc, "auth_jwks_cooldown_seconds": 3})
    valid = provider.token()
    assert (await client.get("/api/v1/files", headers=_bearer(valid))).status_code == 200
    provider.jwks_status = 503
    forged = [provider.token(key=SigningKey(f"made-up-{n}")) for n in range(10)]
    await asyncio.sleep(3.1)  # the first fetch's cooldown over: the next kid may fetch
    answers = await asyncio.gather(
        *(client.get("/api/v1/files", headers=_bearer(t)) for t in forged)
    )
    assert {a.status_code for a in answers} == {401}
    assert provider.jwks_fetches == 2
    assert (await client.get("/api/v1/files", headers=_bearer(valid))).status_code == 200


async def test_a_rotation_is_picked_up_at_the_next_fetch(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """A genuine key rotation: the new kid is fetched once the cooldown has passed."""
    _, client = await core({**oidc, "auth_jwks_cooldown_seconds": 0.5})
    assert (await client.get("/api/v1/files", headers=_bearer(provider.token()))).status_code == 200
    provider.rotate("key-2")
    await asyncio.sleep(0.6)
    new = provider.token()
    assert (await client.get("/api/v1/files", headers=_bearer(new))).status_code == 200
    assert provider.jwks_fetches == 2


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def test_the_cache_rules() -> None:
    """Unit rules of `JwksCache`: unknown kids remembered, a stale set served while it is
    refetched, a first fetch failing is `Unavailable` (no verdict on the token)."""
    key = SigningKey("k1")
    calls: list[float] = []
    gate = asyncio.Event()
    fail = False

    async def fetch() -> dict[str, Any]:
        calls.append(clock.now)
        if fail:
            raise Unavailable("down")
        await gate.wait()
        return {"keys": [key.jwk()]}

    clock = _Clock()
    cache = JwksCache(fetch, lifespan=300, cooldown=30, clock=clock)
    gate.set()
    assert (await cache.key("k1")).key_id == "k1"
    with pytest.raises(NotAuthenticated):
        await cache.key("nope")  # within the cooldown of the first fetch: no fetch
    assert len(calls) == 1

    clock.now = 400.0  # stale: served at once, refetched in the background
    gate.clear()
    assert (await cache.key("k1")).key_id == "k1"
    await asyncio.sleep(0)
    assert len(calls) == 2  # the refetch waits on the provider (the gate)
    assert (await cache.key("k1")).key_id == "k1"  # one fetch in flight, not a second
    await asyncio.sleep(0)
    assert len(calls) == 2
    gate.set()
    await asyncio.sleep(0)

    fail = True
    down = JwksCache(fetch, lifespan=300, cooldown=30, clock=clock)
    with pytest.raises(Unavailable):
        await down.key("k1")
    with pytest.raises(Unavailable):
        await down.key("k1")  # the failed attempt started the cooldown
    assert len(calls) == 3
