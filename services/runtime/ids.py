"""The ids of the exchange, built and read in one place: job / file UUIDs and `Nats-Msg-Id`.

A `job_id` or `file_id` counts only in the canonical form the schema's pattern gives
(8-4-4-4-12 hex digits): Python's `uuid.UUID` also reads `urn:uuid:…`, `{…}` and hyphenless
forms, and an answer carrying the id rewritten would name a job nobody asked about (spec 001:
a job_id that is not a uuid gets no answer).

A request's `Nats-Msg-Id` is `<job_id>:<attempt>`, its ack `ack:<job_id>:<attempt>` and its
result `result:<job_id>:<attempt>`: the job in canonical UUID form, the attempt an integer >= 1. The
services build them (`msg_id`), the services read a request's (`parse_request_msg_id`, the
OQ-71 attempt policy), the core reads an answer's (`parse_answer_msg_id`, to drop a stale
attempt's answer), and the AsyncAPI documents show the same patterns (`PATTERNS`).
Importing this module pulls in nothing but the standard library.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "ANSWER_KINDS",
    "MSG_ID_HEADER",
    "PATTERNS",
    "MsgId",
    "MsgKind",
    "msg_id",
    "parse_answer_msg_id",
    "parse_msg_id",
    "parse_request_msg_id",
    "parse_uuid",
]

MSG_ID_HEADER = "Nats-Msg-Id"

MsgKind = Literal["request", "ack", "result"]
ANSWER_KINDS: tuple[MsgKind, ...] = ("ack", "result")

_UUID = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_ATTEMPT = "[1-9][0-9]*"
_BASE = f"(?P<job>{_UUID}):(?P<attempt>{_ATTEMPT})"
_CANONICAL_UUID = re.compile(_UUID)
_PARSE = re.compile(f"(?:(?P<kind>{'|'.join(ANSWER_KINDS)}):)?{_BASE}")

PATTERNS: Mapping[Literal["request", "answer"], str] = {
    "request": f"^{_UUID}:{_ATTEMPT}$",
    "answer": f"^({'|'.join(ANSWER_KINDS)}):{_UUID}:{_ATTEMPT}$",
}
"""The JSON Schema `pattern` of a request's id and of an answer's (ack or result) id."""


def parse_uuid(value: object) -> uuid.UUID | None:
    """A job or file id in its canonical form → UUID; None for anything else."""
    if not isinstance(value, str) or _CANONICAL_UUID.fullmatch(value) is None:
        return None
    return uuid.UUID(value)


@dataclass(frozen=True, slots=True)
class MsgId:
    """A parsed id: the job, its attempt, and what kind of message carries it."""

    job_id: uuid.UUID
    attempt: int
    kind: MsgKind = "request"


def msg_id(kind: MsgKind, job_id: uuid.UUID | str, attempt: int) -> str:
    """The `Nats-Msg-Id` of a request, ack or result of one job attempt."""
    base = f"{job_id}:{attempt}"
    return base if kind == "request" else f"{kind}:{base}"


def parse_msg_id(value: str | None) -> MsgId | None:
    """Any of the three forms → MsgId; None when absent or malformed."""
    if not value:
        return None
    match = _PARSE.fullmatch(value.strip())
    if match is None:
        return None
    kind: MsgKind = "request"
    if match.group("kind") == "ack":
        kind = "ack"
    elif match.group("kind") == "result":
        kind = "result"
    return MsgId(uuid.UUID(match.group("job")), int(match.group("attempt")), kind)


def parse_request_msg_id(value: str | None) -> MsgId | None:
    """`<job_id>:<attempt>` → MsgId; None when absent, malformed or an answer's id."""
    parsed = parse_msg_id(value)
    return parsed if parsed is not None and parsed.kind == "request" else None


def parse_answer_msg_id(value: str | None) -> MsgId | None:
    """`ack:` / `result:<job_id>:<attempt>` → MsgId; None otherwise."""
    parsed = parse_msg_id(value)
    return parsed if parsed is not None and parsed.kind != "request" else None
