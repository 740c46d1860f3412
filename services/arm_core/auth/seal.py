"""The refresh cookie sealed (AES-256-GCM) under a server key, so that only a refresh token this
core (or a replica sharing its key) issued ever reaches the provider.

Without the seal, every request carrying a random `arm_ka_refresh` cookie made the core call
the provider's token endpoint with its client secret. A sealed cookie that does not open (made
up, cut, sealed under another key) is dropped before any network call. The key is derived
(HKDF-SHA256) from OPENBAO__AUTH__AUTH_COOKIE_KEY, which all replicas must share; unset, each
process draws its own, so a restart or another replica asks the user to log in again.
The refresh token is bound to its cookie's name (the AEAD's associated data) and sealed with
the subject it was issued to (`seal_refresh`), so renewals are counted per user (session.py)
by a subject no client can forge. A cookie sealed without a subject (before decision 0038)
does not open as a refresh cookie: its user logs in once more.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from dataclasses import dataclass, field

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

__all__ = ["CookieSeal", "SealedRefresh", "derive_key"]

_NONCE = 12
_INFO = b"arm-ka refresh cookie v1"
_AAD = b"arm_ka_refresh"


def derive_key(secret: str) -> bytes:
    """The 256-bit AES key of a configured secret (any length: it is stretched by HKDF)."""
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_INFO).derive(secret.encode())


@dataclass(frozen=True, slots=True)
class SealedRefresh:
    """What a refresh cookie holds: the refresh token and the subject it was issued to (the
    token stays out of the repr)."""

    subject: str
    token: str = field(repr=False)


class CookieSeal:
    """Seals and opens cookie values; the key stays out of the repr."""

    def __init__(self, key: bytes | None = None) -> None:
        self._aead = AESGCM(key if key is not None else AESGCM.generate_key(bit_length=256))

    def __repr__(self) -> str:
        return "CookieSeal()"

    def seal(self, value: str) -> str:
        """`value` encrypted and authenticated, as URL-safe base64 (a cookie value)."""
        nonce = os.urandom(_NONCE)
        sealed = nonce + self._aead.encrypt(nonce, value.encode(), _AAD)
        return base64.urlsafe_b64encode(sealed).rstrip(b"=").decode("ascii")

    def open(self, sealed: str) -> str | None:
        """The value sealed in `sealed`, or None when it was not sealed by this key."""
        try:
            raw = base64.urlsafe_b64decode(sealed + "=" * (-len(sealed) % 4))
        except (ValueError, binascii.Error):
            return None
        if len(raw) <= _NONCE + 16:
            return None
        try:
            return self._aead.decrypt(raw[:_NONCE], raw[_NONCE:], _AAD).decode()
        except (InvalidTag, UnicodeDecodeError):
            return None

    def seal_refresh(self, subject: str, token: str) -> str:
        """The refresh cookie's value: `token` sealed with the `subject` it was issued to."""
        return self.seal(json.dumps({"sub": subject, "rt": token}, separators=(",", ":")))

    def open_refresh(self, sealed: str) -> SealedRefresh | None:
        """The subject and token sealed by `seal_refresh`, or None for anything else."""
        plain = self.open(sealed)
        if plain is None:
            return None
        try:
            value = json.loads(plain)
        except ValueError:
            return None
        if not isinstance(value, dict):
            return None
        subject, token = value.get("sub"), value.get("rt")
        if not (isinstance(subject, str) and isinstance(token, str) and subject and token):
            return None
        return SealedRefresh(subject, token)
