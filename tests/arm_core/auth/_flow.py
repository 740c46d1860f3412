"""Steps the page tests share: a login through the fake provider, the cookies an answer
sets, a bearer header of a role, and a core with a recognised upload."""

from __future__ import annotations

import re
from http.cookies import Morsel, SimpleCookie
from typing import Any
from urllib.parse import urlsplit

import httpx
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from tests.arm_core.web._doubtful import doubtful_income_xlsx
from tests.arm_core.web._recognition import Recognised, upload_and_recognize

from ._provider import FakeProvider
from .conftest import CoreFactory

__all__ = ["bearer", "cookie_of", "csrf_token", "recognised", "through_provider"]

_META = re.compile(r'<meta name="csrf-token" content="([^"]*)">')


async def csrf_token(client: httpx.AsyncClient, page: str) -> str:
    """Open `page` as a browser would and take the CSRF token of its meta tag (its cookie
    stays in the client's jar); the pages' script sends it as X-CSRF-Token."""
    answer = await client.get(page)
    found = _META.search(answer.text)
    assert found and found.group(1), answer.text[:300]
    return found.group(1)


def cookie_of(resp: httpx.Response, name: str) -> Morsel[str]:
    """The Set-Cookie of `name` on `resp` (fails the test when there is none)."""
    for header in resp.headers.get_list("set-cookie"):
        jar: SimpleCookie = SimpleCookie()
        jar.load(header)
        if name in jar:
            return jar[name]
    raise AssertionError(f"no Set-Cookie for {name}: {resp.headers.get_list('set-cookie')}")


async def through_provider(client: httpx.AsyncClient, next_path: str) -> httpx.Response:
    """Start the login, let the provider authorize it (a real HTTP request), and deliver the
    provider's redirect back to the core; the core's answer to the callback."""
    start = await client.get("/auth/login", params={"next": next_path})
    assert start.status_code == 302, start.text
    async with httpx.AsyncClient() as browser:
        authorized = await browser.get(start.headers["location"])
    assert authorized.status_code == 302
    back = urlsplit(authorized.headers["location"])
    return await client.get(f"{back.path}?{back.query}")


def bearer(provider: FakeProvider, *roles: str, sub: str = "user-1") -> dict[str, str]:
    """The Authorization header of a fresh token of `roles`."""
    return {"Authorization": f"Bearer {provider.token(roles=list(roles), sub=sub)}"}


async def recognised(
    core: CoreFactory,
    oidc: dict[str, Any],
    provider: FakeProvider,
    sessions: async_sessionmaker[AsyncSession],
    *,
    login: bool = False,
) -> tuple[httpx.AsyncClient, Recognised]:
    """A core on the provider with the ОФР uploaded (as an integrator) and recognised; the
    client is left without credentials, or (`login`) logged in on the page through the
    provider as its login user, with both cookies and the page's CSRF token."""
    app, client = await core(oidc)
    client.headers.update(bearer(provider, "integrator"))
    found = await upload_and_recognize(app, client, sessions, "ofr.xlsx", doubtful_income_xlsx())
    del client.headers["Authorization"]
    if login:
        done = await through_provider(client, found.page)
        assert done.status_code == 303, done.text
        client.headers["X-CSRF-Token"] = await csrf_token(client, found.page)
    return client, found
