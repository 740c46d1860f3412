"""Garbage refresh cookies never reach the provider, and renewals are rate-limited
(issue 27, item 4): the cookie is sealed under OPENBAO__AUTH__AUTH_COOKIE_KEY."""

from __future__ import annotations

import json
import secrets
from typing import Any

import pytest

from services.arm_core.auth import REFRESH_COOKIE, TOKEN_COOKIE
from services.arm_core.auth.seal import CookieSeal, derive_key
from tests.arm_core.auth._provider import FakeProvider
from tests.arm_core.auth.conftest import COOKIE_KEY, CoreFactory

pytestmark = [pytest.mark.db, pytest.mark.wire]

_PAGE = "/ui/files"
_ANALYST = {"sub": "user-7", "realm_access": {"roles": ["analyst"]}}


def _session(provider: FakeProvider) -> str:
    """A refresh token the provider issued (a live session of an analyst)."""
    refresh: str = json.loads(provider._tokens(dict(_ANALYST)))["refresh_token"]
    return refresh


async def test_random_refresh_cookies_never_reach_the_provider(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """100 made-up `arm_ka_refresh` cookies: no call to the token endpoint (it was 100 calls
    with the client secret), each sent to the login and its cookie cleared."""
    _, client = await core(oidc)
    for _ in range(100):
        cookie = {"Cookie": f"{REFRESH_COOKIE}={secrets.token_urlsafe(48)}"}
        answer = await client.get(_PAGE, headers=cookie)
        assert answer.status_code in (302, 303), answer.status_code
        assert f'{REFRESH_COOKIE}=""' in answer.headers.get("set-cookie", "")
    assert provider.token_requests == []


async def test_a_token_the_provider_issued_but_we_did_not_seal_is_dropped(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """A genuine refresh token sent in the clear, or sealed under another key, does not
    open: the provider is not asked. Sealed under the shared key (another replica) it is."""
    _, client = await core(oidc)
    plain = _session(provider)
    for value in (plain, CookieSeal().seal(plain)):
        answer = await client.get(_PAGE, headers={"Cookie": f"{REFRESH_COOKIE}={value}"})
        assert answer.status_code in (302, 303)
    assert provider.token_requests == []
    sealed = CookieSeal(derive_key(COOKIE_KEY)).seal(plain)
    answer = await client.get(_PAGE, headers={"Cookie": f"{REFRESH_COOKIE}={sealed}"})
    assert answer.status_code == 200
    assert len(provider.token_requests) == 1
    assert answer.cookies.get(TOKEN_COOKIE)


async def test_renewals_are_rate_limited(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """Past AUTH_RENEWALS_PER_MINUTE new renewals, a lapsed page is answered 503 without
    asking the provider."""
    _, client = await core({**oidc, "auth_renewals_per_minute": 2})
    seal = CookieSeal(derive_key(COOKIE_KEY))
    answers = []
    for _ in range(3):
        sealed = seal.seal(_session(provider))
        answers.append(await client.get(_PAGE, headers={"Cookie": f"{REFRESH_COOKIE}={sealed}"}))
    assert [a.status_code for a in answers] == [200, 200, 503]
    assert len(provider.token_requests) == 2
