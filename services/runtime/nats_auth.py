"""NATS user authentication from settings: checking the JWT and seed, and signing the nonce.

With a user JWT the client answers the server's nonce by signing it with the nkey seed; the
callbacks hold the secrets in memory (nothing is written to disk) and the keypair is wiped
after each signature. A seed alone is plain nkey authentication. The checks say what is wrong
with a credential without ever quoting it.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from typing import Any

import nkeys
from pydantic import SecretStr

__all__ = ["connect_kwargs", "jwt_problem", "security", "seed_problem"]

_JWT_RE = re.compile(r"^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$")


def jwt_problem(jwt: SecretStr | None) -> str | None:
    """What is wrong with a user JWT (its shape only), None when it is fine or unset."""
    if jwt is not None and not _JWT_RE.match(jwt.get_secret_value().strip()):
        return "is not a JWT (three base64url parts)"
    return None


def seed_problem(seed: SecretStr | None) -> str | None:
    """What is wrong with an nkey seed, None when it decodes (or is unset)."""
    if seed is None:
        return None
    try:
        keypair = nkeys.from_seed(bytearray(seed.get_secret_value().strip().encode()))
    except Exception:
        return "is not a valid NATS nkey seed"
    keypair.wipe()
    return None


def connect_kwargs(
    servers: list[str], jwt: SecretStr | None, seed: SecretStr | None
) -> dict[str, Any]:
    """Keyword arguments for `nats.connect`: the servers and, when set, the credentials."""
    kwargs: dict[str, Any] = {"servers": servers}
    callbacks = _callbacks(jwt, seed)
    if callbacks is not None:
        kwargs["user_jwt_cb"], kwargs["signature_cb"] = callbacks
    elif seed is not None:
        kwargs["nkeys_seed_str"] = seed.get_secret_value().strip()
    return kwargs


def security(jwt: SecretStr | None, seed: SecretStr | None) -> Any:
    """The same credentials as a FastStream `security=` object (None without credentials)."""
    from faststream.nats.security import NatsJWT, NatsNKey

    callbacks = _callbacks(jwt, seed)
    if callbacks is not None:
        return NatsJWT(*callbacks)
    if seed is not None:
        return NatsNKey.from_seed(seed.get_secret_value().strip())
    return None


def _callbacks(
    jwt: SecretStr | None, seed: SecretStr | None
) -> tuple[Callable[[], bytes], Callable[[str], bytes]] | None:
    if jwt is None or seed is None:
        return None
    user_jwt, user_seed = jwt, seed

    def user_jwt_cb() -> bytes:
        return user_jwt.get_secret_value().strip().encode()

    def signature_cb(nonce: str) -> bytes:
        return _sign(user_seed, nonce)

    return user_jwt_cb, signature_cb


def _sign(seed: SecretStr, nonce: str) -> bytes:
    keypair = nkeys.from_seed(bytearray(seed.get_secret_value().strip().encode()))
    try:
        return base64.b64encode(keypair.sign(nonce.encode()))
    finally:
        keypair.wipe()
