"""Reading a borrower's file in a sandboxed worker process: a page, a TIFF as PDF, a window of
cells. Each runs through `FileWorkers` (bounded concurrency, memory, CPU-time and wall-clock
limits); the caller's process only sends the bytes and receives a small result.

Raises what the work raises (`DocumentError`), or a `SandboxError`: `SandboxBusy` when every
worker and waiting place is taken, the others when a limit was hit.
"""

from __future__ import annotations

from services.documents_io.cells import CellWindow, ExcelRef, cell_window
from services.documents_io.pages import MAX_PAGE_PIXELS, PAGE_SCALE, page_count, render_page_png
from services.documents_io.tiff import tiff_to_pdf
from services.runtime.file_workers import FileWorkers

__all__ = ["count_pages", "read_cell_window", "render_page", "tiff_as_pdf"]


async def render_page(
    workers: FileWorkers,
    data: bytes,
    file_type: str,
    page: int,
    *,
    max_pixels: int = MAX_PAGE_PIXELS,
    scale: float = PAGE_SCALE,
) -> bytes | None:
    """`pages.render_page_png` in a worker."""
    return await workers.run(_render, data, file_type, page, max_pixels, scale)


async def count_pages(workers: FileWorkers, data: bytes, file_type: str) -> int:
    """`pages.page_count` in a worker."""
    return await workers.run(page_count, data, file_type)


async def tiff_as_pdf(workers: FileWorkers, data: bytes, max_bytes: int | None) -> bytes:
    """`tiff.tiff_to_pdf` in a worker."""
    return await workers.run(tiff_to_pdf, data, max_bytes)


async def read_cell_window(
    workers: FileWorkers, data: bytes, ref: ExcelRef, *, amount: str | None, text: str | None
) -> CellWindow | None:
    """`cells.cell_window` in a worker."""
    return await workers.run(_window, data, ref, amount, text)


def _render(
    data: bytes, file_type: str, page: int, max_pixels: int, scale: float = PAGE_SCALE
) -> bytes | None:
    return render_page_png(data, file_type, page, max_pixels=max_pixels, scale=scale)


def _window(data: bytes, ref: ExcelRef, amount: str | None, text: str | None) -> CellWindow | None:
    return cell_window(data, ref, amount=amount, text=text)
