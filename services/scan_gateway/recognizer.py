"""The scan-gateway recogniser: a result-set source, the raw archive, the mapper, then the
evidence of each value (where the source placed it on its page) beside the result.

A source is either the scanning system over HTTP (`HttpSource`) or the built-in local
recogniser (`LocalSource`, text-layer PDFs directly, raster pages and images through
Tesseract, in a worker process). Whatever the source, the exchange is bounded by the job's
reply_deadline: running past it ends the job in TIMEOUT; a deadline already passed before the
file is sent is the shared protocol's reply_deadline rule (TIMEOUT too, for both services).
`build_recognizer` is the one place the recogniser is built from settings, for the service app
and for a local parse alike.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import time
from typing import TYPE_CHECKING, Any, Protocol

from services.runtime.recognizer import ErrorCode, Job, Recognition, RecognitionFailed
from services.runtime.sandboxed import SandboxRunner, run_recognition
from services.scan_gateway.client import ScanClient, ScanClientSettings
from services.scan_gateway.evidence import build_evidence
from services.scan_gateway.exceptions import (
    FileUnreadable,
    ItemInvalid,
    OcrUnavailable,
    ScanDeadlineExceeded,
    ScanSystemError,
)
from services.scan_gateway.mapper import FileWarning, map_items, warning_json_failed
from services.scan_gateway.progress import ProgressWriter
from services.scan_gateway.raw import RawArchive, RawStore
from services.scan_gateway.resultset import Item, RawResultSet, parse_item

if TYPE_CHECKING:  # the worker process imports this module: it needs no settings
    from services.runtime.worker_pool import BuiltRecognizer
    from services.scan_gateway.settings import ScanGatewaySettings

__all__ = [
    "HttpSource",
    "LocalSource",
    "ResultSetSource",
    "ScanGatewayRecognizer",
    "build_recognizer",
    "seconds_left",
]

log = logging.getLogger("services.scan_gateway")


def seconds_left(job: Job, now: dt.datetime | None = None) -> float:
    """Seconds until the job's reply_deadline (negative when it has passed)."""
    now = now or dt.datetime.now(dt.UTC)
    return (job.reply_deadline - now).total_seconds()


class ResultSetSource(Protocol):
    """Where result sets come from; `deadline` is a `time.monotonic()` instant."""

    async def fetch(self, data: bytes, job: Job, *, deadline: float) -> RawResultSet: ...


class HttpSource:
    """The deployed scanning system through `ScanClient`."""

    def __init__(self, client: ScanClient) -> None:
        self._client = client

    async def fetch(self, data: bytes, job: Job, *, deadline: float) -> RawResultSet:
        return await self._client.fetch(data, job, deadline=deadline)


class LocalSource:
    """The local recogniser, run in worker processes (OCR must not block the event loop);
    with a `progress` writer, the pages it has read are stored while it runs.

    `workers` is how many pages of one PDF may be recognised at once (the sandbox's worker
    count, `build_recognizer`): above one, a PDF's pages go to the workers one page a task and
    their items are joined in page order — the same items as one call reading the whole file.
    Each task keeps every sandbox limit; the first task that fails fails the file, as one call
    would, and the others are stopped.
    """

    def __init__(
        self,
        sandbox: SandboxRunner,
        *,
        tesseract_cmd: str = "tesseract",
        dpi: int = 300,
        progress: ProgressWriter | None = None,
        workers: int = 1,
    ):
        self._sandbox = sandbox
        self._tesseract_cmd = tesseract_cmd
        self._dpi = dpi
        self._progress = progress
        self._workers = workers

    async def fetch(self, data: bytes, job: Job, *, deadline: float) -> RawResultSet:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ScanDeadlineExceeded("the reply deadline passed before recognition started")
        watching = self._progress.watching(job) if self._progress else contextlib.nullcontext()
        async with watching as channel:
            try:
                async with asyncio.timeout(remaining):
                    if self._workers > 1 and job.file_type == "PDF":
                        items = await self._by_page(data, channel)
                    else:
                        items = await self._whole(data, job.file_type, channel)
            except TimeoutError:
                msg = f"local recognition did not finish within the reply deadline ({remaining:.1f} s)"
                raise ScanDeadlineExceeded(msg) from None
        if not isinstance(items, dict):
            msg = f"the local recogniser returned {type(items).__name__}"
            raise TypeError(msg)
        return RawResultSet(items=items, source="local")

    async def _whole(self, data: bytes, file_type: str, channel: str | None) -> Any:
        """The whole file in one worker call (which tells the channel each page it starts)."""
        from services.scan_gateway.local import recognize_reporting, recognize_to_items

        fn, args = (
            (recognize_to_items, ()) if channel is None else (recognize_reporting, (channel,))
        )
        return await run_recognition(
            self._sandbox,
            fn,
            *args,
            data,
            file_type,
            self._tesseract_cmd,
            self._dpi,
            what="the file",
        )

    async def _by_page(self, data: bytes, channel: str | None) -> dict[str, bytes]:
        """A PDF's pages as one task each, at most `workers` at a time (the sandbox queues the
        rest); the channel hears the pages finished, which only go up."""
        from services.scan_gateway.local import pdf_pages, recognize_pdf_pages, report_pages

        total = int(await run_recognition(self._sandbox, pdf_pages, data, what="the file"))
        finished = 0
        if channel is not None:
            report_pages(channel, finished, total)

        async def page(number: int) -> Any:
            nonlocal finished
            items = await run_recognition(
                self._sandbox,
                recognize_pdf_pages,
                data,
                number,
                number,
                self._tesseract_cmd,
                self._dpi,
                what="the file",
            )
            finished += 1
            if channel is not None:
                report_pages(channel, finished, total)
            return items

        try:
            async with asyncio.TaskGroup() as group:
                tasks = [group.create_task(page(n)) for n in range(1, total + 1)]
        except BaseExceptionGroup as failed:  # the first failure, as one call would raise it
            raise failed.exceptions[0] from None
        joined: dict[str, bytes] = {}
        for task in tasks:
            found = task.result()
            if not isinstance(found, dict):
                msg = f"the local recogniser returned {type(found).__name__}"
                raise TypeError(msg)
            joined.update(found)
        return joined


def build_recognizer(
    settings: ScanGatewaySettings,
    *,
    archive_store: RawStore | None = None,
    workers: int | None = None,
) -> BuiltRecognizer:
    """The service's recogniser: the scanning system when OPENBAO__SCAN__SCAN_URL is set, else
    the local recogniser over its worker pool (`settings.pool`).

    `archive_store` receives the raw result sets and the local recogniser's progress (the
    service's S3; none for a local parse, which writes nothing anywhere). `workers` sizes the pool; by default OCR_WORKERS capped by
    JOBS_IN_FLIGHT.
    """
    from services.runtime.sandbox import Sandbox
    from services.runtime.worker_pool import BuiltRecognizer, pool_for

    source: ResultSetSource
    resources: tuple[ScanClient, ...] | tuple[Sandbox, ...]
    if settings.scan.scan_url:
        client = ScanClient(
            ScanClientSettings(
                base_url=settings.scan.scan_url,
                token=settings.scan.scan_token,
                call_timeout_seconds=settings.scan_call_timeout_seconds,
                retries=settings.scan_retries,
                backoff_seconds=settings.scan_backoff_seconds,
                poll_interval_seconds=settings.scan_poll_interval_seconds,
            )
        )
        source, resources = HttpSource(client), (client,)
    else:
        sandbox = pool_for(settings.pool, settings.jobs_in_flight, workers)
        progress = (
            ProgressWriter(archive_store, settings.s3.s3_results_bucket)
            if archive_store is not None
            else None
        )
        source = LocalSource(
            sandbox,
            tesseract_cmd=settings.tesseract_cmd,
            dpi=settings.ocr_dpi,
            progress=progress,
            workers=sandbox.settings.workers,
        )
        resources = (sandbox,)
    archive = (
        RawArchive(archive_store, settings.s3.s3_results_bucket)
        if archive_store is not None
        else None
    )
    recognizer = ScanGatewayRecognizer(
        source, archive=archive, max_seconds=settings.scan_max_seconds
    )
    return BuiltRecognizer(recognizer, resources)


class ScanGatewayRecognizer:
    """`Recognizer` of scan-gateway: fetch (bounded by the deadline), archive, map."""

    def __init__(
        self,
        source: ResultSetSource,
        *,
        archive: RawArchive | None = None,
        max_seconds: float = 600.0,
    ) -> None:
        self._source = source
        self._archive = archive
        self._max_seconds = max_seconds

    async def recognize(self, data: bytes, job: Job) -> Recognition:
        budget = min(seconds_left(job), self._max_seconds)
        if budget <= 0:
            raise RecognitionFailed(
                ErrorCode.TIMEOUT, "reply_deadline passed before the file was sent for recognition"
            )
        deadline = time.monotonic() + budget
        raw = await self._fetch(data, job, deadline)
        raw_key = await self._archive.store(job, raw) if self._archive is not None else None
        items: list[Item] = []
        warnings: list[FileWarning] = []
        for name in sorted(raw.items):
            try:
                items.append(parse_item(name, raw.items[name]))
            except ItemInvalid as exc:
                log.warning("job %s: %s", job.job_id, exc)
                warnings.append(warning_json_failed(name, exc.reason))
        for name in raw.missing:
            warnings.append(warning_json_failed(name, "элемент отсутствует в результате"))
        recognition = map_items(items, warnings, raw_key)
        if self._archive is not None:
            evidence = build_evidence(items, recognition.documents)
            if evidence["lines"]:
                await self._archive.store_evidence(job, evidence)
        return recognition

    async def _fetch(self, data: bytes, job: Job, deadline: float) -> RawResultSet:
        try:
            return await self._source.fetch(data, job, deadline=deadline)
        except ScanDeadlineExceeded as exc:
            raise RecognitionFailed(ErrorCode.TIMEOUT, exc.message) from None
        except ScanSystemError as exc:
            raise RecognitionFailed(ErrorCode.RECOGNITION_FAILED, exc.message) from None
        except OcrUnavailable as exc:
            raise RecognitionFailed(ErrorCode.RECOGNITION_FAILED, exc.what) from None
        except FileUnreadable as exc:
            raise RecognitionFailed(ErrorCode.UNREADABLE, exc.reason) from None
