"""Log redaction: a registered secret never reaches a log line, even inside a traceback."""

from __future__ import annotations

import io
import logging
import uuid
from collections.abc import Iterator

import pytest

from services.runtime.logging import (
    REDACTED,
    RedactingFilter,
    RedactingFormatter,
    configure_logging,
    redact,
    register_secret,
)


def _logger_to(stream: io.StringIO) -> logging.Logger:
    logger = logging.getLogger(f"test.redaction.{uuid.uuid4().hex}")
    logger.propagate = False
    handler = logging.StreamHandler(stream)
    handler.setFormatter(RedactingFormatter("%(levelname)s %(message)s"))
    handler.addFilter(RedactingFilter())
    logger.addHandler(handler)
    return logger


def test_secret_in_message_and_args_is_redacted() -> None:
    """A registered value is replaced by *** whether it is in the format string or an arg."""
    secret = f"jwt-{uuid.uuid4().hex}"
    register_secret(secret)
    stream = io.StringIO()
    logger = _logger_to(stream)
    logger.warning("connecting with %s", secret)
    logger.warning(f"inline {secret}")
    out = stream.getvalue()
    assert secret not in out
    assert out.count(REDACTED) == 2


def test_secret_in_a_traceback_is_redacted() -> None:
    """An exception text quoting a secret is redacted in the formatted traceback too."""
    secret = f"seed-{uuid.uuid4().hex}"
    register_secret(secret)
    stream = io.StringIO()
    logger = _logger_to(stream)
    try:
        raise RuntimeError(f"auth failed for {secret}")
    except RuntimeError:
        logger.exception("boom")
    out = stream.getvalue()
    assert "RuntimeError: auth failed for ***" in out
    assert secret not in out


def test_each_line_of_a_multiline_secret_is_redacted() -> None:
    """A credentials blob is redacted line by line (a library may print one line of it)."""
    first, second = f"line-one-{uuid.uuid4().hex}", f"line-two-{uuid.uuid4().hex}"
    register_secret(f"{first}\n{second}\n")
    assert redact(f"saw {second}") == f"saw {REDACTED}"


def test_short_or_empty_values_are_not_registered() -> None:
    """Values too short to be credentials would garble every line; they are ignored."""
    register_secret("")
    register_secret(None)
    register_secret("abc")
    assert redact("abc def") == "abc def"


@pytest.fixture
def restore_root_logger() -> Iterator[None]:
    """configure_logging changes the root logger; put it back for the other tests."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    filters = {h: list(h.filters) for h in handlers}
    yield
    for handler in list(root.handlers):
        if handler not in handlers:
            root.removeHandler(handler)
    for handler, kept in filters.items():
        handler.filters[:] = kept
    root.setLevel(level)


@pytest.mark.usefixtures("restore_root_logger")
def test_configure_logging_redacts_records_on_existing_handlers(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """After configure_logging, even pytest's capture handler sees the redacted message."""
    secret = f"token-{uuid.uuid4().hex}"
    register_secret(secret)
    configure_logging(logging.INFO)
    with caplog.at_level(logging.INFO):
        logging.getLogger("test.redaction.root").info("token is %s", secret)
    assert secret not in caplog.text
    assert "token is ***" in caplog.text
