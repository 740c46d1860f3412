"""What the arm-core tests share besides fixtures: a hand-driven clock, a recording request
publisher, result envelopes and contract examples retargeted at a job, and delivering a result
file to an intake or to a running core as a service would."""

from __future__ import annotations

import copy
import datetime as dt
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from services.arm_core.app import CoreApp
from services.arm_core.db import RecognitionJob
from services.arm_core.exceptions import PublishFailed
from services.arm_core.jobs.intake import Intake, IntakeOutcome
from services.contract import parse_version
from services.runtime.storage import S3Storage

__all__ = [
    "EXAMPLES",
    "T0",
    "FakeClock",
    "RecordingPublisher",
    "ResultPublisher",
    "build_envelope",
    "deliver",
    "example",
    "for_job",
]

T0 = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)


@dataclass
class FakeClock:
    """A clock the test moves by hand."""

    now: dt.datetime = T0

    def __call__(self) -> dt.datetime:
        return self.now

    def advance(self, seconds: float) -> dt.datetime:
        self.now += dt.timedelta(seconds=seconds)
        return self.now


@dataclass
class RecordingPublisher:
    """An in-memory request publisher: records what the relay sends, or fails on demand."""

    sent: list[tuple[dict[str, Any], str, str]] = field(default_factory=list)
    fail: bool = False

    async def __call__(self, body: dict[str, Any], subject: str, msg_id: str) -> None:
        if self.fail:
            raise PublishFailed(body.get("job_id"), subject)
        self.sent.append((body, subject, msg_id))

    def ids(self) -> list[str]:
        return [mid for _, _, mid in self.sent]


def build_envelope(
    job: RecognitionJob, status: str, *, major: int = 2, **extra: Any
) -> dict[str, Any]:
    """A result envelope for `job` that passes the contract of `major` (1 or 2)."""
    body: dict[str, Any] = {
        "schema_version": f"{major}.0",
        "job_id": str(job.id),
        "file_id": str(job.file_id),
        "status": status,
        "service": {"name": "tabular-parser", "version": "1.4.2"},
    }
    if status in ("done", "needs_check"):
        body["result_s3"] = {
            "bucket": "arm-ka",
            "key": f"results/{job.file_id}/{job.id}/result.json",
        }
        body["result_schema_version"] = f"{major}.0"
    if status == "error":
        body["error"] = {"code": "UNREADABLE", "message": "the workbook is damaged"}
    body.update(extra)
    return body


EXAMPLES = Path(__file__).resolve().parents[2] / "contracts" / "examples"


def example(name: str, *, major: int = 2) -> dict[str, Any]:
    """A contract example of `major` (contracts/examples or contracts/examples/v1), parsed."""
    folder = EXAMPLES if major == 2 else EXAMPLES / f"v{major}"
    body: dict[str, Any] = json.loads((folder / name).read_text(encoding="utf-8"))
    return body


def for_job(body: dict[str, Any], job: RecognitionJob) -> dict[str, Any]:
    """A copy of a result file or envelope retargeted at `job` (its job_id and file_id)."""
    out = copy.deepcopy(body)
    out["job_id"], out["file_id"] = str(job.id), str(job.file_id)
    return out


@dataclass
class ResultPublisher:
    """Puts result files in S3 and hands their envelopes to an intake, like a service would."""

    intake: Intake
    storage: S3Storage
    bucket: str

    async def put(self, job: RecognitionJob, result: dict[str, Any] | bytes) -> dict[str, str]:
        """Store a result file for `job` where a service would; returns its result_s3."""
        key = f"results/{job.file_id}/{job.id}/result.json"
        data = result if isinstance(result, bytes) else json.dumps(result).encode()
        await self.storage.put_bytes(self.bucket, key, data, content_type="application/json")
        return {"bucket": self.bucket, "key": key}

    async def deliver(
        self,
        job: RecognitionJob,
        result: dict[str, Any] | bytes | None,
        *,
        status: str | None = None,
        major: int | None = None,
        msg_id: str | None = None,
        **envelope_fields: Any,
    ) -> IntakeOutcome:
        """Store `result` (unless None) and deliver its envelope with Nats-Msg-Id result:<job>:1.

        The envelope's MAJOR and status follow the result file unless given.
        """
        parsed = result if isinstance(result, dict) else {}
        version = parse_version(parsed.get("schema_version")) or (2, 0)
        major = major or version[0]
        body = build_envelope(job, status or parsed.get("status", "done"), major=major)
        body["result_schema_version"] = parsed.get("schema_version", f"{major}.0")
        if result is not None:
            body["result_s3"] = await self.put(job, result)
        body.update(envelope_fields)
        headers = {"Nats-Msg-Id": msg_id or f"result:{job.id}:{job.attempt}"}
        return await self.intake.handle(json.dumps(body).encode(), headers)


async def deliver(
    app: CoreApp, job: RecognitionJob, result: dict[str, Any], envelope: dict[str, Any]
) -> None:
    """Store `result` in the core's bucket and hand the core its envelope, as a service would."""
    core = app.core
    bucket = core.settings.s3.s3_bucket
    key = f"results/{job.file_id}/{job.id}/result.json"
    await core.storage.put_json(bucket, key, result)
    body = {**envelope, "result_s3": {"bucket": bucket, "key": key}}
    headers = {"Nats-Msg-Id": f"result:{job.id}:{job.attempt}"}
    await core.intake.handle(json.dumps(body).encode(), headers)
