"""Recognising a local file without NATS or S3, through the services' own code path.

The `parse` commands (`python -m services.tabular_parser FILE`, `arm-ka parse FILE`) call the
same `Recognizer` a service plugs into its request protocol and build the answer with the same
`protocol.result_file`, so what a laptop prints is the document the service would write to S3.
A failure becomes an error body shaped like the contract's error envelope (status, error
{code, message}, metrics) instead of a traceback. The answer is a `LocalResult`: its JSON is the
worker's encoded documents spliced in as they are (`result_file_bytes`), so printing a 100k-row
ОСВ neither decodes nor re-encodes it; `body()` decodes when a summary needs the documents.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import time
import uuid
from dataclasses import dataclass
from typing import Any

import orjson

from services.runtime.protocol import (
    RESULT_SCHEMA_VERSION,
    ServiceInfo,
    result_file,
    result_file_bytes,
)
from services.runtime.recognizer import (
    EncodedRecognition,
    ErrorCode,
    Job,
    Recognition,
    RecognitionFailed,
    Recognizer,
)

__all__ = ["LOCAL_BUCKET", "LocalResult", "error_body", "local_job", "recognise_local"]

LOCAL_BUCKET = "local"
"""The bucket a local job names: nothing is read from or written to it."""


def local_job(name: str, file_type: str, *, timeout_seconds: float) -> Job:
    """A job for one local file: fresh ids, attempt 1, a deadline `timeout_seconds` away."""
    return Job(
        job_id=uuid.uuid4(),
        file_id=uuid.uuid4(),
        attempt=1,
        file_type=file_type,
        original_name=name,
        bucket=LOCAL_BUCKET,
        key=name,
        reply_deadline=dt.datetime.now(dt.UTC) + dt.timedelta(seconds=timeout_seconds),
    )


@dataclass(frozen=True, slots=True)
class LocalResult:
    """One local recognition: what the recogniser returned, or why nothing was recognised."""

    job: Job
    service: ServiceInfo
    duration_ms: int
    recognition: Recognition | EncodedRecognition | None = None
    failure: RecognitionFailed | None = None

    @property
    def status(self) -> str:
        return self.recognition.status if self.recognition is not None else "error"

    def body(self) -> dict[str, Any]:
        """The 2.0 result file, or the error body (documents decoded)."""
        if self.recognition is not None:
            return result_file(self.job, self.recognition, self.service, self.duration_ms)
        return error_body(self.job, self.service, self._failure(), self.duration_ms)

    def json_bytes(self) -> bytes:
        """`body()` as compact UTF-8 JSON, the worker's encoded documents spliced in."""
        if self.recognition is not None:
            return result_file_bytes(self.job, self.recognition, self.service, self.duration_ms)
        body = error_body(self.job, self.service, self._failure(), self.duration_ms)
        return orjson.dumps(body)

    def _failure(self) -> RecognitionFailed:
        if self.failure is None:
            return RecognitionFailed(ErrorCode.UNKNOWN_ERROR, "no recognition and no failure")
        return self.failure


async def recognise_local(
    recognizer: Recognizer,
    service: ServiceInfo,
    data: bytes,
    *,
    name: str,
    file_type: str,
    timeout_seconds: float = 600.0,
) -> LocalResult:
    """The recognition of `data`, or the failure when nothing could be recognised.

    Mirrors the protocol's work step: a recognition with no document is RECOGNITION_FAILED,
    an unexpected exception of the recogniser is UNKNOWN_ERROR (named, never a traceback).
    """
    job = local_job(name, file_type, timeout_seconds=timeout_seconds)
    started = time.monotonic()
    try:
        recognition = await recognizer.recognize(data, job)
        if not recognition.document_count:
            raise RecognitionFailed(
                ErrorCode.RECOGNITION_FAILED,
                "no document recognised",
                warnings=recognition.warnings,
            )
    except RecognitionFailed as failure:
        return LocalResult(job, service, _elapsed_ms(started), failure=failure)
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        unknown = RecognitionFailed(
            ErrorCode.UNKNOWN_ERROR, f"recogniser raised {type(exc).__name__}"
        )
        return LocalResult(job, service, _elapsed_ms(started), failure=unknown)
    return LocalResult(job, service, _elapsed_ms(started), recognition=recognition)


def error_body(
    job: Job, service: ServiceInfo, failure: RecognitionFailed, duration_ms: int
) -> dict[str, Any]:
    """The error envelope a service would publish for this failure (no result file exists),
    with the file warnings found before it (spec 001: they travel where no document is)."""
    return {
        "schema_version": RESULT_SCHEMA_VERSION,
        "job_id": str(job.job_id),
        "file_id": str(job.file_id),
        "status": "error",
        "service": {"name": service.name, "version": service.version},
        "error": {"code": ErrorCode(failure.code).value, "message": failure.message},
        "metrics": {"duration_ms": duration_ms, "warnings": list(failure.warnings)},
    }


def _elapsed_ms(started: float) -> int:
    return max(0, round((time.monotonic() - started) * 1000))
