"""scan-gateway in memory (TestNatsBroker) on the real moto S3: what is its own, OQ-71 (attempt
1 when the body has none) and the raw result set. The contract's answer table runs over both
services in tests/runtime/test_answer_table.py."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import pytest

from services.contract import Kind
from services.runtime.recognizer import ErrorCode
from services.runtime.settings import S3Settings
from services.runtime.storage import S3Storage
from services.scan_gateway.app import create_app
from services.scan_gateway.raw import RawArchive
from services.scan_gateway.recognizer import ScanGatewayRecognizer
from services.scan_gateway.settings import ScanGatewaySettings
from tests.support.recognition_service import (
    RecordingStorage,
    ServiceHarness,
    ack_id,
    contract_errors,
    example,
    healthcheck,
    result_id,
    serving,
)

from ._resultsets import encode, minimal_balance_item
from ._support import GatedSource, gateway_settings, request_body

UPLOAD = b"%PDF-1.7 stand-in bytes; the scripted source does not read them"


@dataclass(kw_only=True)
class Harness(ServiceHarness[ScanGatewaySettings]):
    """The gateway under TestNatsBroker, its result-set source scripted."""

    source: GatedSource

    async def new_request(self, **overrides: Any) -> dict[str, Any]:
        key = f"uploads/{uuid.uuid4()}/scan.pdf"
        await self.s3.put_bytes(self.bucket, key, UPLOAD)
        return request_body(self.bucket, key, **overrides)


@pytest.fixture
def run_app(s3_settings: S3Settings, s3: S3Storage, bucket: str) -> Callable[..., Any]:
    """`async with run_app() as h:` — the app in memory with a scripted result-set source."""

    @asynccontextmanager
    async def run(gate: asyncio.Event | None = None, **overrides: Any) -> AsyncIterator[Harness]:
        settings = gateway_settings(s3_settings, **overrides)
        harness = Harness(
            settings=settings,
            request_subject=settings.nats.nats_image_request_subject,
            s3=s3,
            bucket=bucket,
            source=GatedSource({"page-1.json": encode(minimal_balance_item())}, gate),
        )
        storage = RecordingStorage(s3, harness.events)
        recognizer = ScanGatewayRecognizer(harness.source, archive=RawArchive(storage))
        async with serving(create_app(settings, recognizer, storage=storage), harness):
            yield harness

    return run


def assert_error(body: dict[str, Any], request: dict[str, Any], code: ErrorCode) -> None:
    assert contract_errors(Kind.RESULT_MESSAGE, body) == []
    assert body["status"] == "error"
    assert body["job_id"] == request["job_id"] and body["file_id"] == request["file_id"]
    assert body["service"]["name"] == "scan-gateway"
    assert body["error"]["code"] == code.value and body["error"]["message"]


@pytest.mark.parametrize("header", [None, "garbage", "same-job:5"])
async def test_schema_mismatch_without_attempt_in_the_body_answers_attempt_one(
    run_app: Callable[..., Any], header: str | None
) -> None:
    """OQ-71, scan-gateway: no attempt in the body → the answer carries attempt 1, whatever the
    request's Nats-Msg-Id says."""
    async with run_app() as h:
        request = await h.new_request()
        body = dict(request)
        del body["attempt"]
        if header == "same-job:5":
            header = f"{request['job_id']}:5"
        await h.send(body, msg_id=header)
        assert h.ids() == [f"result:{request['job_id']}:1"]
        assert_error(h.published[0][1], request, ErrorCode.SCHEMA_MISMATCH)


async def test_valid_request_acks_first_then_stores_raw_and_result_then_publishes(
    run_app: Callable[..., Any], s3: S3Storage
) -> None:
    """Ack before the S3 read; the raw result set under raw/{file_id}/{job_id}/ and the result
    file are written; the envelope names both (raw_s3_key) and is needs_check like the file."""
    async with run_app() as h:
        request = await h.new_request()
        await h.send(request)
        assert h.ids() == [ack_id(request), result_id(request)]
        kinds = [k for k, _ in h.events.items]
        assert kinds.index("publish") < kinds.index("s3.get")
        ack, result = h.published[0][1], h.published[1][1]
        assert contract_errors(Kind.RESULT_MESSAGE, ack) == [] and ack["status"] == "processing"
        assert contract_errors(Kind.RESULT_MESSAGE, result) == []
        assert result["status"] == "needs_check"
        prefix = f"raw/{request['file_id']}/{request['job_id']}/"
        assert result["raw_s3_key"] == prefix + "result-set.json"
        assert prefix + "page-1.json" in h.events.kinds("s3.put")
        manifest = json.loads(await s3.get_bytes(h.bucket, result["raw_s3_key"], 10**6))
        assert manifest["items"] == ["page-1.json"] and manifest["source_job_id"] == "fake-1"
        stored = json.loads(
            await s3.get_bytes(result["result_s3"]["bucket"], result["result_s3"]["key"], 10**7)
        )
        assert contract_errors(Kind.RESULT, stored) == []
        assert stored["group_schema"] == "rsbu"
        assert stored["service"]["statements_version"].startswith("arm_statements-")
        assert stored["documents"] == example("result-statement-minimal.json")["documents"]


async def test_healthcheck_serves_the_image_and_result_subjects(
    s3_settings: S3Settings,
) -> None:
    """/healthcheck answers 200 with subjects {image_request, result} even without NATS."""
    settings = gateway_settings(s3_settings)
    response = await healthcheck(create_app(settings, ScanGatewayRecognizer(GatedSource({}))))
    assert response.status_code == 200
    body = response.json()
    assert body["service"] == "scan-gateway"
    assert body["subjects"] == {
        "image_request": settings.nats.nats_image_request_subject,
        "result": settings.nats.nats_result_subject,
    }
