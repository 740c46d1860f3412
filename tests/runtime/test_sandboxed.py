"""The recognisers' sandbox seam, written once: a worker that fails is UNREADABLE in both."""

from __future__ import annotations

import datetime as dt
import time
import uuid

import pytest

from services.runtime.recognizer import ErrorCode, Job, RecognitionFailed
from services.runtime.sandbox import Sandbox, SandboxSettings
from services.runtime.sandboxed import run_recognition
from services.scan_gateway.recognizer import LocalSource, ScanGatewayRecognizer
from services.tabular_parser.recognizer import TabularRecognizer
from tests.builders import SheetSpec, write_xlsx


def _sleep(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def _allocate(n_bytes: int) -> int:
    return len(bytearray(n_bytes))


def _refuse() -> None:
    raise RecognitionFailed(ErrorCode.UNSUPPORTED_FORMAT, "not ours")


def _job(file_type: str) -> Job:
    return Job(
        job_id=uuid.uuid4(),
        file_id=uuid.uuid4(),
        attempt=1,
        file_type=file_type,
        original_name=f"f.{file_type.lower()}",
        bucket="b",
        key="k",
        reply_deadline=dt.datetime.now(dt.UTC) + dt.timedelta(minutes=5),
    )


async def test_each_way_a_worker_fails_is_unreadable() -> None:
    """Over its time, over its memory: UNREADABLE saying which; the task's own error passes."""
    settings = SandboxSettings(workers=1, timeout_seconds=8, memory_limit_bytes=512 << 20)
    async with Sandbox(settings) as box:
        with pytest.raises(RecognitionFailed) as slow:
            await run_recognition(box, _sleep, 30, what="the file")
        with pytest.raises(RecognitionFailed) as big:
            await run_recognition(box, _allocate, 2 << 30, what="the file")
        with pytest.raises(RecognitionFailed) as own:
            await run_recognition(box, _refuse, what="the file")
        assert await run_recognition(box, _sleep, 0, what="the file") == 0
    assert (slow.value.code, slow.value.message) == (
        ErrorCode.UNREADABLE,
        "reading the file took longer than allowed",
    )
    assert big.value.code is ErrorCode.UNREADABLE
    assert "memory" in big.value.message
    assert own.value.code is ErrorCode.UNSUPPORTED_FORMAT


async def test_a_sandbox_timeout_is_unreadable_in_both_recognisers() -> None:
    """A worker over its time limit ends the job UNREADABLE, the scans' local recogniser too
    (TIMEOUT is the reply_deadline's; it used to be TIMEOUT there)."""
    tight = SandboxSettings(workers=1, timeout_seconds=0.001, memory_limit_bytes=None)
    async with Sandbox(tight) as box:
        with pytest.raises(RecognitionFailed) as tabular:
            await TabularRecognizer(box).recognize(
                write_xlsx([SheetSpec("Лист1", rows=[["a"]])]), _job("XLSX")
            )
    async with Sandbox(tight) as box:
        scans = ScanGatewayRecognizer(LocalSource(box))
        with pytest.raises(RecognitionFailed) as scan:
            await scans.recognize(b"%PDF-1.4\n", _job("PDF"))
    assert tabular.value.code is ErrorCode.UNREADABLE
    assert scan.value.code is ErrorCode.UNREADABLE
    assert scan.value.message == "reading the file took longer than allowed"
