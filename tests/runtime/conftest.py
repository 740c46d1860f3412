"""Fixtures of the runtime tests: a clean environment and credentials that look real."""

from __future__ import annotations

import base64
import json
import os
import secrets
from collections.abc import Iterator
from dataclasses import dataclass

import nkeys
import pytest

from tests.support.recognition_service import s3  # noqa: F401  (a fixture)

_KNOBS = (
    "ACK_TIMEOUT_SECONDS",
    "OUTBOX_MAX_REPUBLISH",
    "PUBLISH_RETRIES",
    "PUBLISH_RETRY_PAUSE_SECONDS",
    "PUBLISH_CONFIRM_TIMEOUT_SECONDS",
    "NATS_RECONNECT_WAIT_SECONDS",
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No OPENBAO__* or tuning variable of the outer shell leaks into a test."""
    for name in list(os.environ):
        if name.upper().startswith("OPENBAO__") or name.upper() in _KNOBS:
            monkeypatch.delenv(name)
    yield


@dataclass(frozen=True)
class Credentials:
    """A user JWT and nkey seed with the shapes NATS uses (not signed by any operator)."""

    jwt: str
    seed: str
    public_key: str


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def make_user_credentials() -> Credentials:
    """Fresh random credentials: the seed is a valid user nkey seed, the JWT well formed."""
    seed = nkeys.encode_seed(secrets.token_bytes(32), nkeys.PREFIX_BYTE_USER).decode()
    keypair = nkeys.from_seed(bytearray(seed.encode()))
    public = keypair.public_key.decode()
    header = _b64url(json.dumps({"typ": "JWT", "alg": "ed25519-nkey"}).encode())
    claims = _b64url(json.dumps({"sub": public, "jti": secrets.token_hex(8)}).encode())
    signature = _b64url(keypair.sign(f"{header}.{claims}".encode()))
    return Credentials(jwt=f"{header}.{claims}.{signature}", seed=seed, public_key=public)


@pytest.fixture
def credentials() -> Credentials:
    """Random NATS user credentials for secrecy tests."""
    return make_user_credentials()
