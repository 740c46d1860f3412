"""NATS user credentials that look real (a valid user nkey seed, a well-formed JWT), for the
secrecy tests: none of it may reach a log, a repr or an error text."""

from __future__ import annotations

import base64
import json
import secrets
from dataclasses import dataclass

import nkeys

__all__ = ["Credentials", "make_user_credentials"]


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
