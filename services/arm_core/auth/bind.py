"""The bind-address rule: without an identity provider arm-core listens on loopback only.

`check_bind` refuses (a `SettingsError` naming AUTH_ISSUER) any other address when no issuer
is configured. It runs where the address is known before a socket is opened: in
`python -m services.arm_core serve --host …`, and in `create_app` when the process is the
uvicorn CLI (compose and the Dockerfile run `uvicorn … --factory --host 0.0.0.0`), whose
`--host` / `--uds` / `UVICORN_HOST` say where it will listen. A UNIX socket is no loopback
address (a proxy in front of it may serve anyone, and its requests name no client): it needs
an issuer too. Whatever else starts the app, the dependency refuses non-loopback clients.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from services.arm_core.settings import AuthSettings, is_loopback_host
from services.runtime.settings import SettingsError

__all__ = [
    "UNAUTHENTICATED_WARNING",
    "announce",
    "auth_state",
    "check_bind",
    "is_loopback",
    "uvicorn_bind",
]

UNAUTHENTICATED_WARNING = (
    "arm-core is UNAUTHENTICATED: no identity provider (OPENBAO__AUTH__AUTH_ISSUER) is "
    "configured, so every loopback request acts as 'local' with all roles and other clients "
    "are refused; set the issuer before serving anyone else"
)

# uvicorn's own default host.
_UVICORN_DEFAULT_HOST = "127.0.0.1"


def is_loopback(host: str | None) -> bool:
    """True for localhost, 127.0.0.0/8 and ::1; False for anything else, 0.0.0.0 and ::
    included (they listen on every interface), and None (an unknown client)."""
    return is_loopback_host(host)


def check_bind(settings: AuthSettings, host: str) -> None:
    """Refuse to listen on `host` unauthenticated unless it is a loopback address."""
    if settings.enabled or is_loopback(host):
        return
    raise SettingsError(
        {
            "OPENBAO__AUTH__AUTH_ISSUER": (
                f"is required to listen on {host}: without an identity provider arm-core "
                "serves loopback (127.0.0.1, ::1, localhost) only"
            )
        }
    )


def _option(argv: Sequence[str], name: str) -> str | None:
    for i, arg in enumerate(argv):
        if arg == name and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return None


def uvicorn_bind(
    argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None
) -> str | None:
    """Where the uvicorn CLI running this process will listen; None when it is not the
    uvicorn CLI (tests, another server), which the per-request rule then covers."""
    argv = sys.argv if argv is None else argv
    environ = os.environ if environ is None else environ
    if not argv:
        return None
    program = Path(argv[0])
    if program.name != "uvicorn" and program.parent.name != "uvicorn":
        return None
    uds = _option(argv, "--uds") or environ.get("UVICORN_UDS")
    if uds:
        return f"unix:{uds}"
    if _option(argv, "--fd") or environ.get("UVICORN_FD"):
        return None
    return _option(argv, "--host") or environ.get("UVICORN_HOST") or _UVICORN_DEFAULT_HOST


def auth_state(settings: AuthSettings) -> dict[str, Any]:
    """The `auth` member of /healthcheck: the mode, and the loud warning when unauthenticated."""
    if settings.enabled:
        return {"mode": "oidc", "issuer": settings.auth_issuer}
    return {"mode": "unauthenticated", "warning": UNAUTHENTICATED_WARNING}


def announce(settings: AuthSettings, logger: logging.Logger) -> None:
    """Say at start how requests are authenticated: loudly (WARNING) when they are not."""
    if settings.enabled:
        logger.info(
            "requests are authenticated by the OpenID Connect provider %s", settings.auth_issuer
        )
        if settings.auth_cookie_key is None:
            logger.warning(
                "OPENBAO__AUTH__AUTH_COOKIE_KEY is not set: the refresh cookie is sealed with a "
                "key of this process only, so sessions end at a restart and do not move "
                "between replicas"
            )
    else:
        logger.warning(UNAUTHENTICATED_WARNING)
