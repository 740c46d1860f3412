"""A running scan's pages done on the review station (issue #25 item 9, decision 0037): the
files list, the file page and the job's API view read what scan-gateway's local recogniser
stores beside the result (`progress.json`) while the scan is processed; a progress file that
says nothing sensible is not shown, and a finished job shows none."""

from __future__ import annotations

import datetime as dt
import re
import shutil
from typing import Any

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.app import CoreApp
from services.runtime.protocol import ServiceInfo, result_file
from services.runtime.recognizer import Job
from services.runtime.sandbox import Sandbox, SandboxSettings
from services.runtime.storage import S3Storage
from services.scan_gateway.progress import ProgressWriter, progress_key
from services.scan_gateway.recognizer import LocalSource, ScanGatewayRecognizer
from tests.arm_core.web._recognition import deliver_result, upload_taken
from tests.scan_gateway._forms import BALANCE, INCOME, font_path, render_pdf, render_scanned_pdf

pytestmark = [
    pytest.mark.db,
    pytest.mark.skipif(font_path() is None, reason="no DejaVuSans font to render with"),
]

_SHOWN = re.compile(r'data-pages="(\d+)" data-pages-done="(\d+)">· готово страниц: (\d+) из (\d+)<')


class _Watched:
    """The test's S3 as scan-gateway's progress store; after each write, what the files list,
    the file page and the job's API view show."""

    def __init__(self, storage: S3Storage, client: httpx.AsyncClient, file_id: Any, job_id: Any):
        self._storage = storage
        self._client = client
        self._file_id = file_id
        self._job_id = job_id
        self.seen: list[tuple[Any, list[tuple[str, ...]], list[tuple[str, ...]], Any]] = []

    async def put_json(self, bucket: str, key: str, document: Any) -> None:
        await self._storage.put_json(bucket, key, document)
        table = (await self._client.get("/ui/files/table")).text
        page = (await self._client.get(f"/ui/files/{self._file_id}")).text
        job = (await self._client.get(f"/api/v1/jobs/{self._job_id}")).json()
        self.seen.append((document, _SHOWN.findall(table), _SHOWN.findall(page), job["progress"]))


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("tesseract") is None, reason="no tesseract")
async def test_a_scan_shows_its_pages_done_while_it_is_recognised(
    app: CoreApp,
    client: httpx.AsyncClient,
    sessions: async_sessionmaker[AsyncSession],
    storage: S3Storage,
) -> None:
    """Three scanned pages recognised by scan-gateway's local recogniser in its sandbox, its
    progress written to the core's S3: every write is shown at once by the list, the file page
    and `GET /jobs/{id}` — «готово страниц: n из 3», never going back, some before the end — and
    ends at 3 из 3; once the result is delivered no pages done are shown."""
    data = render_scanned_pdf((BALANCE, INCOME, BALANCE), dpi=150)
    stored, job = await upload_taken(client, sessions, "scanned.pdf", data)
    before = (await client.get("/ui/files/table")).text
    assert 'data-pages="3">· страниц: 3</span>' in before  # no pages done known yet
    assert (await client.get(f"/api/v1/jobs/{job.id}")).json()["progress"] is None
    watched = _Watched(storage, client, stored.id, job.id)
    request = Job(
        job_id=job.id,
        file_id=stored.id,
        attempt=job.attempt,
        file_type="PDF",
        original_name="scanned.pdf",
        bucket=stored.s3_bucket,
        key=stored.s3_key,
        reply_deadline=dt.datetime.now(dt.UTC) + dt.timedelta(minutes=5),
    )
    async with Sandbox(SandboxSettings(workers=1, timeout_seconds=300)) as sandbox:
        source = LocalSource(
            sandbox, dpi=150, progress=ProgressWriter(watched, interval=0.05, write_seconds=60)
        )
        recognition = await ScanGatewayRecognizer(source).recognize(data, request)

    assert watched.seen, "no progress was written"
    done = []
    for document, table, page, api in watched.seen:
        shown = (str(document["pages_done"]), str(document["pages_total"]))
        assert table == [("3", shown[0], *shown)], (document, table)
        assert page == [("3", shown[0], *shown)], (document, page)
        assert api == document
        done.append(document["pages_done"])
    assert watched.seen[-1][0] == {"pages_done": 3, "pages_total": 3}
    assert done == sorted(set(done)) and done[0] < 3, done

    result: dict[str, Any] = result_file(
        request, recognition, ServiceInfo("scan-gateway", "test"), 1
    )
    await deliver_result(app, client, stored, job, result)
    after = (await client.get("/ui/files/table")).text
    assert "готово страниц" not in after and "распознаётся…" not in after
    assert (await client.get(f"/api/v1/jobs/{job.id}")).json()["progress"] is None


@pytest.mark.parametrize(
    "stored_progress",
    [
        b'{"pages_done": 4, "pages_total": 3}',
        b'{"pages_done": "2", "pages_total": 3}',
        b'{"pages_done": 0, "pages_total": 0}',
        b"[2, 3]",
        b"{not json",
    ],
)
async def test_a_progress_file_that_says_nothing_sensible_is_not_shown(
    client: httpx.AsyncClient,
    sessions: async_sessionmaker[AsyncSession],
    storage: S3Storage,
    stored_progress: bytes,
) -> None:
    """More pages done than in all, a count as text, no pages, no object, no JSON: the page
    keeps the file's own count «страниц: 2» and the API no progress — nothing guessed."""
    stored, job = await upload_taken(client, sessions, "two.pdf", render_pdf((BALANCE, INCOME)))
    request_key = progress_key(
        Job(
            job_id=job.id,
            file_id=stored.id,
            attempt=1,
            file_type="PDF",
            original_name="two.pdf",
            bucket=stored.s3_bucket,
            key=stored.s3_key,
            reply_deadline=dt.datetime.now(dt.UTC),
        )
    )
    await storage.put_bytes(stored.s3_bucket, request_key, stored_progress)
    table = (await client.get("/ui/files/table")).text
    assert 'data-pages="2">· страниц: 2</span>' in table and "готово страниц" not in table
    assert (await client.get(f"/api/v1/jobs/{job.id}")).json()["progress"] is None
