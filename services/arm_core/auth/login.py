"""The page's login through the provider: authorization code with PKCE (RFC 7636, S256).

- `GET /auth/login?next=/path`: a fresh `state` and code verifier go into a short-lived
  HttpOnly cookie (path /auth), and the browser is sent to the provider's authorization
  endpoint (from its discovery document) with the S256 challenge of the verifier;
- `GET /auth/callback?code=…&state=…`: the state must equal the cookie's, the code is
  exchanged at the token endpoint with the verifier (and the client secret, when the client is
  confidential), the access token is checked like any bearer token, and the session's cookies
  are set (session.py: the access token in `arm_ka_token` until it expires, the refresh token
  in `arm_ka_refresh` for the pages to renew it; HttpOnly, SameSite=Lax, Secure when the page
  is served over https); then back to `next`;
- `GET /auth/logout`: both cookies are cleared and the browser sent to the provider's
  end-session endpoint when it has one (which ends the provider's session, and with it the
  refresh token).

SameSite=Lax keeps the cookie off cross-site POST/DELETE requests; the state-changing routes
are protected from cross-site request forgery by the browser guard besides (browser.py: a
same-origin check and the CSRF token). Without an issuer the three routes just return to
`next`: there is nobody to log in as.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Query, Request
from fastapi.responses import RedirectResponse

from services.arm_core.auth.dependency import authenticator
from services.arm_core.auth.exceptions import NotAuthenticated
from services.arm_core.auth.provider import OidcProvider
from services.arm_core.auth.session import TokenSet, clear_session, set_session, token_set
from services.arm_core.exceptions import Unavailable
from services.arm_core.settings import AuthSettings

__all__ = [
    "CALLBACK_PATH",
    "LOGIN_PATH",
    "LOGOUT_PATH",
    "build_auth_router",
    "code_challenge",
]

LOGIN_PATH = "/auth/login"
CALLBACK_PATH = "/auth/callback"
LOGOUT_PATH = "/auth/logout"

_LOGIN_COOKIE = "arm_ka_login"
_LOGIN_SECONDS = 600
_ERROR_CODE = re.compile(r"^[a-z_]{1,64}$")

_Next = Annotated[str, Query(description="Where to go afterwards (a path of this site)")]


def code_challenge(verifier: str) -> str:
    """The S256 PKCE challenge of `verifier`: BASE64URL(SHA256(verifier)) without padding."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def _safe_next(target: str | None) -> str:
    """`target` if it is a path of this site; "/" otherwise (no open redirect)."""
    if (
        not target
        or not target.startswith("/")
        or target.startswith(("//", "/\\"))
        or any(ord(ch) < 0x20 for ch in target)
    ):
        return "/"
    return target


def _is_https(request: Request) -> bool:
    return request.url.scheme == "https"


def _redirect_uri(request: Request, settings: AuthSettings) -> str:
    return settings.auth_redirect_url or str(request.url_for("auth_callback"))


def _pack(state: str, verifier: str, target: str) -> str:
    raw = json.dumps({"s": state, "v": verifier, "n": target}).encode()
    return base64.urlsafe_b64encode(raw).decode("ascii")


def _unpack(value: str | None) -> tuple[str, str, str] | None:
    if not value:
        return None
    try:
        data = json.loads(base64.urlsafe_b64decode(value.encode("ascii")))
        state, verifier, target = str(data["s"]), str(data["v"]), str(data["n"])
    except (ValueError, KeyError, TypeError, UnicodeError):
        return None
    return state, verifier, target


def _provider(request: Request) -> OidcProvider | None:
    return authenticator(request).provider


async def _exchange(
    provider: OidcProvider, *, code: str, verifier: str, redirect_uri: str
) -> TokenSet:
    """Trade the code for the tokens at the token endpoint."""
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": redirect_uri,
        "code_verifier": verifier,
    }
    return token_set(await provider.grant(form, what="the login"))


def build_auth_router() -> APIRouter:
    """The `/auth/` routes of the page (left out of the OpenAPI document: browser only)."""
    router = APIRouter(include_in_schema=False)

    @router.get(LOGIN_PATH, name="auth_login")
    async def login(request: Request, next: _Next = "/") -> RedirectResponse:
        target = _safe_next(next)
        provider = _provider(request)
        if provider is None:
            return RedirectResponse(target, status_code=303)
        found = await provider.discovery()
        state, verifier = secrets.token_urlsafe(32), secrets.token_urlsafe(64)
        query = urlencode(
            {
                "response_type": "code",
                "client_id": provider.settings.auth_client_id,
                "redirect_uri": _redirect_uri(request, provider.settings),
                "scope": "openid",
                "state": state,
                "code_challenge": code_challenge(verifier),
                "code_challenge_method": "S256",
            }
        )
        separator = "&" if "?" in found.authorization_endpoint else "?"
        response = RedirectResponse(
            f"{found.authorization_endpoint}{separator}{query}", status_code=302
        )
        response.set_cookie(
            _LOGIN_COOKIE,
            _pack(state, verifier, target),
            max_age=_LOGIN_SECONDS,
            path="/auth",
            secure=_is_https(request),
            httponly=True,
            samesite="lax",
        )
        return response

    @router.get(CALLBACK_PATH, name="auth_callback")
    async def callback(
        request: Request,
        code: str | None = None,
        state: str | None = None,
        error: str | None = None,
    ) -> RedirectResponse:
        provider = _provider(request)
        if provider is None:
            return RedirectResponse("/", status_code=303)
        started = _unpack(request.cookies.get(_LOGIN_COOKIE))
        if started is None or state is None or not secrets.compare_digest(started[0], state):
            raise NotAuthenticated("the login expired or was not started here; log in again")
        if error is not None:
            why = error if _ERROR_CODE.match(error) else "error"
            raise NotAuthenticated(f"the provider refused the login ({why})")
        if not code:
            raise NotAuthenticated("the provider sent no authorization code; log in again")
        _, verifier, target = started
        tokens = await _exchange(
            provider,
            code=code,
            verifier=verifier,
            redirect_uri=_redirect_uri(request, provider.settings),
        )
        verified = await provider.verify(tokens.access)
        response = RedirectResponse(_safe_next(target), status_code=303)
        seal = authenticator(request).seal
        set_session(response, tokens, verified, secure=_is_https(request), seal=seal)
        response.delete_cookie(_LOGIN_COOKIE, path="/auth")
        return response

    @router.get(LOGOUT_PATH, name="auth_logout")
    async def logout(request: Request) -> RedirectResponse:
        target = "/"
        provider = _provider(request)
        if provider is not None:
            try:
                found = await provider.discovery()
            except Unavailable:
                found = None
            if found is not None and found.end_session_endpoint:
                query = urlencode(
                    {
                        "client_id": provider.settings.auth_client_id,
                        "post_logout_redirect_uri": str(request.base_url),
                    }
                )
                target = f"{found.end_session_endpoint}?{query}"
        response = RedirectResponse(target, status_code=303)
        clear_session(response, secure=_is_https(request))
        return response

    return router
