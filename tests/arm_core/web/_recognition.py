"""A file uploaded through the page and recognised for real, for the page tests.

The upload goes through `POST /ui/files` into the test's S3 bucket (moto); the stored bytes are
recognised by the tabular parser's own recogniser in process (a scan by scan-gateway's), and its result file is delivered
to the core's intake as the service would deliver it, so the pages read a real document.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.app import CoreApp
from services.arm_core.db import JobStatus, RecognitionJob, StoredFile
from services.runtime.protocol import ServiceInfo, result_file
from services.runtime.recognizer import Job
from services.runtime.storage import S3Storage
from services.scan_gateway.raw import RawArchive
from services.scan_gateway.recognizer import LocalSource, ScanGatewayRecognizer
from services.tabular_parser.recognizer import recognize_bytes
from tests.support.core import build_envelope, deliver


@dataclass(frozen=True)
class Recognised:
    """A recognised upload: its ids and the first document's page URL."""

    file_id: uuid.UUID
    job_id: uuid.UUID
    document_id: uuid.UUID

    @property
    def page(self) -> str:
        return f"/ui/files/{self.file_id}/documents/{self.document_id}"


async def upload_taken(
    client: httpx.AsyncClient,
    sessions: async_sessionmaker[AsyncSession],
    name: str,
    data: bytes,
) -> tuple[StoredFile, RecognitionJob]:
    """Upload `data` through the page; its job is then taken as if a service had acked it."""
    response = await client.post("/ui/files", files={"file": (name, data)})
    assert response.status_code == 201, response.text
    async with sessions() as session:
        stored = await session.scalar(
            select(StoredFile)
            .where(StoredFile.original_name == name)
            .order_by(StoredFile.created_at.desc())
        )
        assert stored is not None
        job = await session.scalar(
            select(RecognitionJob).where(RecognitionJob.file_id == stored.id)
        )
        assert job is not None
    # The relay is not running here: the job is taken as if the service had acknowledged it.
    async with sessions() as session, session.begin():
        await session.execute(
            update(RecognitionJob)
            .where(RecognitionJob.id == job.id)
            .values(status=JobStatus.PROCESSING.value, started_at=dt.datetime.now(dt.UTC))
        )
    return stored, job


async def deliver_result(
    app: CoreApp,
    client: httpx.AsyncClient,
    stored: StoredFile,
    job: RecognitionJob,
    result: dict[str, Any],
) -> Recognised:
    """Deliver a result file for `job` to the core's intake; the first document's ids."""
    await deliver(app, job, result, build_envelope(job, result["status"]))
    documents = (await client.get(f"/api/v1/files/{stored.id}/documents")).json()["items"]
    assert documents, "the result has no documents"
    return Recognised(stored.id, job.id, uuid.UUID(documents[0]["document_id"]))


def _request(stored: StoredFile, job: RecognitionJob, name: str) -> Job:
    """The job as the recognition service receives it."""
    return Job(
        job_id=job.id,
        file_id=stored.id,
        attempt=job.attempt,
        file_type=stored.file_type,
        original_name=name,
        bucket=stored.s3_bucket,
        key=stored.s3_key,
        reply_deadline=dt.datetime.now(dt.UTC) + dt.timedelta(minutes=5),
    )


class _InlineRunner:
    """The local recogniser's worker function run in this process (no sandbox needed here)."""

    async def run(self, fn: Callable[..., object], /, *args: object) -> object:
        return fn(*args)


async def upload_and_recognize_scan(
    app: CoreApp,
    client: httpx.AsyncClient,
    sessions: async_sessionmaker[AsyncSession],
    storage: S3Storage,
    name: str,
    data: bytes,
) -> Recognised:
    """Upload a scan through the page, recognise it with scan-gateway's local recogniser (its
    raw result set and evidence written to the test's S3, as the service does), deliver it."""
    stored, job = await upload_taken(client, sessions, name, data)
    request = _request(stored, job, name)
    recognizer = ScanGatewayRecognizer(LocalSource(_InlineRunner()), archive=RawArchive(storage))
    recognition = await recognizer.recognize(data, request)
    result: dict[str, Any] = result_file(
        request, recognition, ServiceInfo("scan-gateway", "test"), 1
    )
    return await deliver_result(app, client, stored, job, result)


async def upload_and_recognize(
    app: CoreApp,
    client: httpx.AsyncClient,
    sessions: async_sessionmaker[AsyncSession],
    name: str,
    data: bytes,
) -> Recognised:
    """Upload `data` through the page, recognise it with the real parser, deliver the result."""
    stored, job = await upload_taken(client, sessions, name, data)
    recognition = recognize_bytes(data)
    request = _request(stored, job, name)
    result: dict[str, Any] = result_file(
        request, recognition, ServiceInfo("tabular-parser", "test"), 1
    )
    return await deliver_result(app, client, stored, job, result)
