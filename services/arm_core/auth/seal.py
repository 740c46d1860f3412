"""The refresh cookie sealed (AES-256-GCM) under a server key, so that only a refresh token this
core (or a replica sharing its key) issued ever reaches the provider.

Without the seal, every request carrying a random `arm_ka_refresh` cookie made the core call
the provider's token endpoint with its client secret. A sealed cookie that does not open (made
up, cut, sealed under another key) is dropped before any network call. The key is derived
(HKDF-SHA256) from OPENBAO__AUTH__AUTH_COOKIE_KEY, which all replicas must share; unset, each
process draws its own, so a restart or another replica asks the user to log in again.
The refresh token is bound to its cookie's name (the AEAD's associated data).
"""

from __future__ import annotations

import base64
import binascii
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

__all__ = ["CookieSeal", "derive_key"]

_NONCE = 12
_INFO = b"arm-ka refresh cookie v1"
_AAD = b"arm_ka_refresh"


def derive_key(secret: str) -> bytes:
    """The 256-bit AES key of a configured secret (any length: it is stretched by HKDF)."""
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_INFO).derive(secret.encode())


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

    @staticmethod
    def sealed_length(plain_length: int) -> int:
        """The length of the cookie value sealing `plain_length` bytes."""
        raw = _NONCE + plain_length + 16
        return (raw * 4 + 2) // 3
