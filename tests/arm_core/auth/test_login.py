"""The page's login on a real flow: arm-core → the fake provider's /authorize → back with a
code → arm-core exchanges it at /token with the PKCE verifier → the HttpOnly cookie."""

from __future__ import annotations

import base64
import hashlib
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from services.arm_core.auth import REFRESH_COOKIE, TOKEN_COOKIE

from ._flow import cookie_of, through_provider
from ._provider import CLIENT_ID, REFRESH_LIFETIME, FakeProvider
from .conftest import CoreFactory

pytestmark = [pytest.mark.db, pytest.mark.wire]


def _s256(verifier: str) -> str:
    return (
        base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    )


async def test_login_uses_pkce_s256_and_sets_httponly_cookies(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """/auth/login sends the browser to the provider's authorization endpoint (from the
    discovery document) with response_type=code, the client id, state and an S256 challenge;
    the callback trades the code with the verifier whose S256 is that challenge, and sets the
    token as an HttpOnly, SameSite=Lax cookie (not Secure over http) that then authenticates
    API calls by itself, and the refresh token as one of the pages' path only, living as long
    as the provider says it does."""
    _, client = await core(oidc)
    start = await client.get("/auth/login", params={"next": "/files?status=done"})
    location = urlsplit(start.headers["location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == f"{provider.url}/authorize"
    query = {k: v[0] for k, v in parse_qs(location.query).items()}
    assert query["response_type"] == "code"
    assert query["client_id"] == CLIENT_ID
    assert query["code_challenge_method"] == "S256"
    assert query["redirect_uri"] == "http://core/auth/callback"
    assert "openid" in query["scope"].split()
    login = cookie_of(start, "arm_ka_login")
    assert login["httponly"] and login["samesite"].lower() == "lax" and login["path"] == "/auth"

    done = await through_provider(client, "/files?status=done")
    assert done.status_code == 303, done.text
    assert done.headers["location"] == "/files?status=done"
    (authorize,) = provider.authorize_requests[-1:]
    (exchange,) = provider.token_requests
    assert exchange["grant_type"] == "authorization_code"
    assert 43 <= len(exchange["code_verifier"]) <= 128
    assert authorize["code_challenge"] == _s256(exchange["code_verifier"])
    assert exchange["redirect_uri"] == authorize["redirect_uri"]

    cookie = cookie_of(done, TOKEN_COOKIE)
    assert cookie["httponly"]
    assert cookie["samesite"].lower() == "lax"
    assert cookie["path"] == "/"
    assert not cookie["secure"]
    assert 0 < int(cookie["max-age"]) <= 300
    refresh = cookie_of(done, REFRESH_COOKIE)
    assert refresh.value and refresh.value != cookie.value
    assert refresh["httponly"] and refresh["samesite"].lower() == "lax"
    assert (refresh["path"], refresh["secure"]) == ("/ui", "")
    assert int(refresh["max-age"]) == REFRESH_LIFETIME
    resp = await client.get("/api/v1/files")  # the analyst of the login, by cookie only
    assert resp.status_code == 200, resp.text


async def test_the_cookie_is_secure_when_the_page_is_https(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """Served over https, the cookies carry Secure and the redirect URI is https."""
    _, client = await core(oidc, base_url="https://core")
    start = await client.get("/auth/login")
    assert cookie_of(start, "arm_ka_login")["secure"]
    query = parse_qs(urlsplit(start.headers["location"]).query)
    assert query["redirect_uri"] == ["https://core/auth/callback"]
    done = await through_provider(client, "/")
    assert done.status_code == 303, done.text
    assert cookie_of(done, TOKEN_COOKIE)["secure"]
    assert cookie_of(done, REFRESH_COOKIE)["secure"]


async def test_a_confidential_client_sends_its_secret_to_the_token_endpoint(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """With AUTH_CLIENT_SECRET the code exchange authenticates the client (HTTP Basic)."""
    provider.client_secret = "s3cr3t-of-the-client"
    _, client = await core({**oidc, "auth_client_secret": "s3cr3t-of-the-client"})
    done = await through_provider(client, "/")
    assert done.status_code == 303, done.text
    assert provider.token_auth[-1] is not None and provider.token_auth[-1].startswith("Basic ")


async def test_a_callback_with_a_foreign_state_is_refused(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """A callback whose state is not the one this browser's login started (a forged or
    replayed redirect), or with no login started at all, is 401 and sets no token."""
    _, client = await core(oidc)
    none_started = await client.get("/auth/callback", params={"code": "x", "state": "y"})
    assert none_started.status_code == 401
    await client.get("/auth/login")
    forged = await client.get("/auth/callback", params={"code": "x", "state": "forged"})
    assert forged.status_code == 401
    assert TOKEN_COOKIE not in forged.headers.get("set-cookie", "")
    assert provider.token_requests == []


async def test_a_refused_code_and_a_provider_error_are_401(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """The provider's `error=access_denied` and a code the token endpoint rejects
    (invalid_grant) are 401s naming the provider's code."""
    _, client = await core(oidc)
    start = await client.get("/auth/login")
    state = parse_qs(urlsplit(start.headers["location"]).query)["state"][0]
    denied = await client.get("/auth/callback", params={"state": state, "error": "access_denied"})
    assert (denied.status_code, denied.json()["detail"]) == (
        401,
        "the provider refused the login (access_denied)",
    )
    bogus = await client.get("/auth/callback", params={"state": state, "code": "bogus"})
    assert bogus.status_code == 401
    assert "invalid_grant" in bogus.json()["detail"]


async def test_next_never_leaves_the_site(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """`next` pointing at another site (//evil, https://evil, /\\evil) ends on `/`."""
    _, client = await core(oidc)
    for target in ("//evil.example/x", "https://evil.example/", "/\\evil.example"):
        done = await through_provider(client, target)
        assert done.status_code == 303
        assert done.headers["location"] == "/", target


async def test_logout_clears_the_cookie_and_ends_the_provider_session(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """/auth/logout expires the token and the refresh cookie and sends the browser to the provider's
    end-session endpoint with the client id and the way back; the API is closed again."""
    _, client = await core(oidc)
    await through_provider(client, "/")
    assert (await client.get("/api/v1/files")).status_code == 200
    out = await client.get("/auth/logout")
    assert out.status_code == 303
    target = urlsplit(out.headers["location"])
    assert f"{target.scheme}://{target.netloc}{target.path}" == f"{provider.url}/logout"
    assert parse_qs(target.query) == {
        "client_id": [CLIENT_ID],
        "post_logout_redirect_uri": ["http://core/"],
    }
    assert int(cookie_of(out, TOKEN_COOKIE)["max-age"]) == 0
    cleared = cookie_of(out, REFRESH_COOKIE)
    assert (int(cleared["max-age"]), cleared["path"]) == (0, "/ui")
    assert (await client.get("/ui/files")).status_code == 303  # no renewal after the logout
    assert (await client.get("/api/v1/files")).status_code == 401


async def test_without_a_provider_login_just_returns(core: CoreFactory) -> None:
    """The unauthenticated default has nobody to log in as: /auth/login goes back to next."""
    _, client = await core()
    resp = await client.get("/auth/login", params={"next": "/files"})
    assert (resp.status_code, resp.headers["location"]) == (303, "/files")
