"""End to end through the local recogniser: a balance sheet and an income statement rendered
by the tests as a text-layer PDF and as PNG images (Tesseract), and the missing-Tesseract case."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from faststream import TestApp
from faststream.nats import NatsBroker, NatsMessage, TestNatsBroker

from services.contract import Kind
from services.runtime.recognizer import ErrorCode, Job, RecognitionFailed
from services.runtime.service import service_backlog
from services.runtime.settings import S3Settings
from services.runtime.storage import S3Storage
from services.scan_gateway.app import create_app
from services.scan_gateway.exceptions import OcrUnavailable
from services.scan_gateway.local import recognize_to_items
from services.scan_gateway.recognizer import LocalSource, ScanGatewayRecognizer
from tests.support.recognition_service import MSG_ID, contract_errors

from ._forms import FORMS, Form, expected_amount, font_path, render_pdf, render_png
from ._support import gateway_settings, request_body

pytestmark = pytest.mark.skipif(font_path() is None, reason="no DejaVuSans font to render with")
needs_tesseract = pytest.mark.skipif(shutil.which("tesseract") is None, reason="no tesseract")


class InlineRunner:
    """Runs the worker function in this process (the app tests use the real sandbox)."""

    async def run(self, fn: Callable[..., object], /, *args: object) -> object:
        return fn(*args)


def make_job(file_type: str) -> Job:
    return Job(
        job_id=uuid.uuid4(),
        file_id=uuid.uuid4(),
        attempt=1,
        file_type=file_type,
        original_name=f"form.{file_type.lower()}",
        bucket="b",
        key="k",
        reply_deadline=dt.datetime.now(dt.UTC) + dt.timedelta(minutes=5),
    )


def printed(form: Form) -> dict[tuple[str, int], str]:
    """(code, column position) → the money string the form prints."""
    return {
        (code, i): expected_amount(text)
        for _name, code, *values in form.lines
        for i, text in enumerate(values)
    }


def read(document: dict[str, Any]) -> dict[tuple[str, int], str | None]:
    columns = sorted(c["column_index"] for c in document["columns"])
    return {
        (line["line_code"], columns.index(v["column_index"])): v["amount"]
        for line in document["lines"]
        if line["line_status"] == "ok"
        for v in line["values"]
    }


async def test_text_pdf_gives_every_value_exactly() -> None:
    """A two-page text PDF (balance, ОФР): two documents, every line value exact and clean,
    all relations hold, periods and header read, status done."""
    recognizer = ScanGatewayRecognizer(LocalSource(InlineRunner()))
    recognition = await recognizer.recognize(render_pdf(), make_job("PDF"))
    assert [d["document_type"] for d in recognition.documents] == ["BALANCE", "INCOME"]
    assert recognition.warnings == [] and recognition.group_schema == "rsbu"
    for form, document in zip(FORMS, recognition.documents, strict=True):
        assert read(document) == printed(form)
        assert all(v["is_recognized"] for line in document["lines"] for v in line["values"])
        assert document["checks"] == {"relations_failed": [], "soft_relations_failed": []}
        assert document["status"] == "done" and document["form_variant"] == "full"
        assert document["header"]["inn"] == "7812345675"
        assert document["header"]["okud"] == form.okud
        assert [c["period_date"] for c in document["columns"]] == ["2024-12-31", "2023-12-31"]
        assert document["locator"] == [{"page": FORMS.index(form) + 1, "table": 0}]


@needs_tesseract
@pytest.mark.slow
@pytest.mark.parametrize("page", [0, 1], ids=["balance", "income"])
async def test_png_through_tesseract_recovers_the_line_values(page: int) -> None:
    """The same page as a PNG (no text layer) goes through Tesseract: the document type is
    right and at least 90 % of the printed values come out exactly (the share is printed)."""
    form = FORMS[page]
    png = render_png(render_pdf(), page)
    recognizer = ScanGatewayRecognizer(LocalSource(InlineRunner()))
    recognition = await recognizer.recognize(png, make_job("PNG"))
    assert [d["document_type"] for d in recognition.documents] == [form.kind]
    got = read(recognition.documents[0])
    expected = printed(form)
    exact = sum(got.get(key) == amount for key, amount in expected.items())
    share = exact / len(expected)
    print(f"PNG {form.kind}: {exact}/{len(expected)} values exact ({share:.0%})")
    assert share >= 0.9


def _env_recording_tesseract(tmp_path: Path) -> tuple[str, Path]:
    """A `tesseract` that writes the OMP_THREAD_LIMIT it was started with, then is Tesseract."""
    seen = tmp_path / "omp"
    wrapper = tmp_path / "tesseract"
    real = shutil.which("tesseract")
    wrapper.write_text(
        f'#!/bin/sh\nprintf "%s\\n" "${{OMP_THREAD_LIMIT-unset}}" >> {seen}\nexec {real} "$@"\n'
    )
    wrapper.chmod(0o755)
    return str(wrapper), seen


@needs_tesseract
@pytest.mark.parametrize(("given", "expected"), [(None, "1"), ("2", "2")], ids=["default", "own"])
def test_tesseract_runs_one_thread_unless_the_operator_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: str | None, expected: str
) -> None:
    """Pages are read side by side by the sandbox's workers, so each Tesseract runs one OpenMP
    thread (its threads spun against each other: 8x slower a page on 2 cores); an
    OMP_THREAD_LIMIT the operator set is kept."""
    monkeypatch.setenv("OMP_THREAD_LIMIT", given or "")
    if given is None:
        monkeypatch.delenv("OMP_THREAD_LIMIT")
    command, seen = _env_recording_tesseract(tmp_path)
    recognize_to_items(render_png(render_pdf(), 0, dpi=72), "PNG", command)
    runs = seen.read_text().split()
    assert runs and set(runs) == {expected}


def test_missing_tesseract_is_reported_by_name() -> None:
    """A PNG without the tesseract binary: OcrUnavailable saying what is missing."""
    png = render_png(render_pdf(), 0, dpi=72)
    with pytest.raises(OcrUnavailable) as caught:
        recognize_to_items(png, "PNG", "/nonexistent/tesseract")
    assert "Tesseract" in caught.value.what and "/nonexistent/tesseract" in caught.value.what


async def test_missing_tesseract_is_recognition_failed() -> None:
    """The recogniser turns the missing tool into RECOGNITION_FAILED with that explanation."""
    png = render_png(render_pdf(), 0, dpi=72)
    source = LocalSource(InlineRunner(), tesseract_cmd="/nonexistent/tesseract")
    with pytest.raises(RecognitionFailed) as caught:
        await ScanGatewayRecognizer(source).recognize(png, make_job("PNG"))
    assert caught.value.code == ErrorCode.RECOGNITION_FAILED
    assert "Tesseract OCR is not installed" in caught.value.message


async def test_app_default_local_recogniser_reads_a_text_pdf_in_a_worker(
    s3_settings: S3Settings, bucket: str
) -> None:
    """No OPENBAO__SCAN__SCAN_URL: the app uses the local recogniser in its sandbox; a text PDF
    in S3 gives a done result with both statements and a raw result set in S3."""
    settings = gateway_settings(s3_settings)
    assert settings.scan.scan_url is None
    async with S3Storage(s3_settings) as s3:
        key = f"uploads/{uuid.uuid4()}/forms.pdf"
        await s3.put_bytes(bucket, key, render_pdf())
        request = request_body(bucket, key)
        app = create_app(settings, storage=s3)
        published: list[tuple[str, dict[str, Any]]] = []

        broker = app.broker
        assert isinstance(broker, NatsBroker)

        @broker.subscriber(settings.nats.nats_result_subject)
        async def watch(body: dict[str, Any], msg: NatsMessage) -> None:
            published.append((msg.headers[MSG_ID], body))

        async with TestNatsBroker(broker, NatsBroker()) as (_, client), TestApp(app):
            await client.publish(
                request,
                settings.nats.nats_image_request_subject,
                headers={MSG_ID: f"{request['job_id']}:{request['attempt']}"},
            )
            await asyncio.wait_for(service_backlog(app).finished(0), 60)  # acked, then worked
        assert [m.split(":")[0] for m, _ in published] == ["ack", "result"]
        envelope = published[1][1]
        assert contract_errors(Kind.RESULT_MESSAGE, envelope) == []
        assert envelope["status"] == "done", envelope
        result = json.loads(await s3.get_bytes(bucket, envelope["result_s3"]["key"], 10**7))
        assert contract_errors(Kind.RESULT, result) == []
        assert [d["document_type"] for d in result["documents"]] == ["BALANCE", "INCOME"]
        manifest = json.loads(await s3.get_bytes(bucket, envelope["raw_s3_key"], 10**6))
        assert manifest["source"] == "local" and manifest["items"] == ["page-1.json", "page-2.json"]
