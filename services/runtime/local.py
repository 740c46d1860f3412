"""Recognising a local file without NATS or S3, through the services' own code path.

The `parse` commands (`python -m services.tabular_parser FILE`, `arm-ka parse FILE`) call the
same `Recognizer` a service plugs into its request protocol, read its answer by the same rule
(`recognizer.recognize_checked`) and build the body with the same builders
(services.runtime.envelopes), so what a laptop prints is the document the service would write
to S3, or the error envelope it would publish, instead of a traceback. The answer is a
`LocalResult`: its JSON is the worker's encoded documents spliced in as they are
(`result_file_parts`, written piece by piece), so printing a 100k-row ОСВ neither decodes nor re-encodes it; `body()`
decodes when a summary needs the documents.
"""

from __future__ import annotations

import datetime as dt
import time
import uuid
from dataclasses import dataclass
from typing import Any

import orjson

from services.runtime.envelopes import (
    ServiceInfo,
    error_envelope,
    result_file,
    result_file_parts,
)
from services.runtime.recognizer import (
    EncodedRecognition,
    ErrorCode,
    Job,
    Recognition,
    RecognitionFailed,
    Recognizer,
    recognize_checked,
)

__all__ = ["LOCAL_BUCKET", "LocalResult", "local_job", "recognize_local"]

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
        """The 2.0 result file, or the error envelope (documents decoded)."""
        if self.recognition is not None:
            return result_file(self.job, self.recognition, self.service, self.duration_ms)
        return self._error_body()

    def json_bytes(self) -> bytes:
        """`body()` as compact UTF-8 JSON, the worker's encoded documents spliced in."""
        return b"".join(self.json_parts())

    def json_parts(self) -> tuple[bytes, ...]:
        """`json_bytes()` in the pieces a writer writes one after another (the worker's
        encoded documents one of them, not copied into a joined whole)."""
        if self.recognition is not None:
            return result_file_parts(self.job, self.recognition, self.service, self.duration_ms)
        return (orjson.dumps(self._error_body()),)

    def _error_body(self) -> dict[str, Any]:
        failure = self.failure or RecognitionFailed(
            ErrorCode.UNKNOWN_ERROR, "no recognition and no failure"
        )
        return error_envelope(
            self.job.job_id, self.job.file_id, self.service, failure, self.duration_ms
        )


async def recognize_local(
    recognizer: Recognizer,
    service: ServiceInfo,
    data: bytes,
    *,
    name: str,
    file_type: str,
    timeout_seconds: float = 600.0,
) -> LocalResult:
    """The recognition of `data`, or the failure when nothing could be recognised (the
    protocol's own rule: no document → RECOGNITION_FAILED, any other exception UNKNOWN_ERROR)."""
    job = local_job(name, file_type, timeout_seconds=timeout_seconds)
    started = time.monotonic()
    try:
        recognition = await recognize_checked(recognizer, data, job)
    except RecognitionFailed as failure:
        return LocalResult(job, service, _elapsed_ms(started), failure=failure)
    return LocalResult(job, service, _elapsed_ms(started), recognition=recognition)


def _elapsed_ms(started: float) -> int:
    return max(0, round((time.monotonic() - started) * 1000))
