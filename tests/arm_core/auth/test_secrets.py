"""Secrets of authentication (the client secret, the tokens) never reach a log line, a repr,
a problem or an error text."""

from __future__ import annotations

import logging
import os
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from services.arm_core.auth import NotAuthenticated
from services.arm_core.settings import CoreSettings
from services.runtime.settings import SettingsError, load_settings

from ._provider import FakeProvider
from .conftest import CoreFactory

SECRET = "client-secret-7f3a9c1e"


def test_settings_never_show_the_client_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    """The secret is a SecretStr: not in the settings' repr or str, nor in the SettingsError
    of an invalid auth group that holds it."""
    for key in list(os.environ):
        if key.startswith("OPENBAO__AUTH__"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("OPENBAO__AUTH__AUTH_ISSUER", "https://idp.bank/realms/x")
    monkeypatch.setenv("OPENBAO__AUTH__AUTH_CLIENT_ID", "arm")
    monkeypatch.setenv("OPENBAO__AUTH__AUTH_CLIENT_SECRET", SECRET)
    settings = load_settings(CoreSettings)
    assert settings.auth.auth_client_secret is not None
    assert settings.auth.auth_client_secret.get_secret_value() == SECRET
    assert SECRET not in repr(settings) and SECRET not in str(settings)
    monkeypatch.setenv("OPENBAO__AUTH__AUTH_ISSUER", f"http://idp.bank/{SECRET}")
    monkeypatch.setenv("OPENBAO__AUTH__AUTH_LEEWAY_SECONDS", SECRET)
    with pytest.raises(SettingsError) as caught:
        load_settings(CoreSettings)
    assert SECRET not in str(caught.value)
    assert "OPENBAO__AUTH__AUTH_LEEWAY_SECONDS" in caught.value.keys


@pytest.mark.db
@pytest.mark.wire
async def test_tokens_and_the_client_secret_stay_out_of_logs_and_answers(
    core: CoreFactory,
    oidc: dict[str, Any],
    provider: FakeProvider,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A whole login with a confidential client, then good, expired, forged and refused
    tokens: no log record (any logger, DEBUG up), no answer body or header, and no repr of the
    core's auth objects holds the client secret or a token."""
    provider.client_secret = SECRET
    caplog.set_level(logging.DEBUG)
    app, client = await core({**oidc, "auth_client_secret": SECRET})
    tokens = [
        provider.token(roles=["analyst"]),
        provider.token(expires_in=-300),
        provider.token(aud="other"),
        provider.token(roles=[]),
    ]
    answers: list[httpx.Response] = []
    for token in tokens:
        answers.append(
            await client.get("/api/v1/files", headers={"Authorization": f"Bearer {token}"})
        )
    assert [a.status_code for a in answers] == [200, 401, 401, 403]

    start = await client.get("/auth/login")
    async with httpx.AsyncClient() as browser:
        back = urlsplit((await browser.get(start.headers["location"])).headers["location"])
    done = await client.get(f"{back.path}?{back.query}")
    assert done.status_code == 303
    login_token = done.cookies.get("arm_ka_token") or client.cookies.get("arm_ka_token")
    assert login_token
    tokens.append(login_token)
    state = parse_qs(back.query)["state"][0]
    refused = await client.get("/auth/callback", params={"state": state, "code": "reused"})
    answers.append(refused)

    texts = [r.getMessage() for r in caplog.records]
    texts += [str(r.exc_info[1]) for r in caplog.records if r.exc_info]
    texts += [a.text + str(dict(a.headers)) for a in answers]
    auth = app.api.state.auth
    texts += [repr(auth), repr(auth.provider), repr(app.core.settings)]
    for text in texts:
        assert SECRET not in text
        for token in tokens:
            assert token not in text
            assert token.split(".")[2] not in text  # not even the signature


def test_a_refusal_never_carries_the_token() -> None:
    """The 401 exception's text and challenge are the fixed reason only."""
    exc = NotAuthenticated("the token has expired")
    assert str(exc) == "the token has expired"
    assert exc.www_authenticate.endswith('error_description="the token has expired"')
