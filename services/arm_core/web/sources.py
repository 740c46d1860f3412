"""Reading a stored file for the source view: a window of cells around a line, a page image.

One `SourceReader` per app (`app.state.sources`). The file is parsed only in a sandboxed worker
(`jobs/file_reads.py`): the core holds the stored bytes (kept in its `SourceCache` under
`"workbook"`, so the next line of the same workbook reads nothing from S3) and the small
results (a window, a PNG of capped pixels), never a parsed workbook or a page bitmap.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import Depends, Request

from services.arm_core.db.models import StoredFile
from services.arm_core.exceptions import FileOverLimits, FilesBusy, Refused, Unavailable
from services.arm_core.jobs.evidence import EVIDENCE_DPI, EvidenceService
from services.arm_core.jobs.uploads import UploadService
from services.arm_core.web import source
from services.arm_core.web.source_cache import SourceCache
from services.documents_io.cells import CellWindow
from services.documents_io.pages import PAGE_SCALE
from services.runtime.storage import StorageError

__all__ = ["EXCEL_TYPES", "SourceReader", "Sources", "evidence_origin"]

EXCEL_TYPES = frozenset({"XLS", "XLSX", "XLSB"})


class SourceReader:
    """The source view's reads of stored files, cached and sandboxed."""

    def __init__(self, cache: SourceCache | None = None) -> None:
        self.cache = cache if cache is not None else SourceCache()

    async def _stored_bytes(self, uploads: UploadService, stored: StoredFile) -> bytes:
        async def read() -> tuple[bytes, int]:
            data = await uploads.read(stored)
            return data, len(data)

        data: bytes = await self.cache.get(stored.id, "workbook", read)
        return data

    async def origin(
        self,
        uploads: UploadService,
        stored: StoredFile,
        ref: str | None,
        value: Mapping[str, object],
    ) -> dict[str, Any]:
        """Where the line came from: an Excel window, or a page image with what was read."""
        if stored.file_type not in EXCEL_TYPES:
            page = source.page_of_ref(ref)
            return {"kind": "page", "page": page, "text": value.get("text")}
        parsed = source.parse_excel_ref(ref)
        if parsed is None:
            return {"kind": "none", "reason": f"у строки нет ссылки на ячейку ({ref})"}
        amount, text = _text(value.get("amount")), _text(value.get("text"))

        async def cut() -> tuple[Any, int]:
            data = await self._stored_bytes(uploads, stored)
            window = await uploads.file_reads.cell_window(data, parsed, amount=amount, text=text)
            return window, _weight(window)

        try:
            window = await self.cache.get(stored.id, ("window", parsed, amount, text), cut)
        except StorageError:
            return {"kind": "none", "reason": "исходный файл сейчас не прочитать"}
        except FilesBusy:
            return {"kind": "none", "reason": "файлы сейчас заняты; откройте строку ещё раз"}
        except FileOverLimits:
            return {"kind": "none", "reason": "исходный файл слишком велик для просмотра"}
        except Refused:
            return {"kind": "none", "reason": "исходный файл не прочитать"}
        if window is None:
            return {"kind": "none", "reason": f"в файле нет листа «{parsed.sheet}»"}
        return {"kind": "excel", "window": window, "ref": ref}

    async def page_png(
        self, uploads: UploadService, stored: StoredFile, page: int, *, sharp: bool = False
    ) -> bytes | None:
        """Page `page` of a scan as a PNG of capped pixels (None when there is no such page);
        `FileOverLimits` / `FilesBusy` / a refusal of its content when it cannot be drawn.

        `sharp`: a PDF page at the evidence crops' dpi (`EVIDENCE_DPI`, 216) instead of the
        screen's 108, for the zoomed page view, whose digits must stay readable when enlarged
        (an image upload is drawn at its own resolution either way)."""
        scale = EVIDENCE_DPI / 72 if sharp else PAGE_SCALE

        async def render() -> tuple[bytes | None, int]:
            data = await uploads.read(stored)
            png = await uploads.file_reads.page_png(data, stored.file_type, page, scale=scale)
            return png, len(png or b"")

        image: bytes | None = await self.cache.get(stored.id, ("page", page, scale), render)
        return image

    async def page_count(self, uploads: UploadService, stored: StoredFile) -> int | None:
        """The pages of a stored scan, for «страниц: 5» beside a running recognition; None
        when it cannot be said (a workbook, a file that does not open) or not now (S3 or the
        file workers busy: asked again at the next refresh). Kept per file, a file that does
        not open too: the list asks every second."""
        if stored.file_type in EXCEL_TYPES:
            return None

        async def count() -> tuple[int | None, int]:
            data = await uploads.read(stored)
            try:
                return await uploads.file_reads.page_count(data, stored.file_type), 16
            except (FileOverLimits, Refused):
                return None, 16

        try:
            pages: int | None = await self.cache.get(stored.id, ("pages",), count)
        except (StorageError, Unavailable):
            return None
        return pages


async def evidence_origin(
    evidence: EvidenceService,
    stored: StoredFile,
    document_id: uuid.UUID,
    job_id: uuid.UUID,
    ref: str | None,
    column: int | None,
    origin: dict[str, Any],
) -> dict[str, Any]:
    """A scan value's origin with its evidence: the crop's URL and the value's box on its page
    (percentages, for the box drawn over the page); `origin` as it was when nothing places
    the value (or the evidence cannot be read now)."""
    if origin.get("kind") != "page" or ref is None or column is None:
        return origin
    try:
        placement = await evidence.placement(stored, job_id, ref, column)
    except Unavailable:
        return origin
    if placement is None:
        return origin
    query = urlencode({"ref": ref, "column_index": column})
    x0, y0, x1, y1 = placement.box
    return {
        **origin,
        "kind": "evidence",
        "page": placement.page,
        "crop_url": f"/api/v1/documents/{document_id}/evidence?{query}",
        "box": {
            "x": round(x0 * 100, 3),
            "y": round(y0 * 100, 3),
            "width": round((x1 - x0) * 100, 3),
            "height": round((y1 - y0) * 100, 3),
        },
    }


def _weight(window: CellWindow | None) -> int:
    """About what a window holds: its texts and a list and string head per cell."""
    if window is None:
        return 64
    return sum(len(cell) + 64 for row in window.rows for cell in row) + 256


def _sources(request: Request) -> SourceReader:
    reader: SourceReader = request.app.state.sources  # set by install_web
    return reader


Sources = Annotated[SourceReader, Depends(_sources)]
"""The app's `SourceReader`, as a route's parameter."""


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None
