"""A running scan's pages done (decision 0037): the local recogniser's worker tells each page it
starts through a channel file, scan-gateway stores `results/{file_id}/{job_id}/progress.json`
while it runs, once a page, and all pages done at the end; a progress write that fails or hangs
never fails nor holds the job."""

from __future__ import annotations

import asyncio
import logging
import shutil
from pathlib import Path
from typing import Any

import pytest

from services.runtime.sandbox import Sandbox, SandboxSettings
from services.runtime.storage import StorageError
from services.scan_gateway.local import pages_reported, recognize_reporting, report_pages
from services.scan_gateway.progress import ProgressWriter, progress_key
from services.scan_gateway.recognizer import LocalSource, ScanGatewayRecognizer

from ._forms import BALANCE, INCOME, font_path, render_pdf, render_scanned_pdf
from .test_local import InlineRunner, make_job

pytestmark = pytest.mark.skipif(font_path() is None, reason="no DejaVuSans font to render with")


class _Recording:
    """A store that keeps every document put, in order; `fail` refuses them, `hang` never
    answers."""

    def __init__(self, *, fail: bool = False, hang: bool = False) -> None:
        self.puts: list[tuple[str, str, Any]] = []
        self._fail = fail
        self._hang = hang

    async def put_json(self, bucket: str, key: str, document: Any) -> None:
        self.puts.append((bucket, key, document))
        if self._hang:
            await asyncio.Event().wait()
        if self._fail:
            raise StorageError("S3 refused the write")


def test_the_service_tells_the_pages_finished(tmp_path: Path) -> None:
    """Pages split among workers: the service writes the pages finished to the channel, read
    back as written; a channel that cannot be opened is ignored."""
    channel = tmp_path / "pages"
    channel.write_bytes(b"")
    report_pages(str(channel), 0, 3)
    assert pages_reported(str(channel)) == (0, 3)
    report_pages(str(channel), 2, 3)
    assert pages_reported(str(channel)) == (2, 3)
    report_pages(str(tmp_path / "missing" / "pages"), 1, 3)
    assert not (tmp_path / "missing").exists()


def test_the_worker_tells_each_page_it_starts(tmp_path: Path) -> None:
    """A three-page text-layer PDF read with a channel: the last page started leaves «2 of 3
    done» there (the service adds the end); a channel that does not open changes nothing of
    what is read."""
    data = render_pdf((BALANCE, INCOME, BALANCE))
    channel = tmp_path / "pages"
    channel.write_bytes(b"")
    assert pages_reported(str(channel)) is None
    items = recognize_reporting(str(channel), data, "PDF")
    assert pages_reported(str(channel)) == (2, 3)
    assert recognize_reporting(str(tmp_path / "missing" / "pages"), data, "PDF") == items
    assert len(items) == 3


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("tesseract") is None, reason="no tesseract")
@pytest.mark.parametrize("workers", [1, 2])
async def test_a_scan_in_a_sandboxed_worker_shows_its_pages_done_while_it_runs(
    workers: int,
) -> None:
    """Three scanned pages in the real sandbox, read in one call by one worker or a page a task
    by two: progress.json (beside the result) is written while the workers run — pages done
    never going back, never twice the same, the total always 3 — and ends at 3 of 3; the scan
    is recognised as without it."""
    store = _Recording()
    job = make_job("PDF")
    async with Sandbox(SandboxSettings(workers=workers, timeout_seconds=300)) as sandbox:
        source = LocalSource(
            sandbox,
            dpi=150,
            progress=ProgressWriter(store, "results", interval=0.05),
            workers=workers,
        )
        recognition = await ScanGatewayRecognizer(source).recognize(
            render_scanned_pdf((BALANCE, INCOME, BALANCE)), job
        )
    assert recognition.documents
    assert {(bucket, key) for bucket, key, _ in store.puts} == {("results", progress_key(job))}
    assert progress_key(job) == f"results/{job.file_id}/{job.job_id}/progress.json"
    shown = [(d["pages_done"], d["pages_total"]) for _, _, d in store.puts]
    assert shown[-1] == (3, 3), shown
    assert any(done < 3 for done, _ in shown), shown  # seen before the worker returned
    assert all(total == 3 for _, total in shown)
    assert [done for done, _ in shown] == sorted({done for done, _ in shown}), shown


@pytest.mark.parametrize("store", [_Recording(fail=True), _Recording(hang=True)])
async def test_a_progress_write_that_fails_or_hangs_does_not_fail_the_job(
    store: _Recording, caplog: pytest.LogCaptureFixture
) -> None:
    """S3 refusing, or never answering, the progress file: the job is recognised all the
    same, the failure logged; a failed count is not written again."""
    data = render_pdf((BALANCE, INCOME))
    job = make_job("PDF")
    plain = await ScanGatewayRecognizer(LocalSource(InlineRunner())).recognize(data, job)
    writer = ProgressWriter(store, interval=0.01, write_seconds=0.2)
    caplog.set_level(logging.WARNING, logger="services.scan_gateway.progress")
    source = LocalSource(InlineRunner(), progress=writer)
    recognition = await ScanGatewayRecognizer(source).recognize(data, job)
    assert recognition.documents == plain.documents
    assert [d for _, _, d in store.puts] == [{"pages_done": 2, "pages_total": 2}]
    assert "progress {'pages_done': 2, 'pages_total': 2} not stored" in caplog.text


@pytest.mark.parametrize("workers", [1, 2])
async def test_a_failed_recognition_writes_no_end(workers: int) -> None:
    """A file the recogniser refuses (in one call, or at its count of pages): no «all pages
    done» is claimed for it."""
    store = _Recording()
    source = LocalSource(
        InlineRunner(), progress=ProgressWriter(store, interval=0.01), workers=workers
    )
    with pytest.raises(Exception, match="PDF"):
        await ScanGatewayRecognizer(source).recognize(b"not a pdf", make_job("PDF"))
    assert store.puts == []
