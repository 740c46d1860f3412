"""The contract's answer table («The service's answer to each kind of request», CONTRACT.md,
docs/request-protocol.md) as one conformance suite, run over both recognition services.

Each service is its real app (`create_app`) under TestNatsBroker on the real moto S3, with a
stand-in recogniser: the table is the shared protocol's, so every row must hold for every
service whatever it recognises. What differs by service is only in `Profile` (its request
example, pipeline, file types of the other pipeline); the OQ-71 attempt policy, which the two
services answer differently, stays in each service's own tests.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any

import pytest
from faststream.asgi import AsgiFastStream

from services.contract import Kind
from services.runtime.recognizer import ErrorCode, Recognizer
from services.runtime.settings import RecognitionServiceSettings, S3Settings, SubjectRole
from services.runtime.storage import S3Storage
from services.scan_gateway import app as scan_gateway
from services.scan_gateway.settings import ScanGatewaySettings
from services.tabular_parser import app as tabular_parser
from services.tabular_parser.settings import TabularParserSettings
from tests.support.recognition_service import (
    RecordingStorage,
    ServiceHarness,
    ack_id,
    contract_errors,
    example,
    result_id,
    service_request,
    service_settings,
    serving,
)
from tests.tabular_parser.wire._support import StubRecognizer


@dataclass(frozen=True)
class Profile:
    """One recognition service as the answer table sees it."""

    name: str
    template: str
    settings_cls: type[RecognitionServiceSettings]
    create_app: Callable[..., AsgiFastStream]
    other_pipeline: str
    other_file_types: tuple[str, ...]
    upload_name: str
    request_role: SubjectRole
    extra_settings: tuple[tuple[str, Any], ...] = ()


PROFILES = [
    Profile(
        name="tabular-parser",
        template="request-tabular.json",
        settings_cls=TabularParserSettings,
        create_app=tabular_parser.create_app,
        other_pipeline="image",
        other_file_types=("PDF", "PNG", "JPG"),
        upload_name="file.xlsx",
        request_role="tabular_request",
    ),
    Profile(
        name="scan-gateway",
        template="request-image.json",
        settings_cls=ScanGatewaySettings,
        create_app=scan_gateway.create_app,
        other_pipeline="tabular",
        other_file_types=("XLS", "XLSX", "XLSB"),
        upload_name="scan.pdf",
        request_role="image_request",
        extra_settings=(("ocr_workers", 1),),
    ),
]


@dataclass(kw_only=True)
class Harness(ServiceHarness[Any]):
    profile: Profile
    recognizer: StubRecognizer

    async def new_request(self, **overrides: Any) -> dict[str, Any]:
        key = f"uploads/{uuid.uuid4()}/{self.profile.upload_name}"
        await self.s3.put_bytes(self.bucket, key, b"stand-in bytes; the stub does not read them")
        return service_request(self.profile.template, self.bucket, key, **overrides)

    def absent_request(self, **overrides: Any) -> dict[str, Any]:
        key = f"uploads/{uuid.uuid4()}/absent-{self.profile.upload_name}"
        return service_request(self.profile.template, self.bucket, key, **overrides)


RunApp = Callable[..., AbstractAsyncContextManager[Harness]]


@pytest.fixture(params=PROFILES, ids=[p.name for p in PROFILES])
def run_app(
    request: pytest.FixtureRequest, s3_settings: S3Settings, s3: S3Storage, bucket: str
) -> RunApp:
    """`async with run_app(recognizer) as h:` — the service's app started in memory."""
    profile: Profile = request.param

    @asynccontextmanager
    async def run(recognizer: StubRecognizer | None = None) -> AsyncIterator[Harness]:
        settings = service_settings(
            profile.settings_cls, s3_settings, **dict(profile.extra_settings)
        )
        harness = Harness(
            settings=settings,
            request_subject=settings.nats.subject(profile.request_role),
            s3=s3,
            bucket=bucket,
            profile=profile,
            recognizer=recognizer or StubRecognizer(),
        )
        stub: Recognizer = harness.recognizer
        app = profile.create_app(settings, stub, storage=RecordingStorage(s3, harness.events))
        async with serving(app, harness):
            yield harness

    return run


def assert_envelope(h: Harness, body: dict[str, Any], request: dict[str, Any], status: str) -> None:
    """A valid 2.0 envelope of this job with this status, from this service."""
    assert contract_errors(Kind.RESULT_MESSAGE, body) == []
    assert body["schema_version"] == "2.0"
    assert body["job_id"] == request["job_id"]
    assert body["file_id"] == request["file_id"]
    assert body["status"] == status
    assert body["service"]["name"] == h.profile.name
    assert "group_schema" not in body


def assert_error(
    h: Harness, body: dict[str, Any], request: dict[str, Any], code: ErrorCode
) -> None:
    assert_envelope(h, body, request, "error")
    assert body["error"]["code"] == code.value
    assert body["error"]["message"]
    assert body["metrics"]["duration_ms"] >= 0
    assert "result_s3" not in body


# -- requests that cannot be answered ---------------------------------------------------------

_CANONICAL = "0b5e0d3c-6a57-4d0e-9f7a-3c1b2e4d5f60"


@pytest.mark.parametrize(
    "body",
    [
        b"not json {",
        b"[1, 2, 3]",
        b'"a string"',
        json.dumps({"file_id": str(uuid.uuid4()), "attempt": 1}).encode(),
        json.dumps({"job_id": "not-a-uuid", "file_id": str(uuid.uuid4())}).encode(),
        json.dumps({"job_id": 42}).encode(),
    ],
    ids=["not-json", "array", "string", "no-job-id", "job-id-not-uuid", "job-id-number"],
)
async def test_unreadable_request_gets_no_answer(
    run_app: RunApp, body: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    """Not JSON / not an object / no uuid job_id: nothing published, a log line, dropped."""
    caplog.set_level(logging.WARNING)
    async with run_app() as h:
        await h.send(body, msg_id=f"{uuid.uuid4()}:1")
        assert h.published == []
        assert h.events.kinds("s3.get") == []
    assert any("request dropped" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize(
    "job_id",
    [_CANONICAL.replace("-", ""), f"urn:uuid:{_CANONICAL}", "{" + _CANONICAL + "}"],
    ids=["hyphenless", "urn", "braces"],
)
async def test_a_job_id_in_a_non_canonical_form_is_not_a_uuid(
    run_app: RunApp, job_id: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Spec 001 reads job_id as the schema's uuid: the forms Python would also parse
    (hyphenless, urn:uuid:, braces) get the answer of a non-uuid job_id (none), not a
    SCHEMA_MISMATCH carrying the id rewritten."""
    caplog.set_level(logging.WARNING)
    async with run_app() as h:
        body = await h.new_request(job_id=job_id)
        await h.send(body, msg_id=f"{_CANONICAL}:1")
        assert h.published == []
        assert h.events.kinds("s3.get") == []
    assert any("request dropped" in r.getMessage() for r in caplog.records)


# -- SCHEMA_MISMATCH --------------------------------------------------------------------------


def _broken(h: Harness, request: dict[str, Any], how: str) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(json.dumps(request))
    if how == "no-s3-key":
        del body["s3"]["key"]
    elif how == "no-s3":
        del body["s3"]
    elif how == "unknown-file-type":
        body["file_type"] = "DOCX"
    elif how == "tiff-file-type":
        body["file_type"] = "TIFF"
    elif how == "unknown-major":
        body["schema_version"] = "2.0"
    elif how == "other-pipeline":
        body["pipeline"] = h.profile.other_pipeline
    elif how == "bad-deadline":
        body["reply_deadline"] = "tomorrow"
    return body


@pytest.mark.parametrize(
    "how",
    [
        "no-s3-key",
        "no-s3",
        "unknown-file-type",
        "tiff-file-type",
        "unknown-major",
        "other-pipeline",
        "bad-deadline",
    ],
)
async def test_request_off_contract_gets_schema_mismatch_without_ack(
    run_app: RunApp, how: str
) -> None:
    """Fails the schema / unknown MAJOR / the other pipeline, ids valid, job new: one error
    SCHEMA_MISMATCH with `result:<job_id>:<attempt>` (the body's attempt), no ack, no S3 read."""
    async with run_app() as h:
        request = await h.new_request(attempt=3)
        await h.send(_broken(h, request, how))
        assert h.ids() == [result_id(request)]
        assert_error(h, h.published[0][1], request, ErrorCode.SCHEMA_MISMATCH)
        assert h.events.kinds("s3.get") == []


async def test_schema_mismatch_with_bad_file_id_gets_no_answer(run_app: RunApp) -> None:
    """An envelope needs a valid file_id: without one, nothing is published."""
    async with run_app() as h:
        body = await h.new_request(file_id="not-a-uuid")
        await h.send(body)
        assert h.published == []


async def test_off_contract_repeat_of_a_job_in_work_or_done_gets_no_answer(
    run_app: RunApp,
) -> None:
    """A request failing the schema for a job this process took: nothing published (its
    SCHEMA_MISMATCH id would shadow the real result), neither in work nor once done."""
    gate = asyncio.Event()
    recognizer = StubRecognizer(gate=gate)
    async with run_app(recognizer) as h:
        request = await h.new_request()
        first = asyncio.create_task(h.send(request))
        await asyncio.wait_for(recognizer.started.wait(), 10)
        await h.send(_broken(h, request, "no-s3-key"))  # in work
        assert h.ids() == [ack_id(request)]
        gate.set()
        await first
        await h.send(_broken(h, request, "unknown-file-type"))  # done
        await h.send(_broken(h, request, "no-s3"))
        assert h.ids() == [ack_id(request), result_id(request)]


# -- valid requests ---------------------------------------------------------------------------


async def test_ack_comes_first_then_the_result_file_then_the_result(
    run_app: RunApp, s3: S3Storage
) -> None:
    """Ack processing before the S3 read, then the result file, then the result envelope
    pointing at it, each with its Nats-Msg-Id."""
    async with run_app() as h:
        request = await h.new_request()
        await h.send(request)

        key = f"results/{request['file_id']}/{request['job_id']}/result.json"
        assert h.events.items == [
            ("publish", ack_id(request)),
            ("s3.get", request["s3"]["key"]),
            ("s3.put", key),
            ("publish", result_id(request)),
        ]
        ack, result = h.published[0][1], h.published[1][1]
        assert_envelope(h, ack, request, "processing")
        assert set(ack) == {"schema_version", "job_id", "file_id", "status", "service"}
        assert_envelope(h, result, request, "done")
        assert result["result_s3"] == {"bucket": request["s3"]["bucket"], "key": key}
        assert result["result_schema_version"] == "2.0"
        stored = json.loads(await s3.get_bytes(h.bucket, key, 10_000_000))
        assert contract_errors(Kind.RESULT, stored) == []
        assert stored["status"] == result["status"]
        assert stored["metrics"] == result["metrics"]
        assert stored["documents"] == StubRecognizer().documents


@pytest.mark.parametrize(
    "deadline",
    ["2099-01-01t00:00:00z", "2099-01-01T00:00:00.123456789Z", "2099-01-01T03:00:00+03:00"],
    ids=["lowercase-t-z", "nanoseconds", "offset"],
)
async def test_a_schema_valid_reply_deadline_is_accepted_in_any_form_the_schema_accepts(
    run_app: RunApp, deadline: str
) -> None:
    """RFC 3339 allows a lowercase `t` / `z`, any fraction and any offset, and so does the
    schema: such a request is processed like any other (no SCHEMA_MISMATCH)."""
    async with run_app() as h:
        request = await h.new_request(reply_deadline=deadline)
        assert contract_errors(Kind.REQUEST, request) == []
        await h.send(request)
        assert h.ids() == [ack_id(request), result_id(request)]
        assert_envelope(h, h.published[1][1], request, "done")
        job = h.recognizer.calls[0][1]
        assert job.reply_deadline.utcoffset() is not None
        assert job.reply_deadline.year == 2099


async def test_repeat_while_processing_gets_a_second_ack_and_one_result(run_app: RunApp) -> None:
    """Spec 002 «Повторный запрос во время обработки»: a second ack, no second S3 read or
    recognition, one result."""
    gate = asyncio.Event()
    recognizer = StubRecognizer(gate=gate)
    async with run_app(recognizer) as h:
        request = await h.new_request()
        first = asyncio.create_task(h.send(request))
        await asyncio.wait_for(recognizer.started.wait(), 10)
        await h.send(request)
        assert h.ids() == [ack_id(request), ack_id(request)]
        gate.set()
        await first
        assert h.ids() == [ack_id(request), ack_id(request), result_id(request)]
        assert len(h.events.kinds("s3.get")) == 1
        assert len(recognizer.calls) == 1
        for _, body in h.published[:2]:
            assert_envelope(h, body, request, "processing")


async def test_repeat_after_done_gets_an_ack_only(run_app: RunApp) -> None:
    """A valid repeat of a finished job: ack again, no S3 read, no second result."""
    async with run_app() as h:
        request = await h.new_request()
        await h.send(request)
        await h.send(request)
        assert h.ids() == [ack_id(request), result_id(request), ack_id(request)]
        assert len(h.events.kinds("s3.get")) == 1
        assert len(h.recognizer.calls) == 1


async def test_a_new_attempt_of_a_finished_job_is_processed(run_app: RunApp) -> None:
    """(D) a repeat is the same (job_id, attempt); the core's next attempt gets a result."""
    async with run_app() as h:
        request = await h.new_request()
        await h.send(request)
        second = {**request, "attempt": request["attempt"] + 1}
        await h.send(second)
        assert h.ids() == [ack_id(request), result_id(request), ack_id(second), result_id(second)]
        assert len(h.recognizer.calls) == 2


# -- failures after the ack -------------------------------------------------------------------


async def test_missing_object_is_file_read_error_after_the_ack(run_app: RunApp) -> None:
    """(D) the S3 object is missing: ack, then error FILE_READ_ERROR; nothing recognised and
    no result file."""
    async with run_app() as h:
        request = h.absent_request()
        await h.send(request)
        assert h.ids() == [ack_id(request), result_id(request)]
        assert_error(h, h.published[1][1], request, ErrorCode.FILE_READ_ERROR)
        assert h.events.kinds("s3.put") == []
        assert h.recognizer.calls == []


async def test_file_type_of_the_other_pipeline_is_unsupported_after_the_ack(
    run_app: RunApp,
) -> None:
    """(D) a valid request whose file type this service does not handle: ack, then error
    UNSUPPORTED_FORMAT, without reading S3."""
    async with run_app() as h:
        for file_type in h.profile.other_file_types:
            request = await h.new_request(file_type=file_type)
            await h.send(request)
            assert h.ids()[-2:] == [ack_id(request), result_id(request)]
            assert_error(h, h.published[-1][1], request, ErrorCode.UNSUPPORTED_FORMAT)
        assert h.events.kinds("s3.get") == []
        assert h.recognizer.calls == []


async def test_passed_reply_deadline_is_timeout_without_reading_the_file(
    run_app: RunApp,
) -> None:
    """reply_deadline already passed on arrival: ack, then error TIMEOUT; the object is not
    read and nothing is recognised (the contract's own example request)."""
    async with run_app() as h:
        passed = example(h.profile.template)["reply_deadline"]
        request = await h.new_request(reply_deadline=passed)
        await h.send(request)
        assert h.ids() == [ack_id(request), result_id(request)]
        assert_error(h, h.published[1][1], request, ErrorCode.TIMEOUT)
        assert h.events.kinds("s3.get") == []
        assert h.recognizer.calls == []


async def test_a_recognition_without_a_document_is_recognition_failed(run_app: RunApp) -> None:
    """No document recognised → error RECOGNITION_FAILED (documents may be empty only with
    status error), carrying the file warnings; no result file."""
    warning = {
        "code": "SHEET_OTHER",
        "severity": "info",
        "message": "nothing recognisable",
        "locator": {"page": 1},
    }
    async with run_app(StubRecognizer(documents=[], warnings=[warning])) as h:
        request = await h.new_request()
        await h.send(request)
        assert h.ids() == [ack_id(request), result_id(request)]
        body = h.published[1][1]
        assert_error(h, body, request, ErrorCode.RECOGNITION_FAILED)
        assert body["metrics"]["warnings"] == [warning]
        assert h.events.kinds("s3.put") == []


async def test_an_unexpected_recogniser_error_is_unknown_error_and_the_service_goes_on(
    run_app: RunApp, caplog: pytest.LogCaptureFixture
) -> None:
    """The recogniser raises something else: UNKNOWN_ERROR naming its class, never its text,
    with a logged traceback; the next request is served."""
    async with run_app(StubRecognizer(error=KeyError("secret-ish detail"))) as h:
        request = await h.new_request()
        await h.send(request)
        body = h.published[1][1]
        assert_error(h, body, request, ErrorCode.UNKNOWN_ERROR)
        assert "KeyError" in body["error"]["message"]
        assert "secret-ish" not in body["error"]["message"]
        h.recognizer.error = None
        other = await h.new_request()
        await h.send(other)
        assert h.ids()[-1] == result_id(other)
        assert_envelope(h, h.published[-1][1], other, "done")
    assert any(r.exc_info and r.levelno >= logging.ERROR for r in caplog.records)
