"""The source view's cache: a second look at the same file reads nothing from S3 again, and
the cache stays within its bounds of entries and bytes."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.app import CoreApp
from services.arm_core.db import StoredFile
from services.arm_core.web import SourceCache
from tests.arm_core.web._recognition import Recognised, deliver_result, upload_taken
from tests.support.core import example, for_job

DOUBTFUL_LINE, COLUMN = 1, 3


def _loader(value: str, weight: int, calls: list[str]) -> Callable[[], Awaitable[tuple[str, int]]]:
    async def load() -> tuple[str, int]:
        calls.append(value)
        return value, weight

    return load


async def test_a_second_get_of_the_same_key_does_not_load_again() -> None:
    """The same file and the same read: loaded once; another read of that file: loaded."""
    cache, file_id = SourceCache(), uuid.uuid4()
    calls: list[str] = []
    assert await cache.get(file_id, "workbook", _loader("wb", 10, calls)) == "wb"
    assert await cache.get(file_id, "workbook", _loader("other", 10, calls)) == "wb"
    assert await cache.get(file_id, ("page", 1), _loader("p1", 10, calls)) == "p1"
    assert calls == ["wb", "p1"]


async def test_the_entry_bound_drops_the_least_recently_used() -> None:
    """With room for two, a third entry drops the one looked at longest ago."""
    cache = SourceCache(max_entries=2)
    calls: list[str] = []
    a, b, c = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    await cache.get(a, "workbook", _loader("a", 1, calls))
    await cache.get(b, "workbook", _loader("b", 1, calls))
    await cache.get(a, "workbook", _loader("a", 1, calls))  # a is now the newer
    await cache.get(c, "workbook", _loader("c", 1, calls))
    assert len(cache) == 2
    assert (a, "workbook") in cache and (c, "workbook") in cache
    assert (b, "workbook") not in cache
    assert calls == ["a", "b", "c"]


async def test_the_byte_bound_holds_and_a_too_heavy_value_is_not_kept() -> None:
    """Weights add up to at most max_bytes (older entries go first); a value heavier than the
    whole bound is returned but not kept, and evicts nothing."""
    cache = SourceCache(max_entries=10, max_bytes=100)
    calls: list[str] = []
    first, second, third = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    await cache.get(first, "workbook", _loader("1", 60, calls))
    await cache.get(second, "workbook", _loader("2", 30, calls))
    assert cache.bytes == 90
    await cache.get(third, "workbook", _loader("3", 40, calls))
    assert cache.bytes == 70 <= cache.max_bytes
    assert (first, "workbook") not in cache
    huge = uuid.uuid4()
    assert await cache.get(huge, "workbook", _loader("huge", 101, calls)) == "huge"
    assert (huge, "workbook") not in cache
    assert cache.bytes == 70 and len(cache) == 2


async def test_a_failed_load_keeps_nothing_and_concurrent_gets_load_once() -> None:
    """A load that raises is not remembered (the next get tries again); two gets of the same
    key at once share one load."""
    cache, file_id = SourceCache(), uuid.uuid4()

    async def broken() -> tuple[str, int]:
        raise OSError("S3 is away")

    with pytest.raises(OSError):
        await cache.get(file_id, "workbook", broken)
    assert len(cache) == 0
    calls: list[str] = []
    gate = asyncio.Event()

    async def slow() -> tuple[str, int]:
        calls.append("load")
        await gate.wait()
        return "wb", 1

    both = asyncio.gather(
        cache.get(file_id, "workbook", slow), cache.get(file_id, "workbook", slow)
    )
    await asyncio.sleep(0)
    gate.set()
    assert list(await both) == ["wb", "wb"]
    assert calls == ["load"]


def _count_reads(app: CoreApp, monkeypatch: pytest.MonkeyPatch) -> list[uuid.UUID]:
    """Every S3 read of an upload the core makes, by file id (the real read underneath)."""
    uploads = app.api.state.api_deps.uploads
    real = uploads.read
    reads: list[uuid.UUID] = []

    async def read(file: StoredFile) -> bytes:
        reads.append(file.id)
        data: bytes = await real(file)
        return data

    monkeypatch.setattr(uploads, "read", read)
    return reads


@pytest.mark.db
async def test_a_second_source_view_of_a_workbook_does_not_download_it_again(
    app: CoreApp,
    client: httpx.AsyncClient,
    income: Recognised,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two panels of the same workbook (the same value, then another line): one S3 read; both
    show the sheet's cells."""
    reads = _count_reads(app, monkeypatch)
    for line in (DOUBTFUL_LINE, DOUBTFUL_LINE, 0):
        panel = await client.get(f"{income.page}/cell?line={line}&column={COLUMN}")
        assert panel.status_code == 200
        assert "Лист «Отчет о финансовых результатах»" in panel.text
    assert reads == [income.file_id]
    cache = app.api.state.sources.cache
    assert isinstance(cache, SourceCache)
    assert (income.file_id, "workbook") in cache


@pytest.mark.db
async def test_a_page_image_is_rendered_once_and_a_deleted_file_is_not_served(
    app: CoreApp,
    client: httpx.AsyncClient,
    sessions: async_sessionmaker[AsyncSession],
    sample_files: dict[str, bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Page 1 of a PDF twice: one S3 read, the same PNG. Once the file is deleted its cached
    page is not shown: the page is a 404."""
    stored, job = await upload_taken(client, sessions, "scan.pdf", sample_files["PDF"])
    await deliver_result(
        app, client, stored, job, for_job(example("result-statement-minimal.json"), job)
    )
    reads = _count_reads(app, monkeypatch)
    url = f"/ui/files/{stored.id}/pages/1.png"
    first, second = await client.get(url), await client.get(url)
    assert first.status_code == second.status_code == 200
    assert first.content == second.content
    assert reads == [stored.id]
    deleted = await client.delete(f"/api/v1/files/{stored.id}")
    assert deleted.status_code in (200, 204), deleted.text
    assert (await client.get(url)).status_code == 404
    assert reads == [stored.id]
