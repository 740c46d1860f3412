"""arm-core's reads of borrowers' files, never in its own process: TIFF → PDF at upload, a
page image and a window of cells for the source view.

Each runs in a sandboxed worker (`services.documents_io.workers` over `FileWorkers`: bounded
concurrency, memory, CPU-time and wall-clock limits), so a page bomb or a huge workbook costs
a worker, not the core's memory, and the event loop and its thread pool — API requests, token
checks — never wait behind one. What goes wrong becomes arm-core's own refusal (no HTTP here;
`rest/problems.py` answers them): not that format → `FileTypeMismatch`, unreadable →
`UnsupportedFileContent`, too large → `FileTooLarge`, a worker over its limits →
`FileOverLimits`, no worker free → `FilesBusy`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from services.arm_core.exceptions import (
    FileOverLimits,
    FilesBusy,
    FileTooLarge,
    FileTypeMismatch,
    UnsupportedFileContent,
)
from services.documents_io.cells import CellWindow, ExcelRef
from services.documents_io.exceptions import (
    DocumentError,
    DocumentTooLarge,
    NotThatFormat,
)
from services.documents_io.pages import MAX_PAGE_PIXELS, PAGE_SCALE
from services.documents_io.workers import (
    count_pages,
    read_cell_window,
    render_page,
    tiff_as_pdf,
)
from services.runtime.exceptions import (
    SandboxBusy,
    SandboxError,
    SandboxMemoryError,
    SandboxTimeout,
)
from services.runtime.file_workers import FileWorkerLimits, FileWorkers

__all__ = ["FileReads"]

T = TypeVar("T")


class FileReads:
    """The core's sandboxed file readers (one per app; closed with it)."""

    def __init__(
        self, limits: FileWorkerLimits | None = None, *, max_page_pixels: int = MAX_PAGE_PIXELS
    ) -> None:
        self.workers = FileWorkers(limits)
        self.max_page_pixels = max_page_pixels

    async def tiff_to_pdf(self, data: bytes, max_bytes: int) -> bytes:
        """The PDF stored for a TIFF scan (`documents_io.tiff`)."""
        return await _refused(tiff_as_pdf(self.workers, data, max_bytes))

    async def page_png(
        self, data: bytes, file_type: str, page: int, *, scale: float = PAGE_SCALE
    ) -> bytes | None:
        """Page `page` of a stored scan as PNG, its pixels capped (None: no such page); a PDF
        page at `scale` (the screen's by default; the evidence crops ask 3, 216 dpi)."""
        return await _refused(
            render_page(
                self.workers, data, file_type, page, max_pixels=self.max_page_pixels, scale=scale
            )
        )

    async def page_count(self, data: bytes, file_type: str) -> int:
        """How many pages a stored scan has (an image is one)."""
        return await _refused(count_pages(self.workers, data, file_type))

    async def cell_window(
        self, data: bytes, ref: ExcelRef, *, amount: str | None, text: str | None
    ) -> CellWindow | None:
        """The cells around `ref` in a stored workbook (None: no such sheet)."""
        return await _refused(read_cell_window(self.workers, data, ref, amount=amount, text=text))

    async def close(self) -> None:
        """Stop the workers."""
        await self.workers.close()


async def _refused(work: Awaitable[T]) -> T:
    with _as_refusals():
        return await work


@contextmanager
def _as_refusals() -> Iterator[None]:
    try:
        yield
    except NotThatFormat as exc:
        raise FileTypeMismatch(exc.detail) from None
    except DocumentTooLarge as exc:
        raise FileTooLarge(exc.detail) from None
    except DocumentError as exc:
        raise UnsupportedFileContent(exc.detail) from None
    except SandboxBusy:
        raise FilesBusy("every file reader is busy; try again in a moment") from None
    except SandboxError as exc:
        raise FileOverLimits(_over_limits(exc)) from None


def _over_limits(exc: SandboxError) -> str:
    if isinstance(exc, SandboxTimeout):
        return "reading the file took longer than allowed"
    if isinstance(exc, SandboxMemoryError):
        return "reading the file needed more memory than allowed"
    return "the worker reading the file failed on it"
