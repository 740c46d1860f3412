"""The page's session outlives its access token: the refresh cookie renews it.

A real login through the fake provider gives the browser (the client's cookie jar) both
cookies; the access token's expiry is played by dropping its cookie, as the browser does at its
max-age, or by an expired or nearly expired token in it. The provider rotates refresh tokens
(an old one is refused once traded) and can end every session.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.auth import (
    LOGIN_PATH,
    REFRESH_COOKIE,
    REFRESH_PATH,
    TOKEN_COOKIE,
    TokenSet,
)
from services.arm_core.auth.seal import CookieSeal, derive_key
from services.arm_core.web.render import UI_PREFIX
from tests.arm_core.web._doubtful import RIGHT_AMOUNT, doubtful_income_xlsx

from ._flow import cookie_of, csrf_token, recognised, through_provider
from ._provider import CLIENT_ID, FakeProvider
from .conftest import COOKIE_KEY, CoreFactory

pytestmark = [pytest.mark.db, pytest.mark.wire]

DOUBTFUL_LINE = 1  # 2120, the unreadable amount of the ОФР
COLUMN = 3
HTMX = {"HX-Request": "true"}


def _expire(client: httpx.AsyncClient, provider: FakeProvider, how: str) -> None:
    """Let the access cookie lapse: dropped (the browser's way), expired, or about to (in
    the jar's own slot, so that the renewal's cookie replaces it)."""
    [domain] = {c.domain for c in client.cookies.jar if c.name == TOKEN_COOKIE}
    client.cookies.delete(TOKEN_COOKIE)
    lifetime = {"dropped": None, "expired": -120, "expiring": 10}[how]
    if lifetime is not None:
        token = provider.token(roles=["analyst"], sub="user-42", expires_in=lifetime)
        client.cookies.set(TOKEN_COOKIE, token, domain=domain, path="/")


def _next_of(location: str) -> str:
    parts = urlsplit(location)
    assert parts.path == LOGIN_PATH, location
    [target] = parse_qs(parts.query)["next"]
    return target


def _correction() -> dict[str, Any]:
    return {"kind": "auto", "line": DOUBTFUL_LINE, "column": COLUMN, "value": RIGHT_AMOUNT}


@pytest.mark.parametrize("how", ["dropped", "expired", "expiring"])
async def test_a_correction_after_the_access_token_lapsed_is_saved_as_the_user(
    core: CoreFactory,
    oidc: dict[str, Any],
    provider: FakeProvider,
    sessions: async_sessionmaker[AsyncSession],
    how: str,
) -> None:
    """The htmx POST of a correction with a lapsed access cookie and the refresh cookie is
    renewed at the provider (grant_type=refresh_token, the client id) before its body is read,
    saved as the login's user, and answered with both new cookies, which then serve the page
    without another renewal."""
    client, doc = await recognised(core, oidc, provider, sessions, login=True)
    old_refresh = client.cookies.get(REFRESH_COOKIE)
    _expire(client, provider, how)
    saved = await client.post(f"{doc.page}/corrections", headers=HTMX, data=_correction())
    assert saved.status_code == 200, saved.text
    assert "Сохранено" in saved.text
    renewal = provider.token_requests[-1]
    assert (renewal["grant_type"], renewal["client_id"]) == ("refresh_token", CLIENT_ID)
    assert old_refresh is not None
    opened = CookieSeal(derive_key(COOKIE_KEY)).open_refresh(old_refresh)
    assert opened is not None and opened.subject == provider.login_claims["sub"]
    assert renewal["refresh_token"] == opened.token
    access, refresh = cookie_of(saved, TOKEN_COOKIE), cookie_of(saved, REFRESH_COOKIE)
    assert access["httponly"] and 0 < int(access["max-age"]) <= 300
    assert refresh["httponly"] and refresh["path"] == "/ui"
    assert refresh.value != old_refresh
    body = (await client.get(f"/api/v1/documents/{doc.document_id}/corrected")).json()
    [correction] = body["corrections"]
    assert correction["author"] == "user-42"
    assert (await client.get(doc.page)).status_code == 200
    assert provider.refreshes == 1


async def test_an_upload_after_the_access_token_lapsed_is_taken(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """The page's upload (authenticated by the body guard) with only the refresh cookie left
    is renewed there and stored (201), the new cookies on its answer."""
    provider.login_claims = {"sub": "user-9", "realm_access": {"roles": ["integrator"]}}
    _, client = await core(oidc)
    assert (await through_provider(client, "/ui/files")).status_code == 303
    client.headers["X-CSRF-Token"] = await csrf_token(client, "/ui/files")
    client.cookies.delete(TOKEN_COOKIE)
    upload = await client.post("/ui/files", files={"file": ("ofr.xlsx", doubtful_income_xlsx())})
    assert upload.status_code == 201, upload.text
    assert cookie_of(upload, TOKEN_COOKIE).value
    assert cookie_of(upload, REFRESH_COOKIE).value
    assert provider.refreshes == 1


async def test_a_refused_renewal_is_the_login_as_before_and_clears_the_refresh_cookie(
    core: CoreFactory,
    oidc: dict[str, Any],
    provider: FakeProvider,
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    """When the provider's session has ended, the htmx POST is the 401 with HX-Redirect to
    the login and a page is the 303 to it, each expiring the refresh cookie; nothing is saved."""
    client, doc = await recognised(core, oidc, provider, sessions, login=True)
    old_refresh = client.cookies.get(REFRESH_COOKIE)
    provider.end_sessions()
    client.cookies.delete(TOKEN_COOKIE)
    refused = await client.post(
        f"{doc.page}/corrections",
        headers={**HTMX, "HX-Current-URL": f"http://core{doc.page}"},
        data=_correction(),
    )
    assert refused.status_code == 401
    assert _next_of(refused.headers["HX-Redirect"]) == doc.page
    cleared = cookie_of(refused, REFRESH_COOKIE)
    assert (int(cleared["max-age"]), cleared["path"]) == (0, "/ui")
    assert client.cookies.get(REFRESH_COOKIE) is None
    page = await client.get(doc.page, headers={"Cookie": f"{REFRESH_COOKIE}={old_refresh}"})
    assert page.status_code == 303
    assert _next_of(page.headers["location"]) == doc.page
    assert int(cookie_of(page, REFRESH_COOKIE)["max-age"]) == 0
    body = (
        await client.get(
            f"/api/v1/documents/{doc.document_id}/corrected",
            headers={"Authorization": f"Bearer {provider.token(roles=['analyst'])}"},
        )
    ).json()
    assert body["corrections"] == []


async def test_concurrent_requests_share_one_renewal_of_a_rotating_refresh_token(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """Eight htmx requests at once with the same lapsed session are all served after one
    renewal at the provider (which refuses a refresh token traded before); a request still
    carrying the old refresh token just after it (the browser had not stored the new cookies
    yet) is served with the same renewal."""
    _, client = await core(oidc)
    assert (await through_provider(client, "/ui/files")).status_code == 303
    old_refresh = client.cookies.get(REFRESH_COOKIE)
    client.cookies.clear()
    provider.token_delay = 0.3
    lapsed = {**HTMX, "Cookie": f"{REFRESH_COOKIE}={old_refresh}"}
    answers = await asyncio.gather(
        *(client.get("/ui/files/table?status=", headers=lapsed) for _ in range(8))
    )
    assert [a.status_code for a in answers] == [200] * 8
    assert provider.refreshes == 1
    assert len({cookie_of(a, REFRESH_COOKIE).value for a in answers}) == 1
    late = await client.get("/ui/files/table?status=", headers=lapsed)
    assert late.status_code == 200
    assert cookie_of(late, REFRESH_COOKIE).value == cookie_of(answers[0], REFRESH_COOKIE).value
    assert provider.refreshes == 1


async def test_a_bearer_client_is_never_renewed(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """The refresh cookie renews the page's cookie session, while a request with an expired
    bearer token, even one carrying that cookie, is the 401 (or the page's login) as before,
    and the provider is not asked."""
    _, client = await core(oidc)
    assert (await through_provider(client, "/ui/files")).status_code == 303
    refresh = client.cookies.get(REFRESH_COOKIE)
    client.cookies.clear()
    with_cookie = {"Cookie": f"{REFRESH_COOKIE}={refresh}"}
    renewed = await client.get("/ui/files", headers=with_cookie)
    assert renewed.status_code == 200
    assert provider.refreshes == 1
    refresh = cookie_of(renewed, REFRESH_COOKIE).value
    expired = {
        "Authorization": f"Bearer {provider.token(roles=['analyst'], expires_in=-120)}",
        "Cookie": f"{REFRESH_COOKIE}={refresh}",
    }
    api = await client.get("/api/v1/files", headers=expired)
    assert api.status_code == 401
    assert api.headers["content-type"] == "application/problem+json"
    htmx = await client.get("/ui/files/table?status=", headers={**expired, **HTMX})
    assert htmx.status_code == 401
    page = await client.post("/ui/files", headers=expired, files={"file": ("x.xlsx", b"x")})
    assert page.status_code == 303
    assert provider.refreshes == 1
    assert all("set-cookie" not in a.headers for a in (api, htmx, page))


async def test_refresh_tokens_stay_out_of_logs_reprs_and_answers(
    core: CoreFactory,
    oidc: dict[str, Any],
    provider: FakeProvider,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A login, a renewal and a refused renewal with a confidential client: no log record
    (any logger, DEBUG up), no answer body or header but the Set-Cookie that carries it, and
    no repr of the core's auth objects holds a refresh token."""
    caplog.set_level(logging.DEBUG)
    provider.client_secret = "the-client-secret"
    app, client = await core({**oidc, "auth_client_secret": "the-client-secret"})
    login = await through_provider(client, "/ui/files")
    refresh_tokens = [cookie_of(login, REFRESH_COOKIE).value]
    client.cookies.delete(TOKEN_COOKIE)
    renewed = await client.get("/ui/files")
    assert renewed.status_code == 200
    refresh_tokens.append(cookie_of(renewed, REFRESH_COOKIE).value)
    seal = CookieSeal(derive_key(COOKIE_KEY))
    opened = [seal.open_refresh(t) for t in refresh_tokens]
    refresh_tokens += [o.token for o in opened if o is not None]  # sealed and plain
    assert len(refresh_tokens) == 4
    client.headers["X-CSRF-Token"] = await csrf_token(client, "/ui/files")
    provider.end_sessions()
    client.cookies.delete(TOKEN_COOKIE)
    refused = await client.post("/ui/files", headers=HTMX, files={"file": ("x.xlsx", b"x")})
    assert refused.status_code == 401
    auth = app.api.state.auth
    texts = [r.getMessage() for r in caplog.records]
    texts += [str(r.exc_info[1]) for r in caplog.records if r.exc_info]
    for answer in (login, renewed, refused):
        headers = {k: v for k, v in answer.headers.items() if k != "set-cookie"}
        texts += [answer.text, str(headers)]
    texts += [repr(auth), repr(auth.session), repr(TokenSet("access", refresh_tokens[0], 60))]
    assert any("renewed the page session of user-42" in t for t in texts)
    for text in texts:
        for token in refresh_tokens:
            assert token not in text


def test_the_refresh_cookie_path_is_the_pages_prefix() -> None:
    """The refresh cookie reaches exactly the pages (auth cannot import the pages, which
    import auth): its path is their prefix."""
    assert REFRESH_PATH == UI_PREFIX


async def test_a_renewal_over_https_sets_secure_cookies(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """Served over https, the renewal's cookies carry Secure like the login's."""
    _, client = await core(oidc, base_url="https://core")
    assert (await through_provider(client, "/ui/files")).status_code == 303
    client.cookies.delete(TOKEN_COOKIE)
    renewed = await client.get("/ui/files")
    assert renewed.status_code == 200
    assert cookie_of(renewed, TOKEN_COOKIE)["secure"]
    assert cookie_of(renewed, REFRESH_COOKIE)["secure"]


async def test_a_nearly_expired_token_still_serves_when_its_renewal_is_refused(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """An access token with seconds left is renewed early; when the provider refuses, the
    request is still served by that token and the dead refresh cookie is cleared."""
    _, client = await core(oidc)
    assert (await through_provider(client, "/ui/files")).status_code == 303
    _expire(client, provider, "expiring")
    provider.end_sessions()
    page = await client.get("/ui/files")
    assert page.status_code == 200
    assert provider.refreshes == 1
    assert int(cookie_of(page, REFRESH_COOKIE)["max-age"]) == 0
