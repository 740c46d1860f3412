"""The seam between the shared request protocol and a service's recogniser.

Both recognition services run the same protocol (ack first, idempotency, S3, result file,
envelope, publish retries); they differ only in the `Recognizer` they plug in. A recogniser
turns the bytes of one uploaded file into a `Recognition` (what goes into the result file), or
raises `RecognitionFailed` with a contract error code.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import uuid
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, Protocol

import orjson

from services.runtime.exceptions import RuntimeServiceError

__all__ = [
    "EncodedRecognition",
    "ErrorCode",
    "FileStatus",
    "GroupSchema",
    "Job",
    "Recognition",
    "RecognitionFailed",
    "Recognizer",
    "encode_documents",
    "recognize_checked",
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


class RecognitionFailed(RuntimeServiceError):
    """Nothing could be produced for this file; the job ends with `status = error`.

    `warnings` are the file-level warnings found before giving up (e.g. SHEET_OTHER for every
    sheet of a workbook where no document was recognised): spec 001 puts file warnings in
    `metrics.warnings` also when there is no document, so the error envelope carries them.
    """

    def __init__(
        self, code: ErrorCode, message: str, *, warnings: list[dict[str, Any]] | None = None
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.warnings: list[dict[str, Any]] = list(warnings or [])

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickles by its attributes, so it crosses the worker-process boundary intact.
        return (_rebuild_failure, (self.code, self.message, self.warnings))


def _rebuild_failure(
    code: ErrorCode, message: str, warnings: list[dict[str, Any]]
) -> RecognitionFailed:
    return RecognitionFailed(code, message, warnings=warnings)


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

    @property
    def document_count(self) -> int:
        return len(self.documents)

    def encode(self) -> EncodedRecognition:
        """The same recognition with its documents as JSON bytes (see `EncodedRecognition`)."""
        return EncodedRecognition(
            documents_json=encode_documents(self.documents),
            document_count=len(self.documents),
            status=self.status,
            warnings=self.warnings,
            group_schema=self.group_schema,
            statements_version=self.statements_version,
            raw_s3_key=self.raw_s3_key,
        )


@dataclass(frozen=True, slots=True)
class EncodedRecognition:
    """A `Recognition` whose documents are already UTF-8 JSON (a JSON array).

    What a worker process hands back: a large result (a 100k-row ОСВ is ~40 MB of JSON)
    crosses the process boundary and reaches S3 as one bytes object, so the service's event
    loop never unpickles nor encodes the documents. The rest stays plain data.
    """

    documents_json: bytes
    document_count: int
    status: FileStatus
    warnings: list[dict[str, Any]] = field(default_factory=list)
    group_schema: GroupSchema = None
    statements_version: str | None = None
    raw_s3_key: str | None = None

    def decoded_documents(self) -> list[dict[str, Any]]:
        """The documents decoded (for local use; the service writes the bytes as they are)."""
        decoded: list[dict[str, Any]] = json.loads(self.documents_json)
        return decoded


class Recognizer(Protocol):
    """Turns one uploaded file into a `Recognition` (or one already encoded).

    Called once per job, after the ack is out and the object is read. It must not block the
    event loop: CPU-bound work belongs in a worker process (services.runtime.sandbox), which
    should return an `EncodedRecognition` when the result can be large.
    """

    async def recognize(self, data: bytes, job: Job) -> Recognition | EncodedRecognition: ...


async def recognize_checked(
    recognizer: Recognizer, data: bytes, job: Job
) -> Recognition | EncodedRecognition:
    """`recognizer.recognize`, read the way the contract reads it, for the protocol and the
    local `parse` alike.

    A recognition with no document is RECOGNITION_FAILED (documents may be empty only when
    status = error), carrying the file warnings; anything the recogniser raises that is not
    `RecognitionFailed` is UNKNOWN_ERROR naming the exception's class (its text may quote the
    file), with the exception as `__cause__` for the caller's traceback log.
    """
    try:
        recognition = await recognizer.recognize(data, job)
    except (RecognitionFailed, asyncio.CancelledError):
        raise
    except Exception as exc:
        raise RecognitionFailed(
            ErrorCode.UNKNOWN_ERROR, f"recogniser raised {type(exc).__name__}"
        ) from exc
    if not recognition.document_count:
        raise RecognitionFailed(
            ErrorCode.RECOGNITION_FAILED, "no document recognised", warnings=recognition.warnings
        )
    return recognition


def encode_documents(documents: list[dict[str, Any]]) -> bytes:
    """The documents as one UTF-8 JSON array, Cyrillic as is (orjson, compact separators).

    orjson writes straight into one bytes object, about 8x faster than `json.dumps` and without
    a Python str of the whole result next to its bytes. A dict key that is not a str (which
    `json.dumps` would write as a string) is retried with orjson's option for it, which costs a
    third more on every key and so is not the first try; what orjson still refuses (an int
    beyond 64 bits, a subclass it does not know) falls back to `json.dumps`, so nothing
    JSON-able fails. NaN and infinities never occur in documents (amounts are strings).
    """
    try:
        return orjson.dumps(documents)
    except orjson.JSONEncodeError:
        pass
    try:
        return orjson.dumps(documents, option=orjson.OPT_NON_STR_KEYS)
    except orjson.JSONEncodeError:
        return json.dumps(documents, ensure_ascii=False).encode("utf-8")
