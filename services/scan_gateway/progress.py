"""A running scan's pages done: `results/{file_id}/{job_id}/progress.json`, beside the result.

`{"pages_done": 2, "pages_total": 5}`, in the result prefix the contract gives scan-gateway (as
the evidence file): no contract field, no envelope. The local recogniser's worker tells its
pages through a channel file (`services.scan_gateway.local.recognize_reporting`), or, when a
PDF's pages are split among the workers, `LocalSource` writes there the pages finished; the
channel is polled while the worker runs and each new count is written once, so at most one
write a page; when the worker has returned, every page is done and that is written last. A
write that fails or hangs is logged and dropped: the job never waits on its progress for long
and never fails by it. arm-core shows the file while the job runs (decision 0037).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import tempfile
from collections.abc import AsyncIterator
from typing import Any, Protocol

from services.runtime.recognizer import Job
from services.scan_gateway.local import pages_reported

__all__ = ["ProgressStore", "ProgressWriter", "progress_key"]

log = logging.getLogger("services.scan_gateway.progress")


def progress_key(job: Job) -> str:
    """The progress file's key, beside the job's result file."""
    return f"results/{job.file_id}/{job.job_id}/progress.json"


class ProgressStore(Protocol):
    """The part of `services.runtime.storage.S3Storage` the writer uses."""

    async def put_json(self, bucket: str, key: str, document: Any) -> None: ...


class ProgressWriter:
    """Writes a job's progress file from its worker's channel (`bucket`, else the request's).

    `interval` is how often the channel is read; `write_seconds` bounds one write.
    """

    def __init__(
        self,
        storage: ProgressStore,
        bucket: str | None = None,
        *,
        interval: float = 0.5,
        write_seconds: float = 2.0,
    ) -> None:
        self._storage = storage
        self._bucket = bucket
        self._interval = interval
        self._write_seconds = write_seconds

    @contextlib.asynccontextmanager
    async def watching(self, job: Job) -> AsyncIterator[str | None]:
        """The channel's path for the worker (None when no channel can be made: the job runs
        without progress), polled until the block ends; a block that ends well has read every
        page, and says so."""
        try:
            handle, channel = tempfile.mkstemp(prefix="scan-pages-")
        except OSError as exc:
            log.warning("job %s: no progress channel: %s", job.job_id, exc)
            yield None
            return
        os.close(handle)
        tried: list[tuple[int, int]] = []
        poller = asyncio.create_task(self._poll(job, channel, tried))
        try:
            yield channel
            await _stopped(poller)
            last = pages_reported(channel) or (tried[-1] if tried else None)
            if last is not None:
                await self._write(job, (last[1], last[1]), tried)
        finally:
            await _stopped(poller)
            with contextlib.suppress(OSError):
                os.unlink(channel)

    async def _poll(self, job: Job, channel: str, tried: list[tuple[int, int]]) -> None:
        while True:
            await asyncio.sleep(self._interval)
            pages = pages_reported(channel)
            if pages is not None:
                await self._write(job, pages, tried)

    async def _write(self, job: Job, pages: tuple[int, int], tried: list[tuple[int, int]]) -> None:
        """Store `pages` unless it was tried last (a failed count is not tried again: at most
        one write a page); a failure is only logged."""
        if tried and tried[-1] == pages:
            return
        tried.append(pages)
        document = {"pages_done": pages[0], "pages_total": pages[1]}
        try:
            async with asyncio.timeout(self._write_seconds):
                await self._storage.put_json(
                    self._bucket or job.bucket, progress_key(job), document
                )
        except Exception as exc:  # progress is a courtesy: nothing of it may fail the job
            log.warning("job %s: progress %s not stored: %r", job.job_id, document, exc)


async def _stopped(task: asyncio.Task[None]) -> None:
    """`task` cancelled and awaited (a task already done is left as it ended)."""
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
