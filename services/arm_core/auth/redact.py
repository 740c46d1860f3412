"""Credentials in URLs kept out of the access log.

uvicorn's access log writes each request's path with its query string: the login callback's
`code` and `state`, and an `access_token` or `token` a client put in the URL, would be kept
wherever the logs go. `AccessLogRedaction` (a filter on the `uvicorn.access` logger, installed
by `install_auth`) writes their values as `***`.
"""

from __future__ import annotations

import logging
import re

__all__ = ["REDACTED_PARAMETERS", "AccessLogRedaction", "install_access_log_redaction", "redact"]

REDACTED_PARAMETERS = ("code", "state", "access_token", "token", "refresh_token", "id_token")
_NAMES = "|".join(REDACTED_PARAMETERS)
_PARAMETER = re.compile(rf"(?P<head>[?&;](?:{_NAMES})=)[^&;#\s]*", re.IGNORECASE)


def redact(target: str) -> str:
    """`target` (a path with its query) with the credentials' values replaced by `***`."""
    return _PARAMETER.sub(r"\g<head>***", target) if "=" in target else target


class AccessLogRedaction(logging.Filter):
    """Rewrites the path argument of uvicorn's access records (and any string argument)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.msg, str):
            record.msg = redact(record.msg)
        return True


def install_access_log_redaction(logger_name: str = "uvicorn.access") -> None:
    """Put the filter on `logger_name` once (create_app may run more than once a process)."""
    logger = logging.getLogger(logger_name)
    if not any(isinstance(f, AccessLogRedaction) for f in logger.filters):
        logger.addFilter(AccessLogRedaction())
