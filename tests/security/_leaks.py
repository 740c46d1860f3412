"""What the security suite watches for secrets: every log record (any logger, as emitted,
before the production formatter's redaction) and every answer the core gives.

Redaction (services/runtime/logging.py) is a second line of defence; the suite proves the
first one: no code path puts a secret into a message, a traceback, an answer or a repr.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Iterable

import httpx

__all__ = ["SecretWatch"]


class SecretWatch(logging.Handler):
    """Collects texts (log records, answers, reprs) and finds the secrets among them."""

    def __init__(self, secrets: Iterable[str]) -> None:
        super().__init__(logging.DEBUG)
        self.secrets = {s for s in secrets if s}
        self.texts: list[tuple[str, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:  # a broken format string: keep what there is
            message = f"{record.msg!r} % {record.args!r}"
        self.texts.append((f"log {record.name}", message))
        if record.exc_info and record.exc_info[1] is not None:
            shown = "".join(traceback.format_exception(record.exc_info[1]))
            self.texts.append((f"traceback {record.name}", shown))

    def see(self, where: str, text: str) -> None:
        """Watch `text` (a repr, an error's text) too."""
        self.texts.append((where, text))

    async def answer(self, response: httpx.Response) -> None:
        """An httpx response hook: the answer's status line, headers and body."""
        await response.aread()
        where = f"answer {response.request.method} {response.request.url.path}"
        self.texts.append((where, f"{response.status_code} {response.headers!r}"))
        self.texts.append((where, response.text))

    def leaks(self) -> list[str]:
        """Where each secret was seen (the secret itself left out)."""
        return [
            f"{where}: secret #{sorted(self.secrets).index(secret)}"
            for where, text in self.texts
            for secret in self.secrets
            if secret in text
        ]
