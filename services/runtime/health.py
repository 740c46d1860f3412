"""`GET /healthcheck` and the start-up log line of subjects (spec 001).

The answer is 200 JSON `{service, version, status, nats, nats_server, subjects}` whatever the
state of NATS: it reads the client's state and never waits on the network. `nats_server` is the
`host:port` the client is connected to (null while not connected), so an operator of a cluster
sees which node each replica is on; it is built from host and port only, never from a URL's
user-info. `subjects` holds only the roles the service uses, so a core and a service with
diverging settings can be told apart from outside.
Nothing secret is in it: subjects are names, not credentials.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any, Literal

from faststream.asgi import AsgiResponse, get
from faststream.asgi.handlers import GetHandler
from faststream.nats import NatsBroker

from services.runtime.settings import NatsSettings, SubjectRole

__all__ = [
    "HEALTHCHECK_PATH",
    "NatsState",
    "connected_server",
    "health_payload",
    "healthcheck_route",
    "log_subjects",
    "nats_state",
]

HEALTHCHECK_PATH = "/healthcheck"

NatsState = Literal["connected", "connecting", "reconnecting", "draining", "closed", "disconnected"]

log = logging.getLogger("services.runtime.health")


def nats_state(broker: NatsBroker | None) -> NatsState:
    """The broker's connection state, read without I/O and without raising."""
    if broker is None:
        return "disconnected"
    try:
        client = broker.connection
    except Exception:  # not connected yet (FastStream raises IncorrectState)
        return "disconnected"
    try:
        if client.is_connected:
            return "connected"
        if client.is_reconnecting:
            return "reconnecting"
        if client.is_connecting:
            return "connecting"
        if client.is_draining:
            return "draining"
        if client.is_closed:
            return "closed"
    except Exception:
        return "disconnected"
    return "disconnected"


def connected_server(broker: NatsBroker | None) -> str | None:
    """`host:port` of the server the broker is connected to now; None when not connected."""
    if nats_state(broker) != "connected" or broker is None:
        return None
    try:
        url = broker.connection.connected_url
        if url is None or url.hostname is None:
            return None
        host = f"[{url.hostname}]" if ":" in url.hostname else url.hostname
        return f"{host}:{url.port or 4222}"
    except Exception:
        return None


def health_payload(
    *,
    service: str,
    version: str,
    subjects: Mapping[str, str],
    broker: NatsBroker | None,
) -> dict[str, Any]:
    """The body of /healthcheck."""
    return {
        "service": service,
        "version": version,
        "status": "ok",
        "nats": nats_state(broker),
        "nats_server": connected_server(broker),
        "subjects": dict(subjects),
    }


def healthcheck_route(
    *,
    service: str,
    version: str,
    nats: NatsSettings,
    roles: tuple[SubjectRole, ...],
    broker: NatsBroker | None,
) -> tuple[str, GetHandler]:
    """`("/healthcheck", handler)` for `AsgiFastStream(asgi_routes=[...])`.

    `roles` are the subject roles the service uses (e.g. `("tabular_request", "result")`).
    """
    subjects = nats.subjects(*roles)

    @get(include_in_schema=False)
    async def healthcheck(scope: Any) -> AsgiResponse:
        """Liveness and the subjects in use; answered whatever the state of NATS."""
        body = health_payload(service=service, version=version, subjects=subjects, broker=broker)
        return AsgiResponse(
            json.dumps(body, ensure_ascii=False).encode(),
            status_code=200,
            headers={"content-type": "application/json"},
        )

    return HEALTHCHECK_PATH, healthcheck


def log_subjects(
    service: str,
    nats: NatsSettings,
    roles: tuple[SubjectRole, ...],
    logger: logging.Logger | None = None,
) -> None:
    """The start-up line listing the subjects the service uses."""
    subjects = nats.subjects(*roles)
    listed = ", ".join(f"{role}={subject}" for role, subject in subjects.items())
    (logger or log).info("%s uses NATS subjects: %s", service, listed)
