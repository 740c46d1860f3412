"""Reading borrowers' files in sandboxed workers: a window of cells, a page of capped pixels,
bounded admission. The caller's memory stays flat and its event loop free, whatever the file."""

from __future__ import annotations

import asyncio
import io
import resource
import time
from collections.abc import Awaitable
from typing import TypeVar

import pytest
from PIL import Image

from services.documents_io import (
    CellWindow,
    DocumentUnreadable,
    ExcelRef,
    NotThatFormat,
    count_pages,
    read_cell_window,
    render_page,
)
from services.runtime.exceptions import SandboxBusy, SandboxMemoryError, SandboxTimeout
from services.runtime.file_workers import FileWorkerLimits, FileWorkers
from tests.builders import SheetSpec, write_xlsx
from tests.documents_io._files import REPORT, xlsx_with_filler

T = TypeVar("T")
_MB = 1024 * 1024


def _peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


async def _with_ticks(work: Awaitable[T]) -> tuple[T | BaseException, float]:
    """`work`'s outcome, and the longest the event loop went without running a 20 ms tick."""
    longest = 0.0
    done = asyncio.Event()

    async def tick() -> None:
        nonlocal longest
        last = time.monotonic()
        while not done.is_set():
            await asyncio.sleep(0.02)
            now = time.monotonic()
            longest, last = max(longest, now - last), now

    ticker = asyncio.ensure_future(tick())
    try:
        outcome: T | BaseException = await work
    except Exception as exc:
        outcome = exc
    done.set()
    await ticker
    return outcome, longest


def _check_report_window(window: CellWindow | None) -> None:
    assert window is not None
    assert window.sheet == "Отчет" and window.first_row == 0 and window.first_col == 0
    assert window.rows[:4] == [
        ["Показатель", "Код", "За год"],
        ["Выручка", "2110", "1500"],
        ["Себестоимость", "2120", "-900"],
        ["Прибыль", "2200", "600"],
    ]
    assert window.hit == (1, 2)  # the cell right of the ref that prints 1500


async def test_a_window_of_cells_comes_back_and_nothing_else() -> None:
    """The cells around the line, the value's own cell found; a sheet the file lacks: None;
    bytes that are no workbook: NotThatFormat."""
    data = write_xlsx([SheetSpec("Отчет", rows=REPORT)])
    async with FileWorkers(FileWorkerLimits(workers=1)) as workers:
        window = await read_cell_window(
            workers, data, ExcelRef("Отчет", 1, 0), amount="1500", text=None
        )
        missing = await read_cell_window(
            workers, data, ExcelRef("Нет", 1, 0), amount=None, text=None
        )
        with pytest.raises(NotThatFormat):
            await read_cell_window(
                workers, b"%PDF-1.4", ExcelRef("Отчет", 1, 0), amount=None, text=None
            )
    _check_report_window(window)
    assert missing is None


async def test_a_4m_cell_filler_sheet_costs_the_worker_never_the_caller() -> None:
    """A workbook whose filler sheet holds 4 million cells: the window comes back (or the
    worker's own limit is hit), the caller's peak memory stays flat and its loop runs."""
    data = xlsx_with_filler(4000, 1000)
    async with FileWorkers(FileWorkerLimits(workers=1, timeout_seconds=120)) as workers:
        before = _peak_rss()
        outcome, longest = await _with_ticks(
            read_cell_window(workers, data, ExcelRef("Отчет", 1, 0), amount="1500", text=None)
        )
        grown = _peak_rss() - before
    if isinstance(outcome, BaseException):
        assert isinstance(outcome, SandboxMemoryError | SandboxTimeout), repr(outcome)
    else:
        _check_report_window(outcome)
    assert grown < 100 * _MB, f"the caller grew by {grown / _MB:.0f} MB"
    assert longest < 1.0, f"the event loop stalled for {longest:.2f} s"  # a busy shared host


async def test_an_image_page_is_downscaled_to_the_cap() -> None:
    """A 4000 × 3000 PNG with a 1-megapixel cap: drawn whole at 1154 × 866; page 2 of an
    image: None; a damaged PDF: DocumentUnreadable."""
    out = io.BytesIO()
    Image.new("RGB", (4000, 3000), (200, 10, 10)).save(out, format="PNG")
    async with FileWorkers(FileWorkerLimits(workers=1)) as workers:
        png = await render_page(workers, out.getvalue(), "PNG", 1, max_pixels=1_000_000)
        second = await render_page(workers, out.getvalue(), "PNG", 2)
        with pytest.raises(DocumentUnreadable):
            await render_page(workers, b"%PDF-1.4 broken", "PDF", 1)
    assert png is not None and second is None
    image = Image.open(io.BytesIO(png))
    assert image.width * image.height <= 1_000_000
    assert abs(image.width / image.height - 4 / 3) < 0.01
    assert image.getpixel((10, 10)) == (200, 10, 10)


async def test_the_pages_of_a_scan_are_counted_in_a_worker() -> None:
    """The total a running recognition shows: a three-page PDF has 3, an image 1; a damaged
    PDF is DocumentUnreadable and a workbook NotThatFormat (it has no pages)."""
    out = io.BytesIO()
    pages = [Image.new("RGB", (200, 300), (255, 255, 255)) for _ in range(3)]
    pages[0].save(out, format="PDF", save_all=True, append_images=pages[1:])
    async with FileWorkers(FileWorkerLimits(workers=1)) as workers:
        assert await count_pages(workers, out.getvalue(), "PDF") == 3
        assert await count_pages(workers, b"\x89PNG whatever", "PNG") == 1
        with pytest.raises(DocumentUnreadable):
            await count_pages(workers, b"%PDF-1.4 broken", "PDF")
        with pytest.raises(NotThatFormat):
            await count_pages(workers, b"PK\x03\x04 a workbook", "XLSX")


def _hold(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


async def test_a_full_pool_refuses_at_once() -> None:
    """One worker and one waiting place: a third read is SandboxBusy at once; the first two
    finish, and then there is room again."""
    async with FileWorkers(FileWorkerLimits(workers=1, waiting=1, cpu_seconds=5)) as workers:
        first = asyncio.ensure_future(workers.run(_hold, 1.0))
        second = asyncio.ensure_future(workers.run(_hold, 0.1))
        await asyncio.sleep(0)
        started = time.monotonic()
        with pytest.raises(SandboxBusy):
            await workers.run(_hold, 0.0)
        assert time.monotonic() - started < 0.1
        assert await first == 1.0 and await second == 0.1
        assert await workers.run(_hold, 0.0) == 0.0
