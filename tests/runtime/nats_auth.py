"""A NATS operator, account and user made in code, for tests of real JWT authentication.

nats-server in operator mode trusts the operator JWT, preloads the account JWT from its config
(`resolver: MEMORY`) and admits a client presenting a user JWT signed by that account, if the
client also signs the server's nonce with the user's seed.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nkeys

from services.devstack.embedded import NatsServer, start_nats_server

_UNLIMITED = {
    "subs": -1,
    "data": -1,
    "payload": -1,
    "imports": -1,
    "exports": -1,
    "wildcards": True,
    "conn": -1,
    "leaf": -1,
}


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@dataclass(frozen=True)
class _Key:
    seed: str
    public: str

    def sign(self, data: bytes) -> bytes:
        keypair = nkeys.from_seed(bytearray(self.seed.encode()))
        try:
            return bytes(keypair.sign(data))
        finally:
            keypair.wipe()


def _key(prefix: int) -> _Key:
    seed = nkeys.encode_seed(secrets.token_bytes(32), prefix).decode()
    keypair = nkeys.from_seed(bytearray(seed.encode()))
    return _Key(seed=seed, public=keypair.public_key.decode())


def _jwt(issuer: _Key, subject: str, name: str, claims: dict[str, Any]) -> str:
    header = _b64url(json.dumps({"typ": "JWT", "alg": "ed25519-nkey"}).encode())
    body: dict[str, Any] = {
        "iat": int(time.time()),
        "iss": issuer.public,
        "name": name,
        "sub": subject,
        "nats": claims,
    }
    digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).digest()
    body["jti"] = base64.b32encode(digest).decode().rstrip("=")
    payload = _b64url(json.dumps(body).encode())
    signature = _b64url(issuer.sign(f"{header}.{payload}".encode()))
    return f"{header}.{payload}.{signature}"


@dataclass(frozen=True)
class OperatorChain:
    """An operator-mode server config and one user's JWT and seed."""

    server_config: str
    user_jwt: str
    user_seed: str

    def write_config(self, directory: Path) -> Path:
        path = directory / "operator.conf"
        path.write_text(self.server_config)
        return path


def make_operator_chain() -> OperatorChain:
    """A fresh operator → account → user chain."""
    operator = _key(nkeys.PREFIX_BYTE_OPERATOR)
    account = _key(nkeys.PREFIX_BYTE_ACCOUNT)
    user = _key(nkeys.PREFIX_BYTE_USER)
    operator_jwt = _jwt(
        operator, operator.public, "test-operator", {"type": "operator", "version": 2}
    )
    account_jwt = _jwt(
        operator,
        account.public,
        "test-account",
        {
            "limits": _UNLIMITED,
            "default_permissions": {"pub": {}, "sub": {}},
            "type": "account",
            "version": 2,
        },
    )
    user_jwt = _jwt(
        account,
        user.public,
        "test-user",
        {"pub": {}, "sub": {}, "subs": -1, "data": -1, "payload": -1, "type": "user", "version": 2},
    )
    config = (
        f'operator: "{operator_jwt}"\n'
        "resolver: MEMORY\n"
        f'resolver_preload: {{\n  {account.public}: "{account_jwt}"\n}}\n'
    )
    return OperatorChain(server_config=config, user_jwt=user_jwt, user_seed=user.seed)


def other_user_seed() -> str:
    """A valid user seed that no account vouches for."""
    return _key(nkeys.PREFIX_BYTE_USER).seed


@contextlib.contextmanager
def operator_mode_server(chain: OperatorChain, directory: Path) -> Iterator[NatsServer]:
    """A nats-server in operator mode trusting `chain` (its config written in `directory`):
    only users of the chain's account get in."""
    server = start_nats_server(config_file=chain.write_config(directory))
    try:
        yield server
    finally:
        server.stop()
