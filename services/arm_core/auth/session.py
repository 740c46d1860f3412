"""The page's session: its two cookies, and renewing the access token with the refresh token.

The login (login.py) keeps the provider's access token in `arm_ka_token` (path /, until it
expires) and its refresh token in `arm_ka_refresh` (path /ui: only the pages send it; until the
provider's `refresh_expires_in`, else for the browser session), both HttpOnly, SameSite=Lax and
Secure over https. When a page request (never one with an Authorization header) comes with a
refresh cookie and an access cookie that is missing (the browser dropped it at its expiry),
refused, or valid for less than `RENEW_AHEAD_SECONDS`, the core trades the refresh token at the
provider's token endpoint (grant_type=refresh_token) and serves the request as the user of the
new access token; the new cookies go on whatever the request is answered with
(`SessionCookies`). A refused renewal (a revoked or ended session) clears the refresh cookie and
the request is refused as before: the page's login redirect.

Renewals are single-flight per process and refresh token: concurrent requests with the same
refresh token (a page's parallel htmx requests) wait for the one renewal and all take its
tokens; for `_GRACE_SECONDS` after it, a request still carrying the old refresh token (sent
before the browser stored the new cookies) takes the same tokens too, so a provider that
rotates refresh tokens (Keycloak's "Revoke Refresh Token") sees each token traded once.
Tokens never reach a log line, a repr or an error text; the cache is keyed by their SHA-256.

The refresh cookie holds the refresh token sealed under the server's key with the subject it
was issued to (seal.py): a cookie that does not open is cleared and never reaches the provider.
New renewals (not the requests that join one) are limited to AUTH_RENEWALS_PER_MINUTE per
subject, so one user hammering renewals never locks out the others; past it that user's
request is served by its access token while that is valid, else answered 503 (try again).
The buckets of the `_SUBJECTS_MAX` most recent subjects are kept (decision 0038).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import logging
import time
from collections import OrderedDict
from dataclasses import dataclass, field, replace

from starlette.requests import HTTPConnection
from starlette.responses import Response
from starlette.types import Scope

from services.arm_core.auth.asgi import HeaderList, HeaderMiddleware
from services.arm_core.auth.exceptions import NotAuthenticated
from services.arm_core.auth.principal import Principal
from services.arm_core.auth.provider import OidcProvider, VerifiedToken
from services.arm_core.auth.seal import CookieSeal, SealedRefresh
from services.arm_core.exceptions import Unavailable

__all__ = [
    "REFRESH_COOKIE",
    "REFRESH_PATH",
    "RENEW_AHEAD_SECONDS",
    "TOKEN_COOKIE",
    "PageSession",
    "SessionCookies",
    "TokenSet",
    "clear_session",
    "set_session",
    "token_set",
]

TOKEN_COOKIE = "arm_ka_token"
REFRESH_COOKIE = "arm_ka_refresh"
# The pages' prefix (services/arm_core/web): the only requests that renew a session.
REFRESH_PATH = "/ui"
RENEW_AHEAD_SECONDS = 30.0

# Browsers drop a cookie above 4096 bytes (name and attributes included).
_MAX_TOKEN_BYTES = 3800
_GRACE_SECONDS = 30.0
_RECENT_MAX = 1024
# Renewal buckets kept (one per subject, least recently renewing dropped first): a dropped
# subject starts again with a full bucket, so this bounds memory, not any one user's rate.
_SUBJECTS_MAX = 4096
_PENDING = "arm_ka_session_cookies"  # in scope["state"]

log = logging.getLogger("services.arm_core.auth")


@dataclass(frozen=True, slots=True)
class TokenSet:
    """What the token endpoint answered: the access token, and the refresh token (with its
    lifetime in seconds) when the provider gave one. The values stay out of the repr."""

    access: str = field(repr=False)
    refresh: str | None = field(default=None, repr=False)
    refresh_lifetime: int | None = None
    # The refresh cookie's value once sealed (a renewal's waiters all get the same cookie).
    sealed: str | None = field(default=None, repr=False)


def token_set(answer: dict[str, object]) -> TokenSet:
    """The `TokenSet` of a token endpoint's answer (`OidcProvider.grant`)."""
    access = answer.get("access_token")
    assert isinstance(access, str)  # grant() answers only with one
    refresh = answer.get("refresh_token")
    lifetime = answer.get("refresh_expires_in")
    return TokenSet(
        access,
        refresh if isinstance(refresh, str) and refresh else None,
        lifetime if isinstance(lifetime, int) and lifetime > 0 else None,
    )


def set_session(
    response: Response,
    tokens: TokenSet,
    verified: VerifiedToken,
    *,
    secure: bool,
    seal: CookieSeal,
) -> None:
    """Put the session's cookies on `response`: the access token until it expires, the
    refresh token (sealed by `seal`) when there is one that fits a cookie. `Unavailable` when
    the access token does not fit."""
    if len(tokens.access) > _MAX_TOKEN_BYTES:
        raise Unavailable("the provider's access token is too large to keep in a cookie")
    lifetime = int((verified.expires_at - dt.datetime.now(dt.UTC)).total_seconds())
    response.set_cookie(
        TOKEN_COOKIE,
        tokens.access,
        max_age=max(lifetime, 0),
        path="/",
        secure=secure,
        httponly=True,
        samesite="lax",
    )
    if tokens.refresh is None:
        return
    sealed = tokens.sealed or seal.seal_refresh(verified.principal.subject, tokens.refresh)
    if len(sealed) > _MAX_TOKEN_BYTES:
        log.warning(
            "the provider's refresh token (%d bytes) is too large to keep in a cookie; the "
            "page logs in again when the access token expires",
            len(tokens.refresh),
        )
        _clear_refresh(response, secure=secure)
        return
    response.set_cookie(
        REFRESH_COOKIE,
        sealed,
        max_age=tokens.refresh_lifetime,
        path=REFRESH_PATH,
        secure=secure,
        httponly=True,
        samesite="lax",
    )


def clear_session(response: Response, *, secure: bool) -> None:
    """Expire both cookies (the logout)."""
    response.delete_cookie(TOKEN_COOKIE, path="/", secure=secure, httponly=True, samesite="lax")
    _clear_refresh(response, secure=secure)


def _clear_refresh(response: Response, *, secure: bool) -> None:
    response.delete_cookie(
        REFRESH_COOKIE, path=REFRESH_PATH, secure=secure, httponly=True, samesite="lax"
    )


def _pend(request: HTTPConnection, response: Response) -> None:
    """Keep the Set-Cookie headers of `response` for the request's real answer."""
    headers = [(k, v) for k, v in response.raw_headers if k == b"set-cookie"]
    request.state.arm_ka_session_cookies = headers  # read back by SessionCookies


@dataclass(frozen=True, slots=True)
class _Renewed:
    tokens: TokenSet
    verified: VerifiedToken


class _RateLimit:
    """At most `per_minute` events in any sliding minute (a token bucket refilled evenly)."""

    def __init__(self, per_minute: int) -> None:
        self._capacity = float(per_minute)
        self._tokens = float(per_minute)
        self._rate = per_minute / 60.0
        self._at = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self._tokens = min(self._capacity, self._tokens + (now - self._at) * self._rate)
        self._at = now
        if self._tokens < 1.0:
            return False
        self._tokens -= 1.0
        return True


class _RenewalLimits:
    """A `_RateLimit` per subject, for the `_SUBJECTS_MAX` subjects that renewed last."""

    def __init__(self, per_minute: int) -> None:
        self._per_minute = per_minute
        self._buckets: OrderedDict[str, _RateLimit] = OrderedDict()

    def take(self, subject: str) -> bool:
        bucket = self._buckets.pop(subject, None) or _RateLimit(self._per_minute)
        self._buckets[subject] = bucket
        while len(self._buckets) > _SUBJECTS_MAX:
            self._buckets.popitem(last=False)
        return bucket.take()

    def __len__(self) -> int:
        return len(self._buckets)


class PageSession:
    """Renews the page's access token with its refresh token (single-flight, see above)."""

    def __init__(
        self, provider: OidcProvider, seal: CookieSeal, *, renewals_per_minute: int
    ) -> None:
        self.provider = provider
        self.seal = seal
        self._limits = _RenewalLimits(renewals_per_minute)
        self._inflight: dict[str, asyncio.Task[_Renewed]] = {}
        self._recent: dict[str, tuple[float, _Renewed]] = {}

    def __repr__(self) -> str:
        return f"PageSession(provider={self.provider!r})"

    async def principal(
        self, request: HTTPConnection, access: str | None, sealed: str
    ) -> Principal:
        """Who the page's `request` acts as: the access cookie's user while it is valid for a
        while yet, else the user of the renewed token (its cookies pending on the answer).
        A refresh cookie that does not open is cleared and the access cookie alone decides."""
        secure = request.url.scheme == "https"
        refresh = self.seal.open_refresh(sealed)
        if refresh is None:
            cleared = Response()
            _clear_refresh(cleared, secure=secure)
            _pend(request, cleared)
            if not access:
                raise NotAuthenticated("the session has ended; log in again", error=None)
            return (await self.provider.verify(access)).principal
        current: VerifiedToken | None = None
        if access:
            try:
                current = await self.provider.verify(access)
            except NotAuthenticated:
                current = None
            if current is not None and _seconds_left(current) > RENEW_AHEAD_SECONDS:
                return current.principal
        try:
            renewed = await self._renewed(refresh)
        except NotAuthenticated:
            cleared = Response()
            _clear_refresh(cleared, secure=secure)
            _pend(request, cleared)
            if current is not None:
                return current.principal
            raise
        except Unavailable:
            if current is not None:
                return current.principal
            raise
        cookies = Response()
        set_session(cookies, renewed.tokens, renewed.verified, secure=secure, seal=self.seal)
        _pend(request, cookies)
        return renewed.verified.principal

    async def _renewed(self, refresh: SealedRefresh) -> _Renewed:
        key = hashlib.sha256(refresh.token.encode()).hexdigest()
        now = time.monotonic()
        recent = self._recent.get(key)
        if recent is not None and recent[0] > now:
            return recent[1]
        task = self._inflight.get(key)
        if task is None:
            if not self._limits.take(refresh.subject):
                log.warning(
                    "session renewals of %s are over AUTH_RENEWALS_PER_MINUTE; one refused",
                    refresh.subject,
                )
                raise Unavailable("too many session renewals at once; try again shortly")
            task = asyncio.create_task(self._renew(refresh.token))
            self._inflight[key] = task
            task.add_done_callback(lambda done: self._settled(key, done))
        # A waiter that goes away (a client gone) leaves the renewal to the others.
        return await asyncio.shield(task)

    def _settled(self, key: str, task: asyncio.Task[_Renewed]) -> None:
        self._inflight.pop(key, None)
        if task.cancelled() or task.exception() is not None:
            return
        now = time.monotonic()
        self._recent = {k: v for k, v in self._recent.items() if v[0] > now}
        while len(self._recent) >= _RECENT_MAX:
            del self._recent[next(iter(self._recent))]
        self._recent[key] = (now + _GRACE_SECONDS, task.result())

    async def _renew(self, refresh: str) -> _Renewed:
        answer = await self.provider.grant(
            {"grant_type": "refresh_token", "refresh_token": refresh},
            what="the renewal of the session",
        )
        tokens = token_set(answer)
        verified = await self.provider.verify(tokens.access)
        if tokens.refresh is not None:
            subject = verified.principal.subject
            tokens = replace(tokens, sealed=self.seal.seal_refresh(subject, tokens.refresh))
        log.info("renewed the page session of %s at the provider", verified.principal.subject)
        return _Renewed(tokens, verified)


def _seconds_left(verified: VerifiedToken) -> float:
    return (verified.expires_at - dt.datetime.now(dt.UTC)).total_seconds()


class SessionCookies(HeaderMiddleware):
    """The ASGI middleware that adds a renewal's cookies (or the refresh cookie's clearing)
    to the request's answer, whichever layer answers it: the route, a refusal, the guard."""

    def extra(self, scope: Scope, headers: HeaderList) -> HeaderList:
        found: HeaderList = scope.get("state", {}).get(_PENDING) or []
        return found
