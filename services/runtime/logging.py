"""Logging for every service, with secret redaction as a second line of defence.

Code never logs a secret on purpose (settings keep them in `SecretStr`), but a library may
echo one back (a URL with a password, an auth error quoting its input). Every secret value
the process knows is registered here, and the filter and formatter installed by
`configure_logging` replace it with `***` in each message and traceback.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Iterable

__all__ = [
    "REDACTED",
    "RedactingFilter",
    "RedactingFormatter",
    "configure_logging",
    "redact",
    "register_secret",
    "registered_secrets",
]

REDACTED = "***"

# Shorter values would blank out ordinary words all over the log; a credential that short is
# not worth hiding anyway.
_MIN_SECRET_LENGTH = 4

_lock = threading.Lock()
_secrets: frozenset[str] = frozenset()


def register_secret(value: str | None) -> None:
    """Make `value` (and each of its lines) redacted from every log record from now on."""
    global _secrets
    if not value:
        return
    candidates = {value, value.strip(), *(line.strip() for line in value.splitlines())}
    fresh = {c for c in candidates if len(c) >= _MIN_SECRET_LENGTH}
    with _lock:
        _secrets = _secrets | fresh


def registered_secrets() -> frozenset[str]:
    """The values currently redacted."""
    return _secrets


def redact(text: str, secrets: Iterable[str] | None = None) -> str:
    """`text` with every registered (or given) secret replaced by `***`, longest first."""
    values = _secrets if secrets is None else frozenset(secrets)
    for secret in sorted(values, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


class RedactingFilter(logging.Filter):
    """Rewrites a record's message with secrets redacted; never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not _secrets:
            return True
        try:
            message = record.getMessage()
        except Exception:  # a broken format string is logging's problem, not ours
            return True
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, None
        return True


class RedactingFormatter(logging.Formatter):
    """A formatter whose whole output (message, traceback, stack) is redacted."""

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


_DEFAULT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def configure_logging(level: int | str = logging.INFO, *, fmt: str = _DEFAULT_FORMAT) -> None:
    """Send logs to stderr through the redacting filter and formatter.

    Also puts the filter on every handler already attached to the root logger (e.g. uvicorn's,
    or pytest's capture), so records reaching them are redacted too. Idempotent.
    """
    root = logging.getLogger()
    root.setLevel(level)
    if not any(getattr(h, "_arm_ka_redacting", False) for h in root.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(RedactingFormatter(fmt))
        handler._arm_ka_redacting = True  # type: ignore[attr-defined]
        root.addHandler(handler)
    for each in root.handlers:
        if not any(isinstance(f, RedactingFilter) for f in each.filters):
            each.addFilter(RedactingFilter())
