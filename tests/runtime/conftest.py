"""Fixtures of the runtime tests: a clean environment and credentials that look real."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.support.nats_credentials import Credentials, make_user_credentials
from tests.support.recognition_service import s3  # noqa: F401  (a fixture)

_KNOBS = (
    "ACK_TIMEOUT_SECONDS",
    "OUTBOX_MAX_REPUBLISH",
    "PUBLISH_RETRIES",
    "PUBLISH_RETRY_PAUSE_SECONDS",
    "PUBLISH_CONFIRM_TIMEOUT_SECONDS",
    "NATS_RECONNECT_WAIT_SECONDS",
    "NATS_MAX_RECONNECT_ATTEMPTS",
    "NATS_RECONNECT_BUFFER_BYTES",
    "NATS_PING_INTERVAL_SECONDS",
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No OPENBAO__* or tuning variable of the outer shell leaks into a test."""
    for name in list(os.environ):
        if name.upper().startswith("OPENBAO__") or name.upper() in _KNOBS:
            monkeypatch.delenv(name)
    yield


@pytest.fixture
def credentials() -> Credentials:
    """Random NATS user credentials for secrecy tests."""
    return make_user_credentials()
