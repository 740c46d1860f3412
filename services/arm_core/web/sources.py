"""Reading a stored file for the source view: an Excel window around a line, a page image.

One `SourceReader` per app (`app.state.sources`): what it read is kept in its `SourceCache`,
and at most two workbooks are read at once (each is held whole while read).
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import Depends, Request

from services.arm_core.db.models import StoredFile
from services.arm_core.jobs.uploads import UploadService
from services.arm_core.web import source
from services.arm_core.web.source_cache import SourceCache, workbook_bytes
from services.excel import ExcelError, Workbook
from services.runtime.storage import StorageError

__all__ = ["EXCEL_TYPES", "SourceReader", "Sources"]

EXCEL_TYPES = frozenset({"XLS", "XLSX", "XLSB"})
_WORKBOOK_READS = 2


class SourceReader:
    """The source view's reads of stored files, cached and bounded."""

    def __init__(self, cache: SourceCache | None = None) -> None:
        self.cache = cache if cache is not None else SourceCache()
        self._workbook_reads = asyncio.Semaphore(_WORKBOOK_READS)

    async def origin(
        self, uploads: UploadService, stored: StoredFile, ref: str | None, value: dict[str, Any]
    ) -> dict[str, Any]:
        """Where the line came from: an Excel window, or a page image with what was read."""
        if stored.file_type not in EXCEL_TYPES:
            page = source.page_of_ref(ref)
            return {"kind": "page", "page": page, "text": value.get("text"), "ref": ref}
        parsed = source.parse_excel_ref(ref)
        if parsed is None:
            return {"kind": "none", "reason": f"у строки нет ссылки на ячейку ({ref})"}

        async def read() -> tuple[Workbook, int]:
            async with self._workbook_reads:
                data = await uploads.read(stored)
                return await asyncio.to_thread(_weighed_workbook, data)

        try:
            workbook = await self.cache.get(stored.id, "workbook", read)
        except (StorageError, ExcelError):
            return {"kind": "none", "reason": "исходный файл сейчас не прочитать"}
        window = source.excel_window(
            workbook, parsed, amount=value.get("amount"), text=value.get("text")
        )
        if window is None:
            return {"kind": "none", "reason": f"в файле нет листа «{parsed.sheet}»"}
        return {"kind": "excel", "window": window, "ref": ref}

    async def page_png(self, uploads: UploadService, stored: StoredFile, page: int) -> bytes | None:
        """Page `page` of a scan as a PNG (None when there is no such page)."""

        async def render() -> tuple[bytes | None, int]:
            data = await uploads.read(stored)
            png = await asyncio.to_thread(source.render_page, data, stored.file_type, page)
            return png, len(png or b"")

        image: bytes | None = await self.cache.get(stored.id, ("page", page), render)
        return image


def _weighed_workbook(data: bytes) -> tuple[Workbook, int]:
    workbook = source.read_workbook(data)
    return workbook, workbook_bytes(workbook)


def _sources(request: Request) -> SourceReader:
    reader: SourceReader = request.app.state.sources  # set by install_web
    return reader


Sources = Annotated[SourceReader, Depends(_sources)]
"""The app's `SourceReader`, as a route's parameter."""
