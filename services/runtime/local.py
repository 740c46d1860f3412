"""Recognising a local file without NATS or S3, through the services' own code path.

The `parse` commands (`python -m services.tabular_parser FILE`, `arm-ka parse FILE`) call the
same `Recognizer` a service plugs into its request protocol, read its answer by the same rule
(`recognizer.recognize_checked`) and build the body with the same builders
(services.runtime.envelopes), so what a laptop prints is the document the service would write
to S3, or the error envelope it would publish, instead of a traceback.
"""

from __future__ import annotations

import datetime as dt
import time
import uuid
from typing import Any

from services.runtime.envelopes import ServiceInfo, error_envelope, result_file
from services.runtime.recognizer import Job, RecognitionFailed, Recognizer, recognize_checked

__all__ = ["LOCAL_BUCKET", "local_job", "recognize_local"]

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


async def recognize_local(
    recognizer: Recognizer,
    service: ServiceInfo,
    data: bytes,
    *,
    name: str,
    file_type: str,
    timeout_seconds: float = 600.0,
) -> dict[str, Any]:
    """The 2.0 result file of `data`, or an error body when nothing could be recognised."""
    job = local_job(name, file_type, timeout_seconds=timeout_seconds)
    started = time.monotonic()
    try:
        recognition = await recognize_checked(recognizer, data, job)
    except RecognitionFailed as failure:
        return error_envelope(job.job_id, job.file_id, service, failure, _elapsed_ms(started))
    return result_file(job, recognition, service, _elapsed_ms(started))


def _elapsed_ms(started: float) -> int:
    return max(0, round((time.monotonic() - started) * 1000))
