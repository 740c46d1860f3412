"""The OQ-71 attempt policies: which attempt a SCHEMA_MISMATCH answer carries.

A request that fails the schema may still name a job; its answer needs the `attempt` for the
`result:<job_id>:<attempt>` message id. Spec 001 takes it from the body; when the body has no
usable attempt the services differ (OQ-71): tabular-parser reads the request's own
`Nats-Msg-Id` (`<job_id>:<attempt>`) or does not answer; scan-gateway answers with 1.
"""

from __future__ import annotations

import uuid
from typing import Protocol

from services.runtime.ids import parse_request_msg_id

__all__ = [
    "AttemptPolicy",
    "attempt_from_body",
    "attempt_from_body_or_header",
    "attempt_from_body_or_one",
]


class AttemptPolicy(Protocol):
    """Pick the attempt of a request that failed the schema, or None for "no answer"."""

    def __call__(
        self, body_attempt: object, request_msg_id: str | None, job_id: uuid.UUID
    ) -> int | None: ...


def attempt_from_body(body_attempt: object) -> int | None:
    """The body's `attempt` when it is a usable one: an integer >= 1, not a bool.

    JSON Schema calls 2.0 an integer, so a producer that writes `2.0` sent attempt 2; reading it
    as anything else would answer under another attempt's Nats-Msg-Id.
    """
    if isinstance(body_attempt, bool):
        return None
    if isinstance(body_attempt, float) and body_attempt.is_integer():
        body_attempt = int(body_attempt)
    if isinstance(body_attempt, int) and body_attempt >= 1:
        return body_attempt
    return None


def attempt_from_body_or_header(
    body_attempt: object, request_msg_id: str | None, job_id: uuid.UUID
) -> int | None:
    """tabular-parser: the body, else the request's `Nats-Msg-Id`, else no answer."""
    found = attempt_from_body(body_attempt)
    if found is not None:
        return found
    parsed = parse_request_msg_id(request_msg_id)
    # The header counts only when it names this very job.
    return parsed.attempt if parsed is not None and parsed.job_id == job_id else None


def attempt_from_body_or_one(
    body_attempt: object, request_msg_id: str | None, job_id: uuid.UUID
) -> int | None:
    """scan-gateway: the body, else 1."""
    found = attempt_from_body(body_attempt)
    return 1 if found is None else found
