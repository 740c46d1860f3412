"""The provider's signing keys (its JWKS), cached so that the provider cannot be turned against us.

PyJWT's `PyJWKClient` starts its refetch cooldown only after a successful fetch and holds its
lock during the fetch, so tokens with made-up `kid`s refetch the set while the provider is slow
or down, and a valid token waits behind them. This cache instead:

- fetches single-flight (one fetch at a time, its waiters share its outcome);
- starts the cooldown at each fetch *attempt*, success or failure: an unknown `kid` causes at
  most one fetch per AUTH_JWKS_COOLDOWN_SECONDS, and a genuine key rotation is picked up at the
  next one;
- remembers unknown kids for the cooldown, so their tokens are refused at once instead of
  waiting for a fetch in flight;
- serves a cached key without waiting, ever: when the set is older than
  AUTH_JWKS_LIFESPAN_SECONDS it is refetched in the background while the cached keys go on
  serving (a dead provider keeps the last keys it published; a rotation away from them is
  picked up when it answers again).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import jwt
from jwt import PyJWK

from services.arm_core.auth.exceptions import NotAuthenticated
from services.arm_core.exceptions import Unavailable

__all__ = ["JwksCache", "parse_jwks"]

log = logging.getLogger("services.arm_core.auth")

# What a fetch answers: the JWKS document (a JSON object).
Fetch = Callable[[], Awaitable[dict[str, Any]]]

_UNKNOWN_MAX = 1024  # remembered unknown kids (a flood of made-up ones stays bounded)


def parse_jwks(document: dict[str, Any]) -> dict[str | None, PyJWK]:
    """The signing keys of a JWKS document by `kid` (keys for encryption or of an algorithm
    PyJWT cannot use are left out); `ValueError` when the document holds none."""
    found: dict[str | None, PyJWK] = {}
    keys = document.get("keys")
    if not isinstance(keys, list):
        msg = "the JWKS has no 'keys' list"
        raise ValueError(msg)
    for entry in keys:
        if not isinstance(entry, dict) or entry.get("use", "sig") != "sig":
            continue
        try:
            key = PyJWK(entry)
        except jwt.PyJWTError:
            continue
        found[key.key_id] = key
    if not found:
        msg = "the JWKS holds no usable signing key"
        raise ValueError(msg)
    return found


class JwksCache:
    """The keys of one JWKS, fetched by `fetch` (see the module's docstring for the rules)."""

    def __init__(
        self,
        fetch: Fetch,
        *,
        lifespan: float,
        cooldown: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._fetch = fetch
        self._lifespan = lifespan
        self._cooldown = cooldown
        self._clock = clock
        self._keys: dict[str | None, PyJWK] = {}
        self._fetched_at: float | None = None  # last successful fetch
        self._attempted_at: float | None = None  # last attempt, whatever its outcome
        self._inflight: asyncio.Task[None] | None = None
        self._unknown: dict[str | None, float] = {}  # kid -> remembered until
        self.fetches = 0  # attempts made (for the logs and tests)

    def __repr__(self) -> str:
        return f"JwksCache(keys={len(self._keys)}, fetches={self.fetches})"

    async def key(self, kid: str | None) -> PyJWK:
        """The key named `kid` (a set of one key serves a token without `kid`);
        `NotAuthenticated` when the provider does not publish it, `Unavailable` when its keys
        could not be fetched and none is cached."""
        now = self._clock()
        found = self._cached(kid)
        if found is not None:
            if self._stale(now) and self._may_attempt(now):
                self._start()  # refreshed in the background; the cached key serves now
            return found
        until = self._unknown.get(kid)
        if until is not None and until > now:
            raise NotAuthenticated("the token is signed by a key the provider does not publish")
        if self._inflight is None:
            if not self._may_attempt(now):
                self._remember_unknown(kid, now)
                if not self._keys:
                    raise Unavailable("the identity provider's keys could not be fetched")
                raise NotAuthenticated("the token is signed by a key the provider does not publish")
            self._start()
        assert self._inflight is not None
        try:
            await asyncio.shield(self._inflight)  # a waiter gone leaves the fetch running
        except (ValueError, Unavailable) as exc:
            if not self._keys:
                raise Unavailable("the identity provider's keys could not be fetched") from exc
        found = self._cached(kid)
        if found is None:
            self._remember_unknown(kid, self._clock())
            raise NotAuthenticated("the token is signed by a key the provider does not publish")
        return found

    def _cached(self, kid: str | None) -> PyJWK | None:
        if kid is None and len(self._keys) == 1:
            return next(iter(self._keys.values()))
        return self._keys.get(kid)

    def _stale(self, now: float) -> bool:
        return self._fetched_at is None or now - self._fetched_at >= self._lifespan

    def _may_attempt(self, now: float) -> bool:
        if self._inflight is not None:
            return False
        return self._attempted_at is None or now - self._attempted_at >= self._cooldown

    def _remember_unknown(self, kid: str | None, now: float) -> None:
        if len(self._unknown) >= _UNKNOWN_MAX:
            self._unknown = {k: t for k, t in self._unknown.items() if t > now}
            while len(self._unknown) >= _UNKNOWN_MAX:
                del self._unknown[next(iter(self._unknown))]
        self._unknown[kid] = now + self._cooldown

    def _start(self) -> None:
        self._attempted_at = self._clock()
        self.fetches += 1
        task = asyncio.create_task(self._refresh(), name="arm-core-jwks-fetch")
        self._inflight = task
        task.add_done_callback(self._settled)

    def _settled(self, task: asyncio.Task[None]) -> None:
        self._inflight = None
        if not task.cancelled() and task.exception() is not None:
            log.warning("could not fetch the identity provider's keys: %s", task.exception())

    async def _refresh(self) -> None:
        keys = parse_jwks(await self._fetch())
        self._keys = keys
        self._fetched_at = self._clock()
        self._unknown = {}  # a new set: a kid unknown before may be published now
