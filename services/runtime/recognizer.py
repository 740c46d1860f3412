"""The seam between the shared request protocol and a service's recogniser.

Both recognition services run the same protocol (ack first, idempotency, S3, result file,
envelope, publish retries); they differ only in the `Recognizer` they plug in. A recogniser
turns the bytes of one uploaded file into a `Recognition` (what goes into the result file), or
raises `RecognitionFailed` with a contract error code.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, Protocol

__all__ = [
    "ErrorCode",
    "FileStatus",
    "GroupSchema",
    "Job",
    "Recognition",
    "RecognitionFailed",
    "Recognizer",
]


class ErrorCode(StrEnum):
    """`error.code` values of the result envelope (spec 001)."""

    UNSUPPORTED_FORMAT = "UNSUPPORTED_FORMAT"
    UNREADABLE = "UNREADABLE"
    TIMEOUT = "TIMEOUT"
    SCHEMA_MISMATCH = "SCHEMA_MISMATCH"
    NOT_IMPLEMENTED = "NOT_IMPLEMENTED"
    FILE_READ_ERROR = "FILE_READ_ERROR"
    INVALID_FORMAT = "INVALID_FORMAT"
    INVALID_DOCUMENT = "INVALID_DOCUMENT"
    RECOGNITION_FAILED = "RECOGNITION_FAILED"
    UNKNOWN_ERROR = "UNKNOWN_ERROR"


class RecognitionFailed(Exception):
    """Nothing could be produced for this file; the job ends with `status = error`."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    def __reduce__(self) -> tuple[type[RecognitionFailed], tuple[ErrorCode, str]]:
        # Pickles by its attributes, so it crosses the worker-process boundary intact.
        return (type(self), (self.code, self.message))


@dataclass(frozen=True, slots=True)
class Job:
    """What a recogniser may know about the request it serves (a validated request)."""

    job_id: uuid.UUID
    file_id: uuid.UUID
    attempt: int
    file_type: str
    original_name: str
    bucket: str
    key: str
    reply_deadline: dt.datetime


FileStatus = Literal["done", "needs_check"]
GroupSchema = Literal["rsbu", "osv", "mixed"] | None


@dataclass(slots=True)
class Recognition:
    """The content of a result file, before the protocol adds ids, service and timings.

    `documents` and `warnings` are contract-shaped dicts (osvDocument / statementDocument and
    file-level warning structures of the 2.0 result schema).
    """

    documents: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[dict[str, Any]] = field(default_factory=list)
    group_schema: GroupSchema = None
    statements_version: str | None = None
    raw_s3_key: str | None = None

    @property
    def status(self) -> FileStatus:
        """File status rule (CONTRACT.md): needs_check when any document is, or any file
        warning has severity error; otherwise done."""
        if any(d.get("status") == "needs_check" for d in self.documents):
            return "needs_check"
        if any(w.get("severity") == "error" for w in self.warnings):
            return "needs_check"
        return "done"


class Recognizer(Protocol):
    """Turns one uploaded file into a `Recognition`.

    Called once per job, after the ack is out and the object is read. It must not block the
    event loop: CPU-bound work belongs in a worker process (services.runtime.sandbox).
    """

    async def recognize(self, data: bytes, job: Job) -> Recognition: ...
