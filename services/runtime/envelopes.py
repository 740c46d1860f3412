"""The bodies a recognition service produces, built once: the result file and the envelopes.

The request protocol publishes them and the local `parse` commands print them, so a file
recognised on a laptop is the document (or the error envelope) the service would write.
Spec 001: the envelope carries `schema_version`, the ids, `status` and `service`; an ack is
only that (`processing`); an error adds `error {code, message}` and `metrics` (the file
warnings found before giving up: they travel where no document is); a done / needs_check
envelope points at the result file.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

from services.runtime.recognizer import (
    EncodedRecognition,
    ErrorCode,
    Job,
    Recognition,
    RecognitionFailed,
)

__all__ = [
    "RESULT_SCHEMA_VERSION",
    "ServiceInfo",
    "ack_envelope",
    "envelope",
    "error_envelope",
    "result_envelope",
    "result_file",
    "result_file_bytes",
    "result_file_parts",
    "result_key",
]

RESULT_SCHEMA_VERSION = "2.0"


@dataclass(frozen=True, slots=True)
class ServiceInfo:
    """`service {name, version}` of every envelope and result file."""

    name: str
    version: str


def envelope(
    job_id: uuid.UUID, file_id: uuid.UUID, status: str, service: ServiceInfo
) -> dict[str, Any]:
    """The fields every envelope has, in the contract's order."""
    return {
        "schema_version": RESULT_SCHEMA_VERSION,
        "job_id": str(job_id),
        "file_id": str(file_id),
        "status": status,
        "service": {"name": service.name, "version": service.version},
    }


def ack_envelope(job: Job, service: ServiceInfo) -> dict[str, Any]:
    """The ack: `status = processing`, nothing else."""
    return envelope(job.job_id, job.file_id, "processing", service)


def error_envelope(
    job_id: uuid.UUID,
    file_id: uuid.UUID,
    service: ServiceInfo,
    failure: RecognitionFailed,
    duration_ms: int,
    warnings: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The final error envelope of `failure` (no result file exists); `warnings` default to
    the ones the failure carries."""
    body = envelope(job_id, file_id, "error", service)
    body["error"] = {"code": ErrorCode(failure.code).value, "message": failure.message}
    body["metrics"] = {
        "duration_ms": duration_ms,
        "warnings": list(failure.warnings if warnings is None else warnings),
    }
    return body


def result_envelope(
    job: Job,
    recognition: Recognition | EncodedRecognition,
    service: ServiceInfo,
    *,
    bucket: str,
    duration_ms: int,
) -> dict[str, Any]:
    """The done / needs_check envelope pointing at the result file written to `bucket`."""
    body = envelope(job.job_id, job.file_id, recognition.status, service)
    body["result_s3"] = {"bucket": bucket, "key": result_key(job)}
    body["result_schema_version"] = RESULT_SCHEMA_VERSION
    if recognition.raw_s3_key is not None:
        body["raw_s3_key"] = recognition.raw_s3_key
    body["metrics"] = {"duration_ms": duration_ms, "warnings": recognition.warnings}
    return body


def result_key(job: Job) -> str:
    """Where the result file of a job lives (spec 001)."""
    return f"results/{job.file_id}/{job.job_id}/result.json"


def result_file(
    job: Job,
    recognition: Recognition | EncodedRecognition,
    service: ServiceInfo,
    duration_ms: int,
) -> dict[str, Any]:
    """The 2.0 result file of a recognition (spec 001 «Файл результата»)."""
    body = _result_head(job, recognition, service)
    if isinstance(recognition, EncodedRecognition):
        body["documents"] = recognition.decoded_documents()
    else:
        body["documents"] = recognition.documents
    body["metrics"] = {"duration_ms": duration_ms, "warnings": recognition.warnings}
    return body


def result_file_bytes(
    job: Job,
    recognition: Recognition | EncodedRecognition,
    service: ServiceInfo,
    duration_ms: int,
) -> bytes:
    """`result_file` as the UTF-8 JSON written to S3, Cyrillic kept readable.

    Already encoded documents are spliced in as they are: the event loop encodes only the
    small head and metrics, never the documents of a large workbook.
    """
    return b"".join(result_file_parts(job, recognition, service, duration_ms))


def result_file_parts(
    job: Job,
    recognition: Recognition | EncodedRecognition,
    service: ServiceInfo,
    duration_ms: int,
) -> tuple[bytes, ...]:
    """`result_file_bytes` in the pieces it is joined from, for a writer that can write them
    one after another: the encoded documents (40 MB of a 100k-row ОСВ) are one of them, as
    the worker made them, not copied into a joined whole."""
    if not isinstance(recognition, EncodedRecognition):
        return (_json_bytes(result_file(job, recognition, service, duration_ms)),)
    head = _json_bytes(_result_head(job, recognition, service))
    metrics = _json_bytes({"duration_ms": duration_ms, "warnings": recognition.warnings})
    return (
        head[:-1] + b', "documents": ',
        recognition.documents_json,
        b', "metrics": ' + metrics + b"}",
    )


def _result_head(
    job: Job, recognition: Recognition | EncodedRecognition, service: ServiceInfo
) -> dict[str, Any]:
    """The result file's fields before `documents`, in the file's order."""
    service_body: dict[str, Any] = {"name": service.name, "version": service.version}
    if recognition.statements_version is not None:
        service_body["statements_version"] = recognition.statements_version
    return {
        "schema_version": RESULT_SCHEMA_VERSION,
        "job_id": str(job.job_id),
        "file_id": str(job.file_id),
        "status": recognition.status,
        "service": service_body,
        "group_schema": recognition.group_schema,
    }


def _json_bytes(document: Any) -> bytes:
    return json.dumps(document, ensure_ascii=False).encode("utf-8")
