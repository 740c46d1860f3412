"""The shared request protocol used directly, as scan-gateway will: its parameters (pipeline,
file types, the OQ-71 policy, pre-recognition checks) and what it publishes."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from typing import Any

from services.contract import Kind
from services.runtime.envelopes import ServiceInfo
from services.runtime.protocol import (
    ProtocolConfig,
    ProtocolRules,
    RequestProtocol,
    attempt_from_body_or_one,
)
from services.runtime.recognizer import ErrorCode, Job, RecognitionFailed
from services.runtime.service import service_protocol
from services.runtime.settings import S3Settings
from services.runtime.storage import S3Storage
from services.runtime.version import package_version
from services.tabular_parser.app import SPEC, create_app
from services.tabular_parser.settings import TabularParserSettings
from tests.support.recognition_service import contract_errors, service_settings
from tests.tabular_parser.wire._support import StubRecognizer, request_body


class Published:
    def __init__(self) -> None:
        self.items: list[tuple[str, dict[str, Any]]] = []

    async def __call__(self, body: dict[str, Any], msg_id: str) -> None:
        self.items.append((msg_id, body))

    def ids(self) -> list[str]:
        return [mid for mid, _ in self.items]


async def deadline_passed(job: Job) -> None:
    """scan-gateway's pre-recognition check."""
    if job.reply_deadline <= dt.datetime.now(dt.UTC):
        raise RecognitionFailed(ErrorCode.TIMEOUT, "reply_deadline passed before recognition")


def image_protocol(
    s3: S3Storage, published: Published, recognizer: StubRecognizer
) -> RequestProtocol:
    return RequestProtocol(
        ProtocolConfig(
            ProtocolRules(
                name="scan-gateway",
                pipeline="image",
                file_types=frozenset({"PDF", "PNG", "JPG"}),
                attempt_policy=attempt_from_body_or_one,
                pre_checks=(deadline_passed,),
            ),
            "0.1.0",
            max_object_bytes=1_000_000,
        ),
        recognizer=recognizer,
        storage=s3,
        publish=published,
    )


async def test_pre_check_failure_ends_the_job_after_the_ack(s3: S3Storage, bucket: str) -> None:
    """A pre-recognition check (scan-gateway: reply_deadline passed) → ack, then its error code
    (TIMEOUT); the recogniser is never called."""
    await s3.put_bytes(bucket, "uploads/scan.pdf", b"%PDF-1.7")
    body = request_body(
        bucket,
        "uploads/scan.pdf",
        pipeline="image",
        file_type="PDF",
        reply_deadline="2000-01-01T00:00:00Z",
    )
    published, recognizer = Published(), StubRecognizer()
    await image_protocol(s3, published, recognizer).handle(json.dumps(body).encode())
    assert published.ids() == [f"ack:{body['job_id']}:1", f"result:{body['job_id']}:1"]
    result = published.items[1][1]
    assert contract_errors(Kind.RESULT_MESSAGE, result) == []
    assert result["error"]["code"] == "TIMEOUT"
    assert result["service"]["name"] == "scan-gateway"
    assert recognizer.calls == []


async def test_image_protocol_answers_a_tabular_request_with_schema_mismatch(
    s3: S3Storage, bucket: str
) -> None:
    """pipeline ≠ this service → SCHEMA_MISMATCH without ack; with no attempt anywhere the
    scan-gateway policy answers with attempt 1."""
    body = request_body(bucket, "uploads/x.xlsx")
    del body["attempt"]
    published = Published()
    await image_protocol(s3, published, StubRecognizer()).handle(json.dumps(body).encode(), {})
    assert published.ids() == [f"result:{body['job_id']}:1"]
    assert published.items[0][1]["error"]["code"] == "SCHEMA_MISMATCH"


async def test_publish_that_raises_does_not_escape(s3: S3Storage, bucket: str) -> None:
    """Whatever the publisher raises, handle() returns: the service never dies of a request."""
    await s3.put_bytes(bucket, "uploads/scan.png", b"\x89PNG")
    body = request_body(bucket, "uploads/scan.png", pipeline="image", file_type="PNG")

    async def broken(body: dict[str, Any], msg_id: str) -> None:
        raise RuntimeError("publisher is broken")

    recognizer = StubRecognizer()
    protocol = image_protocol(s3, Published(), recognizer)
    protocol._publish = broken
    await protocol.handle(json.dumps(body).encode())
    assert len(recognizer.calls) == 1
    assert protocol.jobs_in_work() == []
    assert protocol.memory.knows_job(uuid.UUID(body["job_id"]))


def test_a_service_protocol_takes_its_rules_from_the_spec_itself(s3_settings: S3Settings) -> None:
    """ServiceSpec is ProtocolRules plus the app's own fields: the protocol of a built service
    holds the spec itself (nothing copied field by field) and the package version."""
    app = create_app(service_settings(TabularParserSettings, s3_settings), StubRecognizer())
    config = service_protocol(app).config
    assert config.rules is SPEC
    assert config.service == ServiceInfo(SPEC.name, package_version())
