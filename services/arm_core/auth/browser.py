"""What a browser may not be made to do: cross-site requests, DNS rebinding, framing.

`BrowserGuard` (pure ASGI, outside the routes and the body guard):

- the unauthenticated loopback mode answers only requests whose `Host` is a loopback name
  (localhost, 127.0.0.0/8, [::1]): a page of another site cannot reach it by making its own
  name resolve to 127.0.0.1 (DNS rebinding);
- an unsafe request (POST, PUT, PATCH, DELETE) authenticated by cookie (the login's cookies,
  or the loopback mode, where the browser itself is the credential) must be same-origin: a
  `Sec-Fetch-Site` other than same-origin / none, or an `Origin` other than the request's own,
  is refused 403;
- with a provider, such a request must also carry the CSRF token (`X-CSRF-Token`, which the
  pages' script sends from their `<meta name="csrf-token">`): an HMAC-signed random value
  kept in the HttpOnly, SameSite=Strict cookie `arm_ka_csrf` (double submit; the signature
  keeps a cookie planted by a sibling site from being accepted). Requests with an
  `Authorization` header (bearer API clients) are not cookie-authenticated and pass.

`SecurityHeaders` puts the CSP (`script-src 'self'`, `frame-ancestors 'none'`), nosniff,
`Referrer-Policy: same-origin` and, over https, HSTS on every answer, error pages included.
The scheme is uvicorn's: it trusts X-Forwarded-Proto only from FORWARDED_ALLOW_IPS (its
default: 127.0.0.1), so a client cannot claim https itself.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from fastapi import Request
from starlette.datastructures import Headers
from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Receive, Scope, Send

from services.arm_core.auth.asgi import HeaderList, HeaderMiddleware, adding_headers
from services.arm_core.auth.exceptions import Forbidden
from services.arm_core.auth.guard import ErrorResponder
from services.arm_core.auth.session import REFRESH_COOKIE, TOKEN_COOKIE
from services.arm_core.settings import is_loopback_host

__all__ = [
    "CONTENT_SECURITY_POLICY",
    "CSRF_COOKIE",
    "CSRF_HEADER",
    "BrowserGuard",
    "SecurityHeaders",
    "csrf_token_of",
]

CSRF_COOKIE = "arm_ka_csrf"
CSRF_HEADER = "x-csrf-token"
_STATE = "csrf_token"  # in scope["state"]: the token the page's meta tag carries
_SAFE = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
_CROSS = frozenset({"cross-site", "same-site"})

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
)
_HSTS = (b"strict-transport-security", b"max-age=31536000; includeSubDomains")


def csrf_token_of(request: Request) -> str:
    """The CSRF token of `request`'s page (for its `<meta name="csrf-token">`)."""
    token = request.scope.get("state", {}).get(_STATE)
    return token if isinstance(token, str) else ""


class BrowserGuard:
    """The ASGI middleware (`app.add_middleware(BrowserGuard, ...)`); see the module."""

    def __init__(
        self, app: ASGIApp, *, respond: ErrorResponder, key: bytes, authenticated: bool
    ) -> None:
        self.app = app
        self._respond = respond
        self._key = key
        self._authenticated = authenticated

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        cookies = _cookies(headers)
        sent = cookies.get(CSRF_COOKIE)
        token = sent if sent is not None and self._valid(sent) else None
        refusal = self._refusal(scope, headers, cookies, token)
        if refusal is not None:
            await self._respond(Request(scope), Forbidden(refusal))(scope, receive, send)
            return
        fresh = token is None
        if token is None:
            token = self._new_token()
        scope.setdefault("state", {})[_STATE] = token
        secure = scope.get("scheme") == "https"

        def cookie(headers: HeaderList) -> HeaderList:
            kind = Headers(raw=headers).get("content-type", "")
            if not fresh or not kind.startswith("text/html"):
                return []
            value = f"{CSRF_COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict"
            return [(b"set-cookie", (value + "; Secure" if secure else value).encode("latin-1"))]

        await self.app(scope, receive, adding_headers(send, cookie))

    def _refusal(
        self, scope: Scope, headers: Headers, cookies: dict[str, str], token: str | None
    ) -> str | None:
        if not self._authenticated and not _loopback_host(headers.get("host")):
            return "this unauthenticated arm-core answers loopback host names only"
        if scope["method"] in _SAFE or "authorization" in headers:
            return None
        by_cookie = not self._authenticated or TOKEN_COOKIE in cookies or REFRESH_COOKIE in cookies
        if not by_cookie:
            return None
        if headers.get("sec-fetch-site", "").lower() in _CROSS:
            return "a cross-site request may not change anything here"
        origin = headers.get("origin")
        if origin is not None and origin != _own_origin(scope, headers):
            return "a request from another origin may not change anything here"
        if not self._authenticated:
            return None
        given = headers.get(CSRF_HEADER)
        if token is None or given is None or not hmac.compare_digest(given, token):
            return "the page's CSRF token is missing or wrong; reload the page"
        return None

    def _sign(self, nonce: str) -> str:
        mac = hmac.new(self._key, nonce.encode("ascii"), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac).rstrip(b"=").decode("ascii")

    def _new_token(self) -> str:
        nonce = secrets.token_urlsafe(24)
        return f"{nonce}.{self._sign(nonce)}"

    def _valid(self, token: str) -> bool:
        nonce, _, mac = token.partition(".")
        if not nonce or not mac or not nonce.isascii():
            return False
        return hmac.compare_digest(mac, self._sign(nonce))


class SecurityHeaders(HeaderMiddleware):
    """Adds the security headers to every HTTP answer (keeping any a route set itself)."""

    def extra(self, scope: Scope, headers: HeaderList) -> HeaderList:
        wanted = [*_HEADERS, _HSTS] if scope.get("scheme") == "https" else list(_HEADERS)
        present = {name.lower() for name, _ in headers}
        return [pair for pair in wanted if pair[0] not in present]


def _cookies(headers: Headers) -> dict[str, str]:
    return cookie_parser(headers.get("cookie", ""))


def _loopback_host(host: str | None) -> bool:
    if not host:
        return False
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    if name.startswith("[") and "]" in name:
        name = name[1 : name.index("]")]
    return is_loopback_host(name.lower())


def _own_origin(scope: Scope, headers: Headers) -> str:
    scheme = scope.get("scheme", "http")
    host = headers.get("host", "")
    default = {"http": ":80", "https": ":443"}.get(scheme, "")
    if default and host.endswith(default):
        host = host[: -len(default)]
    return f"{scheme}://{host}"
