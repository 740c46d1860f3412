"""Garbage refresh cookies never reach the provider, and renewals are rate-limited per user
(issue 27, item 4; decision 0038): the cookie is sealed with its subject under
OPENBAO__AUTH__AUTH_COOKIE_KEY."""

from __future__ import annotations

import json
import secrets
from typing import Any

import pytest

from services.arm_core.auth import REFRESH_COOKIE, TOKEN_COOKIE
from services.arm_core.auth import session as session_module
from services.arm_core.auth.seal import CookieSeal, derive_key
from tests.arm_core.auth._provider import FakeProvider
from tests.arm_core.auth.conftest import COOKIE_KEY, CoreFactory

pytestmark = [pytest.mark.db, pytest.mark.wire]

_PAGE = "/ui/files"
_SEAL = CookieSeal(derive_key(COOKIE_KEY))


def _session(provider: FakeProvider, subject: str = "user-7") -> str:
    """A refresh token the provider issued (a live session of the analyst `subject`)."""
    claims = {"sub": subject, "realm_access": {"roles": ["analyst"]}}
    refresh: str = json.loads(provider._tokens(claims))["refresh_token"]
    return refresh


def _cookie(provider: FakeProvider, subject: str = "user-7") -> dict[str, str]:
    """The refresh cookie of a new session of `subject`, as the core seals it."""
    return {
        "Cookie": f"{REFRESH_COOKIE}={_SEAL.seal_refresh(subject, _session(provider, subject))}"
    }


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
    """A genuine refresh token sent in the clear, sealed under another key, or sealed under
    the shared key without its subject (the format before decision 0038) does not open: the
    provider is not asked. Sealed with its subject under the shared key (another replica) it
    is."""
    _, client = await core(oidc)
    plain = _session(provider)
    for value in (plain, CookieSeal().seal_refresh("user-7", plain), _SEAL.seal(plain)):
        answer = await client.get(_PAGE, headers={"Cookie": f"{REFRESH_COOKIE}={value}"})
        assert answer.status_code in (302, 303)
    assert provider.token_requests == []
    sealed = _SEAL.seal_refresh("user-7", plain)
    answer = await client.get(_PAGE, headers={"Cookie": f"{REFRESH_COOKIE}={sealed}"})
    assert answer.status_code == 200
    assert len(provider.token_requests) == 1
    assert answer.cookies.get(TOKEN_COOKIE)


async def test_renewals_are_rate_limited_per_user(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """Past AUTH_RENEWALS_PER_MINUTE new renewals of one user, that user's lapsed page is
    answered 503 without asking the provider, while another user's renewals go on (the limit
    was per process: one user hammering renewals locked every other user out)."""
    _, client = await core({**oidc, "auth_renewals_per_minute": 2})
    hammering = [await client.get(_PAGE, headers=_cookie(provider, "user-7")) for _ in range(5)]
    assert [a.status_code for a in hammering] == [200, 200, 503, 503, 503]
    assert len(provider.token_requests) == 2
    others = [await client.get(_PAGE, headers=_cookie(provider, "user-8")) for _ in range(2)]
    assert [a.status_code for a in others] == [200, 200]
    assert len(provider.token_requests) == 4
    third = await client.get(_PAGE, headers=_cookie(provider, "user-9"))
    assert third.status_code == 200
    again = await client.get(_PAGE, headers=_cookie(provider, "user-7"))
    assert again.status_code == 503  # the hammering user is still over the limit


async def test_the_per_user_buckets_are_bounded(
    core: CoreFactory,
    oidc: dict[str, Any],
    provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only the buckets of the subjects that renewed last are kept: past the bound, the
    least recent subject's bucket is dropped (memory stays bounded whatever the number of
    users) and that subject starts again with a full one."""
    monkeypatch.setattr(session_module, "_SUBJECTS_MAX", 2)
    app, client = await core({**oidc, "auth_renewals_per_minute": 1})
    limits = app.api.state.auth.session._limits
    assert (await client.get(_PAGE, headers=_cookie(provider, "user-1"))).status_code == 200
    assert (await client.get(_PAGE, headers=_cookie(provider, "user-1"))).status_code == 503
    for n in range(2, 40):
        answer = await client.get(_PAGE, headers=_cookie(provider, f"user-{n}"))
        assert answer.status_code == 200
        assert len(limits) == 2
    assert (await client.get(_PAGE, headers=_cookie(provider, "user-1"))).status_code == 200
