"""The integrator's endpoints: job listing, file filters, the stored content, Location headers,
and deleting a file with everything it left in the database and S3."""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.app import CoreApp
from services.arm_core.db import Document, JobStatus, RecognitionJob, StoredFile
from services.arm_core.settings import CoreSettings
from services.runtime.storage import S3Storage
from tests.support.core import deliver, example, for_job

pytestmark = [pytest.mark.db, pytest.mark.wire]

PROBLEM = "application/problem+json"


async def _upload(client: httpx.AsyncClient, name: str, data: bytes) -> dict[str, Any]:
    resp = await client.post("/api/v1/files", files={"file": (name, data)})
    assert resp.status_code == 201, resp.text
    body: dict[str, Any] = resp.json()
    return body


async def _set_status(
    sessions: async_sessionmaker[AsyncSession], job_id: str, status: JobStatus
) -> None:
    async with sessions() as session, session.begin():
        await session.execute(
            update(RecognitionJob)
            .where(RecognitionJob.id == uuid.UUID(job_id))
            .values(status=status.value)
        )


async def _keys(settings: CoreSettings) -> list[str]:
    async with S3Storage(settings.s3) as s3:
        resp = await s3.client.list_objects_v2(Bucket=settings.s3.s3_bucket)
    return sorted(item["Key"] for item in resp.get("Contents", []))


async def test_jobs_are_listed_newest_first_and_filtered(
    client: httpx.AsyncClient,
    sample_files: dict[str, bytes],
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    """GET /jobs pages all jobs with the total, and filters by status, file and creation time."""
    first = await _upload(client, "a.xlsx", sample_files["XLSX"])
    second = await _upload(client, "b.pdf", sample_files["PDF"])
    again = await client.post(f"/api/v1/files/{first['file_id']}/recognitions")
    await _set_status(sessions, first["job_id"], JobStatus.ERROR)

    everything = (await client.get("/api/v1/jobs")).json()
    assert everything["total"] == 3
    assert everything["items"][0]["job_id"] == again.json()["job_id"]  # newest first
    page = (await client.get("/api/v1/jobs", params={"limit": 2, "offset": 2})).json()
    assert (page["total"], len(page["items"]), page["offset"]) == (3, 1, 2)

    errors = (await client.get("/api/v1/jobs", params={"status": "error"})).json()
    assert [j["job_id"] for j in errors["items"]] == [first["job_id"]]
    of_file = (await client.get("/api/v1/jobs", params={"file_id": first["file_id"]})).json()
    assert {j["attempt"] for j in of_file["items"]} == {1, 2}
    future = (dt.datetime.now(dt.UTC) + dt.timedelta(hours=1)).isoformat()
    assert (await client.get("/api/v1/jobs", params={"created_from": future})).json()["total"] == 0
    assert (await client.get("/api/v1/jobs", params={"created_to": future})).json()["total"] == 3
    bad = await client.get("/api/v1/jobs", params={"status": "finished"})
    assert bad.status_code == 422
    assert bad.json()["type"] == "urn:arm-ka:problem:invalid-request"
    assert second["job_id"] in {j["job_id"] for j in everything["items"]}


async def test_files_are_filtered_by_latest_status_name_and_time(
    client: httpx.AsyncClient,
    sample_files: dict[str, bytes],
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    """GET /files?status= is the status of the file's latest attempt; name= matches a part of
    the name whatever its case; uploaded_from/uploaded_to bound the upload time."""
    balance = await _upload(client, "Balance_2025.xlsx", sample_files["XLSX"])
    scan = await _upload(client, "scan_100%.pdf", sample_files["PDF"])
    await _set_status(sessions, balance["job_id"], JobStatus.DONE)

    def ids(body: dict[str, Any]) -> list[str]:
        return [f["file_id"] for f in body["items"]]

    done = (await client.get("/api/v1/files", params={"status": "done"})).json()
    assert (ids(done), done["total"]) == ([balance["file_id"]], 1)
    # A new attempt makes the file queued again: the filter reads the latest job only.
    await client.post(f"/api/v1/files/{balance['file_id']}/recognitions")
    assert (await client.get("/api/v1/files", params={"status": "done"})).json()["total"] == 0
    queued = (await client.get("/api/v1/files", params={"status": "queued"})).json()
    assert sorted(ids(queued)) == sorted([balance["file_id"], scan["file_id"]])

    by_name = (await client.get("/api/v1/files", params={"name": "balance"})).json()
    assert ids(by_name) == [balance["file_id"]]
    literal = (await client.get("/api/v1/files", params={"name": "100%"})).json()
    assert ids(literal) == [scan["file_id"]]  # % is a character, not a wildcard
    future = (dt.datetime.now(dt.UTC) + dt.timedelta(hours=1)).isoformat()
    assert (await client.get("/api/v1/files", params={"uploaded_from": future})).json()[
        "total"
    ] == 0
    assert (await client.get("/api/v1/files", params={"uploaded_to": future})).json()["total"] == 2


async def test_the_stored_content_is_the_uploaded_bytes(
    client: httpx.AsyncClient, sample_files: dict[str, bytes]
) -> None:
    """GET /files/{id}/content gives the bytes as uploaded, their content type and the
    original (Cyrillic) name; an unknown id is a not-found problem."""
    up = await _upload(client, "Баланс 2025.xlsx", sample_files["XLSX"])
    resp = await client.get(f"/api/v1/files/{up['file_id']}/content")
    assert resp.status_code == 200
    assert resp.content == sample_files["XLSX"]
    assert resp.headers["content-type"] == up["content_type"]
    assert (
        "filename*=UTF-8''%D0%91%D0%B0%D0%BB%D0%B0%D0%BD%D1%81%202025.xlsx"
        in (resp.headers["content-disposition"])
    )
    listed = (await client.get(f"/api/v1/files/{up['file_id']}")).json()
    assert listed["content_url"] == f"/api/v1/files/{up['file_id']}/content"
    missing = await client.get(f"/api/v1/files/{uuid.uuid4()}/content")
    assert (missing.status_code, missing.json()["type"]) == (404, "urn:arm-ka:problem:not-found")


async def test_every_201_has_a_location(
    client: httpx.AsyncClient, sample_files: dict[str, bytes]
) -> None:
    """An upload points at its file, a new recognition at its job, and both can be followed."""
    resp = await client.post("/api/v1/files", files={"file": ("a.xlsx", sample_files["XLSX"])})
    assert (await client.get(resp.headers["location"])).json()["file_id"] == resp.json()["file_id"]
    again = await client.post(f"/api/v1/files/{resp.json()['file_id']}/recognitions")
    assert again.status_code == 201
    job = (await client.get(again.headers["location"])).json()
    assert (job["job_id"], job["attempt"]) == (again.json()["job_id"], 2)


async def test_delete_removes_file_jobs_documents_and_objects(
    app: CoreApp,
    client: httpx.AsyncClient,
    sample_files: dict[str, bytes],
    sessions: async_sessionmaker[AsyncSession],
    api_settings: CoreSettings,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """DELETE /files/{id} is refused (409) while a job is queued; once the jobs have ended it
    removes the file, all its jobs and documents, and its upload, result and raw objects, says
    what it removed, and writes one audit line. Another file is left alone."""
    up = await _upload(client, "отчёт.xlsx", sample_files["XLSX"])
    kept = await _upload(client, "kept.xlsx", sample_files["XLSX"])
    refused = await client.delete(f"/api/v1/files/{up['file_id']}")
    assert refused.status_code == 409
    assert refused.headers["content-type"].startswith(PROBLEM)
    assert refused.json()["type"] == "urn:arm-ka:problem:job-in-flight"

    await _set_status(sessions, up["job_id"], JobStatus.PROCESSING)
    async with sessions() as session:
        job = await session.get(RecognitionJob, uuid.UUID(up["job_id"]))
    assert job is not None
    await deliver(
        app,
        job,
        for_job(example("result-osv.json"), job),
        for_job(example("result-message-done.json"), job),
    )
    raw_key = f"raw/{up['file_id']}/{up['job_id']}/page-1.json"
    async with S3Storage(api_settings.s3) as s3:
        await s3.put_json(api_settings.s3.s3_bucket, raw_key, {"page": 1})
    assert len(await _keys(api_settings)) == 4  # two uploads, a result file, a raw item

    with caplog.at_level(logging.INFO, logger="services.arm_core.audit"):
        resp = await client.delete(f"/api/v1/files/{up['file_id']}")
    assert resp.status_code == 200, resp.text
    assert resp.json() == {
        "file_id": up["file_id"],
        "original_name": "отчёт.xlsx",
        "jobs": 1,
        "documents": 1,
        "objects": 3,
    }
    assert await _keys(api_settings) == [kept["s3"]["key"]]
    async with sessions() as session:
        assert await session.get(StoredFile, uuid.UUID(up["file_id"])) is None
        assert await session.scalar(select(func.count()).select_from(Document)) == 0
        jobs = await session.scalar(select(func.count()).select_from(RecognitionJob))
    assert jobs == 1  # the kept file's
    audit = [r.getMessage() for r in caplog.records if r.name == "services.arm_core.audit"]
    assert len(audit) == 1 and up["file_id"] in audit[0] and "objects=3" in audit[0]
    gone = await client.delete(f"/api/v1/files/{up['file_id']}")
    assert (gone.status_code, gone.json()["type"]) == (404, "urn:arm-ka:problem:not-found")
