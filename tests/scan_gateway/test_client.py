"""The scanning-system client against the fake scanning system over real HTTP on loopback:
the happy path, each fault mode, the bearer token, and the deadline bound."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

import pytest
from pydantic import SecretStr

from services.runtime.recognizer import ErrorCode, Job, Recognition, RecognitionFailed
from services.scan_gateway.client import ScanClient, ScanClientSettings
from services.scan_gateway.fake import FakeScanServer, Faults
from services.scan_gateway.recognizer import HttpSource, ScanGatewayRecognizer
from tests.support.recognition_service import example
from tests.support.scanning import TOKEN

from ._resultsets import encode, item, minimal_balance_item, plain_line

PDF = b"%PDF-1.7 scanned balance"


def make_job(seconds: float = 60.0) -> Job:
    return Job(
        job_id=uuid.uuid4(),
        file_id=uuid.uuid4(),
        attempt=1,
        file_type="PDF",
        original_name="Баланс.pdf",
        bucket="b",
        key="k",
        reply_deadline=dt.datetime.now(dt.UTC) + dt.timedelta(seconds=seconds),
    )


async def recognize(
    server: FakeScanServer, *, token: str = TOKEN, seconds: float = 60.0, **options: Any
) -> Recognition:
    settings = ScanClientSettings(
        base_url=server.url,
        token=SecretStr(token),
        backoff_seconds=0.01,
        poll_interval_seconds=0.05,
        **options,
    )
    async with ScanClient(settings) as client:
        return await ScanGatewayRecognizer(HttpSource(client)).recognize(PDF, make_job(seconds))


async def failure(server: FakeScanServer, **options: Any) -> RecognitionFailed:
    with pytest.raises(RecognitionFailed) as caught:
        await recognize(server, **options)
    return caught.value


async def test_result_set_over_http_maps_to_the_contract_example(fake_scan: FakeScanServer) -> None:
    """Submit, poll, fetch: the scripted page becomes exactly the example's documents, and
    every call carried the bearer token."""
    fake_scan.system.script({"page-1.json": minimal_balance_item()})
    recognition = await recognize(fake_scan)
    assert recognition.documents == example("result-statement-minimal.json")["documents"]
    assert recognition.warnings == [] and recognition.status == "needs_check"
    assert fake_scan.system.authorizations
    assert set(fake_scan.system.authorizations) == {f"Bearer {TOKEN}"}
    assert next(m for m, _ in fake_scan.system.requests) == "POST"


async def test_slow_scanning_system_is_timeout_bounded_by_the_reply_deadline(
    fake_scan: FakeScanServer,
) -> None:
    """The job stays running past the reply_deadline: TIMEOUT, and polling stopped."""
    fake_scan.system.script(
        {"page-1.json": minimal_balance_item()}, faults=Faults(processing_seconds=120)
    )
    failed = await failure(fake_scan, seconds=0.6)
    assert failed.code == ErrorCode.TIMEOUT
    assert "deadline" in failed.message
    assert not any("/items/" in path for _, path in fake_scan.system.requests)


async def test_server_errors_are_retried_until_success(fake_scan: FakeScanServer) -> None:
    """503 on submit, on status and on the item are retried with backoff; the job succeeds."""
    fake_scan.system.script(
        {"page-1.json": minimal_balance_item()},
        faults=Faults(submit_5xx=1, status_5xx=2, item_5xx=2),
    )
    recognition = await recognize(fake_scan, retries=3)
    assert recognition.documents == example("result-statement-minimal.json")["documents"]
    methods = [m for m, _ in fake_scan.system.requests]
    assert methods.count("POST") == 2
    assert sum("/items/" in p for _, p in fake_scan.system.requests) == 3


async def test_server_errors_beyond_the_retries_fail_the_job(fake_scan: FakeScanServer) -> None:
    """Status keeps answering 503: after 1 + SCAN_RETRIES calls, RECOGNITION_FAILED naming
    the attempts; the token is in no message."""
    fake_scan.system.script({"page-1.json": minimal_balance_item()}, faults=Faults(status_5xx=50))
    failed = await failure(fake_scan, retries=2)
    assert failed.code == ErrorCode.RECOGNITION_FAILED
    assert "3 attempts" in failed.message and "503" in failed.message
    assert TOKEN not in failed.message
    assert sum(m == "GET" for m, _ in fake_scan.system.requests) == 3


async def test_broken_json_item_is_a_json_failed_warning(fake_scan: FakeScanServer) -> None:
    """One item is not valid JSON: a JSON_FAILED error warning with locator {part}; the other
    page still gives its document, and the file becomes needs_check."""
    fake_scan.system.script(
        {"page-1.json": minimal_balance_item(), "page-2.json": item(2, [plain_line("x")], [])},
        faults=Faults(broken_items=frozenset({"page-2.json"})),
    )
    recognition = await recognize(fake_scan)
    assert [w["code"] for w in recognition.warnings] == ["JSON_FAILED"]
    warning = recognition.warnings[0]
    assert warning["severity"] == "error" and warning["locator"] == {"part": "page-2.json"}
    assert len(recognition.documents) == 1 and recognition.status == "needs_check"


async def test_missing_item_is_a_json_failed_warning(fake_scan: FakeScanServer) -> None:
    """An item the job lists but the server does not have (404): JSON_FAILED for that part."""
    fake_scan.system.script(
        {"page-1.json": minimal_balance_item()},
        faults=Faults(missing_items=frozenset({"page-0.json"})),
    )
    recognition = await recognize(fake_scan)
    assert recognition.warnings == [
        {
            "code": "JSON_FAILED",
            "severity": "error",
            "message": recognition.warnings[0]["message"],
            "locator": {"part": "page-0.json"},
        }
    ]
    assert len(recognition.documents) == 1


async def test_item_shaped_wrong_is_a_json_failed_warning(fake_scan: FakeScanServer) -> None:
    """Valid JSON that is not an item (no page) is JSON_FAILED too, not a crash."""
    fake_scan.system.script(
        {"page-1.json": minimal_balance_item(), "extra.json": encode({"tables": "no"})}
    )
    recognition = await recognize(fake_scan)
    assert [(w["code"], w["locator"]) for w in recognition.warnings] == [
        ("JSON_FAILED", {"part": "extra.json"})
    ]


async def test_wrong_token_is_recognition_failed_without_quoting_it(
    fake_scan: FakeScanServer,
) -> None:
    """401 is not retried: RECOGNITION_FAILED pointing at the setting, never at the value."""
    fake_scan.system.script({"page-1.json": minimal_balance_item()})
    failed = await failure(fake_scan, token="wrong-token-value")
    assert failed.code == ErrorCode.RECOGNITION_FAILED
    assert "OPENBAO__SCAN__SCAN_TOKEN" in failed.message
    assert "wrong-token-value" not in failed.message
    assert len(fake_scan.system.requests) == 1


async def test_failed_scanning_job_is_recognition_failed(fake_scan: FakeScanServer) -> None:
    """The scanning system reports `failed`: RECOGNITION_FAILED with its reason."""
    fake_scan.system.script({}, faults=Faults(fail_job="page is blank"))
    failed = await failure(fake_scan)
    assert failed.code == ErrorCode.RECOGNITION_FAILED and "page is blank" in failed.message


async def test_unreachable_scanning_system_is_retried_then_fails() -> None:
    """Connection refused on every attempt: retried, then RECOGNITION_FAILED."""
    with FakeScanServer() as server:
        url = server.url
    settings = ScanClientSettings(url, SecretStr(TOKEN), retries=1, backoff_seconds=0.01)
    async with ScanClient(settings) as client:
        with pytest.raises(RecognitionFailed) as caught:
            await ScanGatewayRecognizer(HttpSource(client)).recognize(PDF, make_job())
    assert caught.value.code == ErrorCode.RECOGNITION_FAILED
    assert "connection error" in caught.value.message


def test_client_settings_repr_hides_the_token() -> None:
    """The token never shows in a repr."""
    settings = ScanClientSettings("http://scan", SecretStr(TOKEN))
    assert TOKEN not in repr(settings) and TOKEN not in repr(ScanClient(settings))
