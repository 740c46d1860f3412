"""scan-gateway in memory (TestNatsBroker) on the real moto S3: every row of the contract's
answer table for the image pipeline, OQ-71 (attempt 1 when the body has none) and TIMEOUT."""

from __future__ import annotations

import asyncio
import json
import logging
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


@pytest.mark.parametrize(
    "body",
    [
        b"not json {",
        b"[1, 2]",
        json.dumps({"file_id": str(uuid.uuid4())}).encode(),
        json.dumps({"job_id": "nope"}).encode(),
    ],
    ids=["not-json", "array", "no-job-id", "job-id-not-uuid"],
)
async def test_unreadable_request_gets_no_answer(
    run_app: Callable[..., Any], body: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    """Not JSON / not an object / no uuid job_id: nothing published, logged, dropped."""
    caplog.set_level(logging.WARNING)
    async with run_app() as h:
        await h.send(body, msg_id=f"{uuid.uuid4()}:1")
        assert h.published == []
        assert h.events.kinds("s3.get") == []
    assert any("request dropped" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("how", ["no-s3", "unknown-major", "tabular-pipeline", "bad-file-type"])
async def test_off_contract_request_gets_schema_mismatch_without_ack(
    run_app: Callable[..., Any], how: str
) -> None:
    """Fails the schema / unknown MAJOR / the other pipeline: one SCHEMA_MISMATCH with the
    body's attempt, no ack, no S3 read."""
    async with run_app() as h:
        request = await h.new_request(attempt=4)
        body = json.loads(json.dumps(request))
        if how == "no-s3":
            del body["s3"]
        elif how == "unknown-major":
            body["schema_version"] = "2.0"
        elif how == "tabular-pipeline":
            body["pipeline"] = "tabular"
        else:
            body["file_type"] = "TIFF"
        await h.send(body)
        assert h.ids() == [result_id(request)]
        assert_error(h.published[0][1], request, ErrorCode.SCHEMA_MISMATCH)
        assert h.events.kinds("s3.get") == []


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


async def test_off_contract_repeat_of_a_taken_job_gets_no_answer(
    run_app: Callable[..., Any],
) -> None:
    """A request failing the schema for a job this process already took: nothing published."""
    async with run_app() as h:
        request = await h.new_request()
        await h.send(request)
        before = h.ids()
        broken = dict(request)
        del broken["s3"]
        await h.send(broken)
        assert h.ids() == before == [ack_id(request), result_id(request)]


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


async def test_repeat_while_processing_gets_a_second_ack_and_one_result(
    run_app: Callable[..., Any],
) -> None:
    """A repeat during the exchange: ack again, no second read or recognition, one result."""
    gate = asyncio.Event()
    async with run_app(gate=gate) as h:
        request = await h.new_request()
        first = asyncio.create_task(h.send(request))
        await asyncio.wait_for(h.source.started.wait(), 10)
        await h.send(request)
        gate.set()
        await first
        assert h.ids() == [ack_id(request), ack_id(request), result_id(request)]
        assert h.source.calls == 1
        assert len(h.events.kinds("s3.get")) == 1


async def test_repeat_after_done_gets_an_ack_only(run_app: Callable[..., Any]) -> None:
    """A valid repeat of a finished job: ack again, no S3 read, no second result."""
    async with run_app() as h:
        request = await h.new_request()
        await h.send(request)
        await h.send(request)
        assert h.ids() == [ack_id(request), result_id(request), ack_id(request)]
        assert len(h.events.kinds("s3.get")) == 1 and h.source.calls == 1


async def test_missing_object_is_file_read_error_after_the_ack(
    run_app: Callable[..., Any],
) -> None:
    """(D) the S3 object is missing: ack, then error FILE_READ_ERROR; nothing sent to scan."""
    async with run_app() as h:
        request = request_body(h.bucket, f"uploads/{uuid.uuid4()}/absent.pdf")
        await h.send(request)
        assert h.ids() == [ack_id(request), result_id(request)]
        assert_error(h.published[1][1], request, ErrorCode.FILE_READ_ERROR)
        assert h.source.calls == 0


async def test_tabular_file_type_is_unsupported_after_the_ack(
    run_app: Callable[..., Any],
) -> None:
    """(D) a valid request whose file type scan-gateway does not handle: ack, UNSUPPORTED_FORMAT."""
    async with run_app() as h:
        request = await h.new_request(file_type="XLSX")
        await h.send(request)
        assert h.ids() == [ack_id(request), result_id(request)]
        assert_error(h.published[1][1], request, ErrorCode.UNSUPPORTED_FORMAT)
        assert h.events.kinds("s3.get") == [] and h.source.calls == 0


async def test_passed_reply_deadline_is_timeout_before_sending_the_file(
    run_app: Callable[..., Any],
) -> None:
    """reply_deadline already passed before the file is sent for recognition: ack, then error
    TIMEOUT; the scanning system is never called (the contract's own example request)."""
    async with run_app() as h:
        request = await h.new_request(
            reply_deadline=example("request-image.json")["reply_deadline"]
        )
        await h.send(request)
        assert h.ids() == [ack_id(request), result_id(request)]
        assert_error(h.published[1][1], request, ErrorCode.TIMEOUT)
        assert h.source.calls == 0


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
