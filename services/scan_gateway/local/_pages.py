"""The pages the local recogniser has finished, told while its worker still reads the file.

The recogniser reads every page inside one call of its sandboxed worker, which returns only at
the end. So that the review station can say «2 из 5» without guessing, the worker writes the
pages done and the total into a small file the service named for it (`reporting_to`):
eight bytes at offset 0, rewritten as each page starts; the service reads them
(`pages_reported`) and stores them beside the result (`services.scan_gateway.progress`). A
write that fails is dropped: progress never stops recognition.

When the service splits a PDF's pages among its workers, each worker reads one page and the
service alone writes the channel (`report_pages`), the pages finished so far: workers that
start their pages out of order never move the count back.
"""

from __future__ import annotations

import contextlib
import os
import struct
from collections.abc import Iterator

__all__ = ["page_starting", "pages_reported", "report_pages", "reporting_to"]

_PAGES = struct.Struct("<II")  # pages done, pages in all
_channel: int | None = None
"""In a worker: the open channel of the call running now (None: nobody listens)."""


def page_starting(number: int, total: int) -> None:
    """The engine's one hook: page `number` of `total` is next, so `number - 1` are done."""
    if _channel is None:
        return
    with contextlib.suppress(OSError):  # a channel that cannot be written loses the progress
        os.pwrite(_channel, _PAGES.pack(number - 1, total), 0)


def report_pages(channel: str, done: int, total: int) -> None:
    """`done` of `total` pages finished, written to the channel by the service itself (a
    channel that cannot be written loses the progress, never the recognition)."""
    with contextlib.suppress(OSError):
        handle = os.open(channel, os.O_WRONLY)
        try:
            os.pwrite(handle, _PAGES.pack(done, total), 0)
        finally:
            os.close(handle)


@contextlib.contextmanager
def reporting_to(channel: str) -> Iterator[None]:
    """While inside, `page_starting` writes to the file at `channel` (a channel that does not
    open is no reason not to recognise: nothing is written then)."""
    global _channel
    try:
        _channel = os.open(channel, os.O_WRONLY)
    except OSError:
        _channel = None
    try:
        yield
    finally:
        opened, _channel = _channel, None
        if opened is not None:
            os.close(opened)


def pages_reported(channel: str) -> tuple[int, int] | None:
    """(pages done, pages in all) the worker wrote last; None before it wrote, or for what no
    worker writes (a short or inconsistent read)."""
    try:
        with open(channel, "rb") as file:
            raw = file.read(_PAGES.size)
    except OSError:
        return None
    if len(raw) != _PAGES.size:
        return None
    done, total = _PAGES.unpack(raw)
    return (done, total) if 0 <= done <= total and total > 0 else None
