"""A multi-page PDF's pages recognised in parallel (issue 29 item 3): with more than one worker
the local source gives each page its own sandboxed task and joins their items in page order —
the same item names and bytes, in the same order, as one call reading the whole file — and a
page task that fails fails the file with the error one call would give."""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Callable
from typing import Any

import pytest

from services.runtime.exceptions import SandboxCrashed
from services.runtime.recognizer import ErrorCode, RecognitionFailed
from services.runtime.sandbox import Sandbox, SandboxSettings
from services.scan_gateway.local import pdf_pages, recognize_pdf_pages, recognize_to_items
from services.scan_gateway.recognizer import LocalSource, ScanGatewayRecognizer

from ._forms import BALANCE, INCOME, font_path, render_pdf, render_scanned_pdf
from .test_local import InlineRunner, make_job

pytestmark = pytest.mark.skipif(font_path() is None, reason="no DejaVuSans font to render with")


class _Watching:
    """A runner over another that counts the page tasks in flight at once and the most seen."""

    def __init__(self, runner: Any) -> None:
        self._runner = runner
        self.calls: list[str] = []
        self._in_flight = 0
        self.most = 0

    async def run(self, fn: Callable[..., Any], /, *args: Any) -> Any:
        self.calls.append(fn.__name__)
        self._in_flight += 1
        self.most = max(self.most, self._in_flight)
        try:
            return await self._runner.run(fn, *args)
        finally:
            self._in_flight -= 1


class _CrashingPage:
    """Runs inline, but the worker of page `page` dies."""

    def __init__(self, page: int) -> None:
        self._page = page

    async def run(self, fn: Callable[..., Any], /, *args: Any) -> Any:
        if fn is recognize_pdf_pages and args[1] == self._page:
            raise SandboxCrashed(fn.__name__, "killed by signal 9")
        return fn(*args)


class _Concurrent:
    """Runs inline after yielding to the event loop, so that tasks handed together overlap."""

    async def run(self, fn: Callable[..., Any], /, *args: Any) -> Any:
        await asyncio.sleep(0.01)
        return fn(*args)


async def _fetch(runner: Any, data: bytes, workers: int, **kwargs: Any) -> dict[str, bytes]:
    source = LocalSource(runner, workers=workers, **kwargs)
    raw = await source.fetch(data, make_job("PDF"), deadline=time.monotonic() + 600)
    return raw.items


def test_the_pages_of_a_pdf_read_one_by_one_are_the_whole_file_s_items() -> None:
    """`recognize_pdf_pages` of each page, joined, is `recognize_to_items` of the file: names,
    bytes and order; `pdf_pages` counts the pages."""
    data = render_pdf((BALANCE, INCOME, BALANCE))
    whole = recognize_to_items(data, "PDF")
    assert pdf_pages(data) == 3
    joined: dict[str, bytes] = {}
    for number in (1, 2, 3):
        page = recognize_pdf_pages(data, number, number)
        assert len(page) == 1
        joined.update(page)
    assert list(joined.items()) == list(whole.items())
    assert recognize_pdf_pages(data, 2, 3) == {k: whole[k] for k in list(whole)[1:]}


async def test_a_source_of_two_workers_gives_each_page_its_own_task() -> None:
    """Two workers: one count, then one task a page, all handed to the sandbox at once (it runs
    as many as it has workers); the items are those of one worker."""
    data = render_pdf((BALANCE, INCOME, BALANCE))
    one = _Watching(InlineRunner())
    assert await _fetch(one, data, 1) == recognize_to_items(data, "PDF")
    assert one.calls == ["recognize_to_items"]
    two = _Watching(_Concurrent())
    items = await _fetch(two, data, 2)
    assert list(items.items()) == list(recognize_to_items(data, "PDF").items())
    assert two.calls == ["pdf_pages"] + ["recognize_pdf_pages"] * 3
    assert two.most == 3


async def test_a_page_whose_worker_dies_fails_the_file_as_one_call_would() -> None:
    """Page 2's worker dies: the file is UNREADABLE (the sandbox ladder of decision 0031), as
    when the one worker reading the whole file dies."""
    data = render_pdf((BALANCE, INCOME, BALANCE))
    with pytest.raises(RecognitionFailed) as split:
        await ScanGatewayRecognizer(LocalSource(_CrashingPage(2), workers=2)).recognize(
            data, make_job("PDF")
        )
    assert split.value.code is ErrorCode.UNREADABLE
    assert split.value.message == "the worker process reading the file died"


@pytest.mark.parametrize(
    ("data", "tesseract", "code"),
    [
        (b"not a pdf", "tesseract", ErrorCode.UNREADABLE),
        (b"", "tesseract", ErrorCode.UNREADABLE),
        (None, "no-such-tesseract-binary", ErrorCode.RECOGNITION_FAILED),
    ],
)
async def test_a_file_that_fails_fails_alike_with_one_or_two_workers(
    data: bytes | None, tesseract: str, code: ErrorCode
) -> None:
    """Not a PDF, an empty file, a scanned page without Tesseract: the same error code and
    message whether the pages are split among two workers or read in one call."""
    data = render_scanned_pdf((BALANCE, INCOME)) if data is None else data
    failures: list[RecognitionFailed] = []
    for workers in (1, 2):
        source = LocalSource(InlineRunner(), tesseract_cmd=tesseract, workers=workers)
        with pytest.raises(RecognitionFailed) as failed:
            await ScanGatewayRecognizer(source).recognize(data, make_job("PDF"))
        failures.append(failed.value)
    assert [f.code for f in failures] == [code, code]
    assert failures[0].message == failures[1].message


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("tesseract") is None, reason="no tesseract")
async def test_a_scanned_pdf_in_two_workers_is_read_as_in_one() -> None:
    """Three scanned pages through the real sandbox: two workers (pages in parallel, each its
    own limited task) give the same items — names, bytes, order — as one worker reading the
    file in one call."""
    data = render_scanned_pdf((BALANCE, INCOME, BALANCE))
    async with Sandbox(SandboxSettings(workers=1, timeout_seconds=300)) as one:
        sequential = await _fetch(one, data, 1, dpi=150)
    async with Sandbox(SandboxSettings(workers=2, timeout_seconds=300)) as two:
        watching = _Watching(two)
        parallel = await _fetch(watching, data, 2, dpi=150)
    assert len(sequential) == 3
    assert list(parallel.items()) == list(sequential.items())
    assert watching.calls == ["pdf_pages"] + ["recognize_pdf_pages"] * 3
