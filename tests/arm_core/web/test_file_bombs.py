"""Borrowers' bombs against the core (#27 item 2): a page bomb, huge TIFF scans, a workbook
with a 4M-cell filler sheet. Each ends in a capped result or an answer saying why (a problem
of its own type, the panel's reason), the core's own memory stays flat, and the API answers
other requests meanwhile: the files are read only in sandboxed workers.
"""

from __future__ import annotations

import asyncio
import io
import resource
import time
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from PIL import Image
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.app import CoreApp, create_app
from services.arm_core.db import StoredFile
from services.arm_core.settings import CoreSettings
from services.documents_io.pages import MAX_PAGE_PIXELS
from services.documents_io.tiff import MAX_TIFF_PAGE_PIXELS
from services.runtime.settings import S3Settings
from tests.documents_io._files import xlsx_with_filler

pytestmark = pytest.mark.db

# A 7200 × 7200 pt page: 10800 × 10800 pixels (over 400 MB of bitmap) at the screen scale.
PAGE_BOMB = (
    b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
    b"2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n"
    b"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 7200 7200]>>endobj\n"
    b"trailer<</Root 1 0 R>>\n%%EOF\n"
)
_MB = 1024 * 1024


def _peak_rss() -> int:
    """This process's peak resident memory, in bytes (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _huge_tiff(pages: int, side: int) -> bytes:
    """`pages` blank side × side group-4 pages: tens of KB of TIFF, side² pixels a page."""
    page = Image.new("1", (side, side), 1)
    out = io.BytesIO()
    page.save(
        out, format="TIFF", compression="group4", save_all=True, append_images=[page] * (pages - 1)
    )
    return out.getvalue()


async def _upload(client: httpx.AsyncClient, name: str, data: bytes) -> httpx.Response:
    return await client.post("/api/v1/files", files={"file": (name, data)})


async def _timed_list(client: httpx.AsyncClient) -> float:
    started = time.monotonic()
    answer = await client.get("/api/v1/files")
    assert answer.status_code == 200, answer.text
    return time.monotonic() - started


async def _while(work: asyncio.Future[Any], client: httpx.AsyncClient) -> list[float]:
    """How long `GET /api/v1/files` takes, asked again and again until `work` is done."""
    times = []
    while not work.done():
        times.append(await _timed_list(client))
        await asyncio.sleep(0.1)
    return times


async def test_a_page_bomb_is_drawn_capped_while_the_api_answers(
    app: CoreApp, client: httpx.AsyncClient
) -> None:
    """Three 331-byte PDFs with a 7200 pt page, drawn at once: three PNGs of at most
    PAGE_MAX_PIXELS (downscaled, not refused), the core's peak memory grows by far less than
    one such bitmap, and the file list answers quickly meanwhile."""
    assert len(PAGE_BOMB) < 400
    ids = []
    for n in range(3):
        up = await _upload(client, f"bomb{n}.pdf", PAGE_BOMB)
        assert up.status_code == 201, up.text
        ids.append(up.json()["file_id"])
    before = _peak_rss()
    pages = asyncio.ensure_future(
        asyncio.gather(*(client.get(f"/ui/files/{i}/pages/1.png") for i in ids))
    )
    times = await _while(pages, client)
    answers = await pages
    grown = _peak_rss() - before
    for answer in answers:
        assert answer.status_code == 200, answer.text
        image = Image.open(io.BytesIO(answer.content))
        assert image.width * image.height <= MAX_PAGE_PIXELS
        assert image.width == image.height > 3000  # the whole page, downscaled to the cap
    assert grown < 150 * _MB, f"the core grew by {grown / _MB:.0f} MB"
    assert times and max(times) < 2.0, times


@pytest.fixture
async def strict_app(
    core_settings: Callable[..., CoreSettings],
    s3_settings: S3Settings,
    bucket: str,
    sessions: async_sessionmaker[AsyncSession],
) -> AsyncIterator[CoreApp]:
    """The core with one file worker, no waiting place and one CPU second per read."""
    settings = core_settings(
        s3={**s3_settings.model_dump(), "s3_bucket": bucket},
        file_workers=1,
        file_workers_waiting=0,
        file_worker_cpu_seconds=1,
    )
    core_app = create_app(settings, run_background=False)
    async with core_app.api.router.lifespan_context(core_app.api):
        yield core_app


async def test_huge_tiff_scans_are_refused_by_their_limits_while_the_api_answers(
    strict_app: CoreApp,
) -> None:
    """TIFF bombs at upload, nothing stored from either. Pages of 169 million pixels: 413
    file-too-large at once, before any is decoded. Sixteen pages of 100 million (under the
    pixel cap, several CPU seconds to convert) take their worker over its one CPU second: 422
    file-over-limits. A second upload while the only worker is taken: 503 files-busy at once.
    The file list answers quickly all along."""
    assert 10000 * 10000 <= MAX_TIFF_PAGE_PIXELS < 13000 * 13000
    workers = strict_app.core.uploads.file_reads.workers
    transport = httpx.ASGITransport(app=strict_app)
    # A loopback host name: the unauthenticated core answers no other (DNS rebinding).
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        oversized = await _upload(client, "огромный.tiff", _huge_tiff(8, 13000))
        tiff = _huge_tiff(16, 10000)
        first = asyncio.ensure_future(_upload(client, "скан.tiff", tiff))
        while workers.admitted == 0 and not first.done():  # noqa: ASYNC110 (no event to wait on)
            await asyncio.sleep(0.01)
        second = await _upload(client, "второй.tiff", tiff)
        times = await _while(first, client)
        over = await first
        listed = await client.get("/api/v1/files")
    assert oversized.status_code == 413, oversized.text
    assert oversized.json()["type"] == "urn:arm-ka:problem:file-too-large"
    assert "13000 × 13000 pixels" in oversized.json()["detail"]
    assert second.status_code == 503, second.text
    assert second.json()["type"] == "urn:arm-ka:problem:files-busy"
    assert over.status_code == 422, over.text
    assert over.json()["type"] == "urn:arm-ka:problem:file-over-limits"
    assert listed.json()["items"] == []
    assert times and max(times) < 2.0, times


async def test_a_cell_panel_of_a_4m_cell_workbook_says_why_while_the_api_answers(
    strict_app: CoreApp, sessions: async_sessionmaker[AsyncSession]
) -> None:
    """The source view of a workbook whose filler sheet holds 4 million cells, with one CPU
    second per read: the panel says the file is too large to show (its worker ran over), the
    core's peak memory stays flat and the file list answers meanwhile."""
    transport = httpx.ASGITransport(app=strict_app)
    # A loopback host name: the unauthenticated core answers no other (DNS rebinding).
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        up = await _upload(client, "отчёт.xlsx", xlsx_with_filler(4000, 1000))
        assert up.status_code == 201, up.text
        async with sessions() as session:
            stored = await session.get(StoredFile, uuid.UUID(up.json()["file_id"]))
        assert stored is not None
        sources = strict_app.api.state.sources
        before = _peak_rss()
        panel = asyncio.ensure_future(
            sources.origin(strict_app.core.uploads, stored, "'Отчет'!A2", {"amount": "1500"})
        )
        times = await _while(panel, client)
        origin = await panel
        grown = _peak_rss() - before
    assert origin == {"kind": "none", "reason": "исходный файл слишком велик для просмотра"}
    assert grown < 100 * _MB, f"the core grew by {grown / _MB:.0f} MB"
    assert times and max(times) < 2.0, times
