"""tabular-parser in memory (TestNatsBroker) on the real moto S3: the scenarios of spec 002
that are its own (OQ-71, size cap, publish retries, the real parser), with order, bodies
(checked by the registry) and headers. The answer table: tests/runtime/test_answer_table.py."""

from __future__ import annotations

import io
import json
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import pytest
import xlsxwriter

from services.contract import Kind
from services.runtime.recognizer import ErrorCode, Recognizer
from services.runtime.settings import S3Settings
from services.runtime.storage import ObjectNotFound, S3Storage
from services.tabular_parser.app import create_app
from services.tabular_parser.settings import TabularParserSettings
from tests.builders import write_xlsx
from tests.builders.ledger import account_analysis
from tests.support.recognition_service import (
    RecordingStorage,
    ServiceHarness,
    ack_id,
    contract_errors,
    healthcheck,
    result_id,
    serving,
)

from ._null_parser import NullParser
from .osv._builder import osv_sheet
from .osv._fixtures import GENERAL_ROWS, GENERAL_TOTAL
from .statements._forms import other_sheet
from .wire._support import StubRecognizer, request_body, tabular_settings

UPLOAD = b"PK\x03\x04 stand-in bytes; the stub recogniser does not read them"


@dataclass(kw_only=True)
class Harness(ServiceHarness[TabularParserSettings]):
    """The parser under TestNatsBroker; the first `fail_result_publishes` results are lost
    with a connection error, and `on_publish` sees every message that arrives."""

    fail_result_publishes: int = 0
    on_publish: Callable[[str], Awaitable[None]] | None = None

    async def upload(self, data: bytes = UPLOAD, key: str | None = None) -> str:
        key = key or f"uploads/{uuid.uuid4()}/file.xlsx"
        await self.s3.put_bytes(self.bucket, key, data)
        return key

    async def new_request(self, **overrides: Any) -> dict[str, Any]:
        return request_body(self.bucket, await self.upload(), **overrides)

    async def receive(self, msg_id: str, body: dict[str, Any]) -> None:
        if msg_id.startswith("result:") and self.fail_result_publishes > 0:
            self.fail_result_publishes -= 1
            self.events.add("publish.failed", msg_id)
            raise ConnectionResetError("the first publish of the result is lost")
        await super().receive(msg_id, body)
        if self.on_publish is not None:
            await self.on_publish(msg_id)


@pytest.fixture
def run_app(s3_settings: S3Settings, s3: S3Storage, bucket: str) -> Callable[..., Any]:
    """`async with run_app(recognizer, **settings) as h:` — the app started in memory."""

    @asynccontextmanager
    async def run(
        recognizer: Recognizer | None = None,
        *,
        real_parser: bool = False,
        fail_result_publishes: int = 0,
        **overrides: Any,
    ) -> AsyncIterator[Harness]:
        settings = tabular_settings(s3_settings, **overrides)
        harness = Harness(
            settings=settings,
            request_subject=settings.nats.nats_tabular_request_subject,
            s3=s3,
            bucket=bucket,
            fail_result_publishes=fail_result_publishes,
        )
        if recognizer is None and not real_parser:
            recognizer = StubRecognizer()
        app = create_app(settings, recognizer, storage=RecordingStorage(s3, harness.events))
        async with serving(app, harness):
            yield harness

    return run


def assert_envelope(body: dict[str, Any], request: dict[str, Any], status: str) -> None:
    """A valid 2.0 envelope of this job with this status, from tabular-parser."""
    assert contract_errors(Kind.RESULT_MESSAGE, body) == []
    assert body["schema_version"] == "2.0"
    assert body["job_id"] == request["job_id"]
    assert body["file_id"] == request["file_id"]
    assert body["status"] == status
    assert body["service"]["name"] == "tabular-parser"
    assert "group_schema" not in body


def assert_error(body: dict[str, Any], request: dict[str, Any], code: ErrorCode) -> None:
    assert_envelope(body, request, "error")
    assert body["error"]["code"] == code.value
    assert body["error"]["message"]
    assert body["metrics"]["duration_ms"] >= 0
    assert "result_s3" not in body


# The answer table (unreadable requests, SCHEMA_MISMATCH, repeats, failures after the ack) runs
# over both services in tests/runtime/test_answer_table.py; here is what is tabular-parser's.

# -- SCHEMA_MISMATCH: the OQ-71 attempt policy ------------------------------------------------


async def test_schema_mismatch_takes_the_attempt_from_the_request_msg_id(
    run_app: Callable[..., Any],
) -> None:
    """OQ-71, tabular-parser: no attempt in the body → the attempt of the request's id."""
    async with run_app() as h:
        request = await h.new_request()
        body = dict(request)
        del body["attempt"]
        await h.send(body, msg_id=f"{request['job_id']}:5")
        assert h.ids() == [f"result:{request['job_id']}:5"]
        assert_error(h.published[0][1], request, ErrorCode.SCHEMA_MISMATCH)


@pytest.mark.parametrize("header", [None, "garbage", f"{uuid.uuid4()}:2"])
async def test_schema_mismatch_without_any_attempt_gets_no_answer(
    run_app: Callable[..., Any], header: str | None
) -> None:
    """OQ-71, tabular-parser: no attempt in the body and no request id of this job → silence."""
    async with run_app() as h:
        body = await h.new_request()
        del body["attempt"]
        await h.send(body, msg_id=header)
        assert h.published == []


# -- valid requests ---------------------------------------------------------------------------


async def test_object_above_the_size_cap_is_file_read_error(run_app: Callable[..., Any]) -> None:
    """MAX_OBJECT_BYTES caps the read: a larger object ends in FILE_READ_ERROR, unrecognised."""
    recognizer = StubRecognizer()
    async with run_app(recognizer, max_object_bytes=16) as h:
        request = await h.new_request()
        await h.send(request)
        assert h.ids() == [ack_id(request), result_id(request)]
        assert_error(h.published[1][1], request, ErrorCode.FILE_READ_ERROR)
        assert recognizer.calls == []


async def test_object_deleted_when_the_ack_arrives_proves_the_read_follows_the_ack(
    run_app: Callable[..., Any], s3: S3Storage
) -> None:
    """Black-box order check: the object is deleted the moment the ack is delivered, so the
    job ends in FILE_READ_ERROR only because S3 is read after the ack."""
    async with run_app() as h:
        request = await h.new_request()

        async def delete_on_ack(mid: str) -> None:
            if mid == ack_id(request):
                await s3.client.delete_object(Bucket=h.bucket, Key=request["s3"]["key"])

        h.on_publish = delete_on_ack
        await h.send(request)
        assert h.ids() == [ack_id(request), result_id(request)]
        assert_error(h.published[1][1], request, ErrorCode.FILE_READ_ERROR)
        with pytest.raises(ObjectNotFound):
            await s3.get_bytes(h.bucket, request["s3"]["key"], 100)


async def test_null_parser_answers_not_implemented(run_app: Callable[..., Any]) -> None:
    """Spec 002 «Запрос с заглушкой парсера»: ack, then error NOT_IMPLEMENTED with the request's
    ids and duration_ms >= 0; no result file."""
    async with run_app(NullParser()) as h:
        request = await h.new_request()
        await h.send(request)
        assert h.ids() == [ack_id(request), result_id(request)]
        assert_error(h.published[1][1], request, ErrorCode.NOT_IMPLEMENTED)
        assert h.events.kinds("s3.put") == []


async def test_file_warning_of_severity_error_makes_needs_check_in_file_and_envelope(
    run_app: Callable[..., Any], s3: S3Storage
) -> None:
    """File-level warnings go to the envelope's metrics.warnings too, and the envelope's status
    equals the result file's (needs_check here)."""
    warning = {
        "code": "TABLE_PARSE_FAILED",
        "severity": "error",
        "message": "sheet «Лист2» could not be parsed",
        "locator": {"sheet": "Лист2"},
    }
    async with run_app(StubRecognizer(warnings=[warning])) as h:
        request = await h.new_request()
        await h.send(request)
        body = h.published[-1][1]
        assert_envelope(body, request, "needs_check")
        assert body["metrics"]["warnings"] == [warning]
        stored = json.loads(await s3.get_bytes(h.bucket, body["result_s3"]["key"], 10_000_000))
        assert contract_errors(Kind.RESULT, stored) == []
        assert stored["status"] == "needs_check"


async def test_results_bucket_setting_chooses_where_the_result_file_goes(
    run_app: Callable[..., Any], s3: S3Storage
) -> None:
    """OPENBAO__S3__S3_RESULTS_BUCKET set: the result file goes there, result_s3 says so."""
    results = f"results-{uuid.uuid4().hex[:12]}"
    await s3.ensure_bucket(results)
    async with run_app(s3={**_s3_dump(s3), "s3_results_bucket": results}) as h:
        request = await h.new_request()
        await h.send(request)
        body = h.published[-1][1]
        assert body["result_s3"]["bucket"] == results
        stored = json.loads(await s3.get_bytes(results, body["result_s3"]["key"], 10_000_000))
        assert stored["job_id"] == request["job_id"]


def _s3_dump(s3: S3Storage) -> dict[str, Any]:
    settings: S3Settings = s3._settings
    return settings.model_dump()


async def test_result_publish_failing_once_is_retried_with_the_same_msg_id(
    run_app: Callable[..., Any],
) -> None:
    """Spec 002 «Повтор публикации»: the first result publish fails with a connection error,
    the second succeeds: one result with the same Nats-Msg-Id, no second processing."""
    recognizer = StubRecognizer()
    async with run_app(recognizer, fail_result_publishes=1) as h:
        request = await h.new_request()
        await h.send(request)
        assert h.events.kinds("publish.failed") == [result_id(request)]
        assert h.ids() == [ack_id(request), result_id(request)]
        assert len(recognizer.calls) == 1
        assert len(h.events.kinds("s3.get")) == 1


async def test_exhausted_publish_retries_log_and_the_service_goes_on(
    run_app: Callable[..., Any], caplog: pytest.LogCaptureFixture
) -> None:
    """All 1 + PUBLISH_RETRIES attempts fail: an error line, and the next job is served."""
    caplog.set_level(logging.WARNING)
    async with run_app(fail_result_publishes=3, publish_retries=2) as h:
        request = await h.new_request()
        await h.send(request)
        assert h.ids() == [ack_id(request)]
        other = await h.new_request()
        await h.send(other)
        assert h.ids()[-1] == result_id(other)
    assert any("giving up" in r.getMessage() for r in caplog.records)


# -- the real parser (sandboxed worker processes) ---------------------------------------------


def _osv_workbook() -> bytes:
    """A small 1C trial balance (laid out by the ОСВ tests' builder) written as a real .xlsx."""
    sheet = osv_sheet(GENERAL_ROWS, GENERAL_TOTAL).sheet
    buffer = io.BytesIO()
    book = xlsxwriter.Workbook(buffer, {"in_memory": True, "strings_to_numbers": False})
    out = book.add_worksheet(sheet.name)
    for row, level in sheet.outline_levels.items():
        out.set_row(row, None, None, {"level": level})
    for r, values in enumerate(sheet.rows):
        for c, value in enumerate(values):
            if value is not None:
                out.write(r, c, value)
    for m in sheet.merged:
        corner = sheet.cell(m.first_row, m.first_col)
        out.merge_range(m.first_row, m.first_col, m.last_row, m.last_col, corner)
    book.close()
    return buffer.getvalue()


async def test_real_parser_rejects_an_object_that_is_not_a_workbook(
    run_app: Callable[..., Any],
) -> None:
    """Spec 002 «Запрос с реальным парсером»: the object has no XLS/XLSX/XLSB signature (a PDF
    named .xlsx) → ack, then error UNSUPPORTED_FORMAT; no result file."""
    async with run_app(real_parser=True) as h:
        request = request_body(h.bucket, await h.upload(b"%PDF-1.7\n%\xe2\xe3\n1 0 obj\n"))
        await h.send(request)
        assert h.ids() == [ack_id(request), result_id(request)]
        assert_error(h.published[1][1], request, ErrorCode.UNSUPPORTED_FORMAT)
        assert h.events.kinds("s3.put") == []


async def test_real_parser_reports_a_damaged_workbook_as_unreadable(
    run_app: Callable[..., Any],
) -> None:
    """Spec 002: a workbook cut in half (an XLSX signature that cannot be opened) → ack, then
    error UNREADABLE."""
    whole = _osv_workbook()
    async with run_app(real_parser=True) as h:
        request = request_body(h.bucket, await h.upload(whole[: len(whole) // 2]))
        await h.send(request)
        assert h.ids() == [ack_id(request), result_id(request)]
        assert_error(h.published[1][1], request, ErrorCode.UNREADABLE)


async def test_real_parser_recognises_a_trial_balance(
    run_app: Callable[..., Any], s3: S3Storage
) -> None:
    """Spec 002: a correct ОСВ in the same flow gives done: a schema-valid result file with one
    OSV document, then the envelope pointing at it."""
    async with run_app(real_parser=True) as h:
        request = request_body(h.bucket, await h.upload(_osv_workbook()))
        await h.send(request)
        assert h.ids() == [ack_id(request), result_id(request)]
        body = h.published[1][1]
        assert_envelope(body, request, "done")
        stored = json.loads(await s3.get_bytes(h.bucket, body["result_s3"]["key"], 10_000_000))
        assert contract_errors(Kind.RESULT, stored) == []
        assert [d["document_type"] for d in stored["documents"]] == ["OSV"]
        assert stored["group_schema"] == "osv"


async def test_real_parser_without_a_document_carries_the_sheet_warnings(
    run_app: Callable[..., Any], s3: S3Storage
) -> None:
    """Issue 17.18: a workbook of ledger reports only (an «Анализ счета», a reference sheet)
    → error RECOGNITION_FAILED whose message names each sheet, and the SHEET_OTHER warnings the
    parser produced in the envelope's metrics.warnings (spec 001), not an empty list."""
    data = write_xlsx([account_analysis("51", "Анализ"), other_sheet("Справка")])
    async with run_app(real_parser=True) as h:
        request = request_body(h.bucket, await h.upload(data))
        await h.send(request)
        body = h.published[1][1]
        assert_error(body, request, ErrorCode.RECOGNITION_FAILED)
        warnings = body["metrics"]["warnings"]
        assert [(w["code"], w["locator"]) for w in warnings] == [
            ("SHEET_OTHER", {"sheet": "Анализ"}),
            ("SHEET_OTHER", {"sheet": "Справка"}),
        ]
        assert "выгрузите ОСВ по счету 51" in warnings[0]["message"]
        assert "«Анализ»" in body["error"]["message"]
        assert "«Справка»" in body["error"]["message"]
        assert h.events.kinds("s3.put") == []


# -- start-up, /healthcheck, AsyncAPI ---------------------------------------------------------


async def test_start_logs_the_subjects_in_use(
    run_app: Callable[..., Any], caplog: pytest.LogCaptureFixture
) -> None:
    """At start the service logs the two subjects it uses (and not the image one)."""
    caplog.set_level(logging.INFO)
    async with run_app() as h:
        nats = h.settings.nats
    lines = [r.getMessage() for r in caplog.records if "uses NATS subjects" in r.getMessage()]
    assert lines == [
        f"tabular-parser uses NATS subjects: tabular_request={nats.nats_tabular_request_subject}, "
        f"result={nats.nats_result_subject}"
    ]


async def test_healthcheck_serves_the_subjects_without_nats(s3_settings: S3Settings) -> None:
    """GET /healthcheck answers 200 with subjects {tabular_request, result} even though the
    broker never connected, and holds no credential."""
    settings = tabular_settings(s3_settings)
    response = await healthcheck(create_app(settings, NullParser()))
    assert response.status_code == 200
    body = response.json()
    assert body["service"] == "tabular-parser"
    assert body["subjects"] == {
        "tabular_request": settings.nats.nats_tabular_request_subject,
        "result": settings.nats.nats_result_subject,
    }
    assert body["nats"] != "connected"


def test_asyncapi_shows_the_contract_payloads(s3_settings: S3Settings) -> None:
    """The raw-bytes handler still documents the real payloads: the request schema v1 on the
    request subject (queue group tabular-parser) and the result envelope v2 on the result one."""
    settings = tabular_settings(s3_settings)
    spec = create_app(settings, NullParser()).schema.to_specification().to_jsonable()
    channels = {c["address"]: c for c in spec["channels"].values()}
    request_channel = channels[settings.nats.nats_tabular_request_subject]
    assert request_channel["bindings"]["nats"]["queue"] == "tabular-parser"
    assert settings.nats.nats_result_subject in channels

    schemas = spec["components"]["schemas"]
    request = next(s for name, s in schemas.items() if name.startswith("tabular-request"))
    assert {"job_id", "file_id", "pipeline", "s3", "attempt"} <= set(request["properties"])
    assert request["properties"]["s3"]["required"] == ["bucket", "key"]  # $defs inlined
    assert "$ref" not in json.dumps(request)
    assert "RecognitionResultMessage" in schemas
