"""`require(role)`: the FastAPI dependency that says who a request acts as, or refuses it.

Credentials are the `Authorization: Bearer` header or, for the page, the HttpOnly cookie the
login sets (the header wins; a bad header is refused, never replaced by the cookie). A page
request that also carries the login's refresh cookie has its expired access token renewed
(session.py); a request with an Authorization header never does. Without an
issuer (the embedded default) there are no credentials: a request from a loopback client acts
as `Principal("local", all roles)`; any other client is refused, so a core started without an
issuer on another address by something other than `serve` or the uvicorn CLI (which refuse to
start, see bind.py) still serves nobody but its own machine.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.requests import HTTPConnection
from fastapi.security import APIKeyCookie, HTTPAuthorizationCredentials, HTTPBearer

from services.arm_core.auth.bind import is_loopback
from services.arm_core.auth.exceptions import Forbidden, NotAuthenticated
from services.arm_core.auth.principal import LOCAL, ROLES, Principal
from services.arm_core.auth.provider import OidcProvider
from services.arm_core.auth.seal import CookieSeal, derive_key
from services.arm_core.auth.session import REFRESH_COOKIE, TOKEN_COOKIE, PageSession
from services.arm_core.settings import AuthSettings

__all__ = [
    "Authenticator",
    "authenticated",
    "authenticator",
    "authorize",
    "principal_of",
    "remember",
    "require",
    "roles_required",
]

log = logging.getLogger("services.arm_core.auth")

# The roles each dependency made by `require` asks for (read by the body guard, guard.py).
_REQUIRED: dict[Callable[..., Any], tuple[str, ...]] = {}

_bearer = HTTPBearer(
    auto_error=False,
    scheme_name="bearer",
    bearerFormat="JWT",
    description="An access token of the OpenID Connect provider (OPENBAO__AUTH__AUTH_ISSUER).",
)
_cookie = APIKeyCookie(
    name=TOKEN_COOKIE,
    auto_error=False,
    scheme_name="cookie",
    description="The same token, set HttpOnly by the page's login (/auth/login).",
)


class Authenticator:
    """The core's way of knowing who asks: the provider, or the unauthenticated default."""

    def __init__(self, settings: AuthSettings) -> None:
        self.settings = settings
        self.provider = OidcProvider(settings) if settings.enabled else None
        self.seal = CookieSeal(
            derive_key(settings.auth_cookie_key.get_secret_value())
            if settings.auth_cookie_key is not None
            else None
        )
        self.session = (
            PageSession(
                self.provider, self.seal, renewals_per_minute=settings.auth_renewals_per_minute
            )
            if self.provider is not None
            else None
        )
        self._warned_remote = False

    def __repr__(self) -> str:
        return f"Authenticator(provider={self.provider!r})"

    async def principal(
        self, request: Request, bearer: str | None, cookie: str | None
    ) -> Principal:
        """Who `request` acts as, from its bearer token or else its login cookie (renewed
        with the refresh cookie when it has one); `NotAuthenticated` when that cannot be told."""
        if self.provider is None or self.session is None:
            return self._local(request)
        if bearer is None and request.headers.get("authorization"):
            raise NotAuthenticated("the Authorization header must be 'Bearer <token>'")
        if bearer:
            return (await self.provider.verify(bearer)).principal
        refresh = request.cookies.get(REFRESH_COOKIE)
        if refresh:
            return await self.session.principal(request, cookie, refresh)
        if not cookie:
            raise NotAuthenticated("a bearer token (or the login cookie) is required", error=None)
        return (await self.provider.verify(cookie)).principal

    def _local(self, request: Request) -> Principal:
        client = request.client.host if request.client else None
        if is_loopback(client):
            return LOCAL
        if not self._warned_remote:
            self._warned_remote = True
            log.error(
                "a non-loopback client reached this unauthenticated arm-core and was refused; "
                "configure OPENBAO__AUTH__AUTH_ISSUER to serve other machines"
            )
        raise Forbidden(
            "this arm-core has no identity provider configured and serves loopback clients only"
        )


def authenticator(request: Request) -> Authenticator:
    """The application's `Authenticator` (`app.state.auth`, set by create_app)."""
    found = getattr(request.app.state, "auth", None)
    if not isinstance(found, Authenticator):
        msg = "app.state.auth is not set: install the auth package on the app (create_app)"
        raise RuntimeError(msg)
    return found


def require(role: str, *more: str) -> Callable[..., Awaitable[Principal]]:
    """A dependency that answers the request's principal when it holds `role` (or one of
    `more`, or admin, who may do everything); 401 without valid credentials, 403 without the
    role. `Depends(require("analyst"))`; reads take `require("integrator", "analyst")`."""
    wanted = (role, *more)
    unknown = set(wanted) - ROLES
    if unknown:
        msg = f"unknown roles {sorted(unknown)}; the roles are {sorted(ROLES)}"
        raise ValueError(msg)

    async def dependency(
        request: Request,
        bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
        cookie: Annotated[str | None, Depends(_cookie)],
    ) -> Principal:
        principal = authenticated(request)
        if principal is None:  # no guard ran (a request without a body): verify here
            token = bearer.credentials if bearer is not None else None
            principal = await authenticator(request).principal(request, token, cookie)
        authorize(principal, wanted)
        remember(request, principal)
        return principal

    dependency.__name__ = f"require_{'_or_'.join(wanted)}"
    _REQUIRED[dependency] = wanted
    return dependency


def remember(request: HTTPConnection, principal: Principal) -> None:
    """Record who `request` acts as in its ASGI scope (`scope["state"]`), so that what runs
    after (the route's dependency after the body guard) does not verify the token again."""
    request.state.principal = principal


def authenticated(request: HTTPConnection) -> Principal | None:
    """Who `request` was already found to act as (`remember`), or None."""
    found = getattr(request.state, "principal", None)
    return found if isinstance(found, Principal) else None


async def principal_of(request: Request) -> Principal:
    """Who `request` acts as, from its headers alone, as `require` tells it (for the body
    guard, which runs before routing)."""
    bearer = await _bearer(request)
    cookie = await _cookie(request)
    token = bearer.credentials if bearer is not None else None
    return await authenticator(request).principal(request, token, cookie)


def authorize(principal: Principal, wanted: tuple[str, ...]) -> None:
    """`Forbidden` unless `principal` holds one of `wanted` (or is an admin)."""
    if not principal.may(*wanted):
        needs = " or ".join(wanted)
        held = ", ".join(sorted(principal.roles)) or "none"
        raise Forbidden(
            f"this needs the role {needs} (or admin); the caller has: {held}",
            needs=wanted,
            held=principal.roles,
        )


def roles_required(call: Callable[..., Any] | None) -> tuple[str, ...] | None:
    """The roles `call` asks for when it is a dependency made by `require`; else None."""
    return _REQUIRED.get(call) if call is not None else None
