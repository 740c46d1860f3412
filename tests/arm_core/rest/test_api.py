"""The REST API in memory (httpx ASGITransport) on the test database and a real S3 (moto)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.db import RecognitionJob, StoredFile, create_engine, create_session_factory
from services.arm_core.jobs.uploads import UploadService
from services.arm_core.settings import CoreSettings
from services.runtime.settings import S3Settings
from services.runtime.storage import S3Storage

pytestmark = [pytest.mark.db, pytest.mark.wire]

PROBLEM = "application/problem+json"


@pytest.fixture
def api_settings(
    core_settings: Callable[..., CoreSettings], s3_settings: S3Settings, bucket: str
) -> CoreSettings:
    """The API on the test's bucket with a 64 KiB upload cap (the conftest's `app` uses it)."""
    s3 = {**s3_settings.model_dump(), "s3_bucket": bucket}
    return core_settings(s3=s3, upload_max_bytes=64 * 1024)


async def objects(settings: CoreSettings) -> list[str]:
    async with S3Storage(settings.s3) as s3:
        resp = await s3.client.list_objects_v2(Bucket=settings.s3.s3_bucket)
    return [item["Key"] for item in resp.get("Contents", [])]


async def row_counts(sessions: async_sessionmaker[AsyncSession]) -> tuple[int, int]:
    async with sessions() as session:
        files = await session.scalar(select(func.count()).select_from(StoredFile))
        jobs = await session.scalar(select(func.count()).select_from(RecognitionJob))
    return files or 0, jobs or 0


async def test_upload_stores_the_file_and_queues_a_job(
    client: httpx.AsyncClient,
    sample_files: dict[str, bytes],
    api_settings: CoreSettings,
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    """POST /api/v1/files → 201; the object lies under uploads/{file_id}/ with a key the core
    built, and the file and its queued job are in the database."""
    data = sample_files["XLSX"]
    resp = await client.post("/api/v1/files", files={"file": ("Баланс 2025.xlsx", data)})
    assert resp.status_code == 201, resp.text
    body = resp.json()
    assert (body["status"], body["pipeline"], body["file_type"], body["attempt"]) == (
        "queued",
        "tabular",
        "XLSX",
        1,
    )
    assert body["original_name"] == "Баланс 2025.xlsx"
    assert body["s3"]["key"] == f"uploads/{body['file_id']}/source.xlsx"
    assert await objects(api_settings) == [body["s3"]["key"]]
    async with S3Storage(api_settings.s3) as s3:
        assert await s3.get_bytes(api_settings.s3.s3_bucket, body["s3"]["key"], 10**6) == data
    assert await row_counts(sessions) == (1, 1)


async def test_pdf_upload_goes_to_the_image_pipeline(
    client: httpx.AsyncClient, sample_files: dict[str, bytes]
) -> None:
    """A PDF is queued for the image pipeline."""
    resp = await client.post("/api/v1/files", files={"file": ("scan.pdf", sample_files["PDF"])})
    assert resp.status_code == 201
    assert (resp.json()["pipeline"], resp.json()["file_type"]) == ("image", "PDF")


@pytest.mark.parametrize(
    ("name", "kind", "status", "slug"),
    [
        ("balance.xlsx", "PDF", 422, "file-type-mismatch"),  # lying extension
        ("balance.xlsx", "EMPTY", 400, "empty-file"),  # empty body
        ("balance.xlsx", "HUGE", 413, "file-too-large"),  # over UPLOAD_MAX_BYTES
        ("dir/..", "XLSX", 400, "invalid-file-name"),  # a path with no base name
        ("dir\\", "XLSX", 400, "invalid-file-name"),
        ("balance.txt", "XLSX", 415, "unsupported-file-type"),  # unsupported type
        ("balance.png", "XLSB", 415, "unsupported-file-content"),
    ],
)
async def test_refused_uploads_leave_nothing_behind(
    client: httpx.AsyncClient,
    sample_files: dict[str, bytes],
    api_settings: CoreSettings,
    sessions: async_sessionmaker[AsyncSession],
    name: str,
    kind: str,
    status: int,
    slug: str,
) -> None:
    """Each refused upload gets its 4xx as problem details of its own type, and no row and no
    object remain."""
    data = {
        "EMPTY": b"",
        "HUGE": b"\x89PNG\r\n\x1a\n" + b"0" * (128 * 1024),
        "XLSB": b"not an image at all",
    }.get(kind, sample_files.get(kind, b""))
    resp = await client.post("/api/v1/files", files={"file": (name, data)})
    assert resp.status_code == status, resp.text
    assert resp.headers["content-type"].startswith(PROBLEM)
    problem = resp.json()
    assert problem["status"] == status and problem["title"] and problem["detail"]
    assert problem["type"] == f"urn:arm-ka:problem:{slug}"
    assert await row_counts(sessions) == (0, 0)
    assert await objects(api_settings) == []


@pytest.mark.parametrize(
    "name",
    [
        "C:\\temp\\balance.xlsx",
        "..\\..\\balance.xlsx",
        "../../etc/balance.xlsx",
        "dir/balance.xlsx",
        "C:\\Users\\a\\balance.xlsx",
    ],
)
async def test_a_path_keeps_only_its_base_name(
    client: httpx.AsyncClient, sample_files: dict[str, bytes], name: str
) -> None:
    """Old clients send paths (Windows or relative): the stored name is the base name, the key
    is still the core's own."""
    resp = await client.post("/api/v1/files", files={"file": (name, sample_files["XLSX"])})
    assert resp.status_code == 201, resp.text
    body = resp.json()
    assert body["original_name"] == "balance.xlsx"
    assert body["s3"]["key"] == f"uploads/{body['file_id']}/source.xlsx"
    assert resp.headers["location"] == f"/api/v1/files/{body['file_id']}"


async def test_missing_file_field_is_a_problem(client: httpx.AsyncClient) -> None:
    """A form without the `file` part is 422 problem details."""
    resp = await client.post("/api/v1/files", data={"other": "x"})
    assert resp.status_code == 422
    assert resp.headers["content-type"].startswith(PROBLEM)


async def test_failed_database_commit_removes_the_object(
    api_settings: CoreSettings, sample_files: dict[str, bytes], tmp_path: Any
) -> None:
    """When the commit fails after the S3 put, the object is deleted again (503)."""
    from services.arm_core.exceptions import Unavailable

    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'no-tables.sqlite3'}")
    try:
        async with S3Storage(api_settings.s3) as s3:
            service = UploadService(
                create_session_factory(engine),
                s3,
                bucket=api_settings.s3.s3_bucket,
                max_bytes=10**6,
            )
            with pytest.raises(Unavailable):
                await service.accept("balance.xlsx", sample_files["XLSX"])
    finally:
        await engine.dispose()
    assert await objects(api_settings) == []


async def test_file_and_job_can_be_read_back(
    client: httpx.AsyncClient, sample_files: dict[str, bytes]
) -> None:
    """GET /files/{id} shows the file with its jobs; GET /jobs/{id} shows the job."""
    up = (await client.post("/api/v1/files", files={"file": ("a.png", sample_files["PNG"])})).json()
    file = (await client.get(f"/api/v1/files/{up['file_id']}")).json()
    assert file["file_id"] == up["file_id"] and file["sha256"] == up["sha256"]
    assert [j["job_id"] for j in file["jobs"]] == [up["job_id"]]
    job = (await client.get(f"/api/v1/jobs/{up['job_id']}")).json()
    assert (job["job_id"], job["file_id"], job["status"], job["attempt"]) == (
        up["job_id"],
        up["file_id"],
        "queued",
        1,
    )
    for key in (
        "error_code",
        "request_msg_id",
        "result_msg_id",
        "metrics",
        "service_name",
        "service_version",
        "group_schema",
        "created_at",
        "updated_at",
    ):
        assert key in job


async def test_a_new_recognition_gets_the_next_attempt(
    client: httpx.AsyncClient, sample_files: dict[str, bytes]
) -> None:
    """POST /files/{id}/recognitions → 201 with attempt = max + 1, queued."""
    up = (await client.post("/api/v1/files", files={"file": ("a.xls", sample_files["XLS"])})).json()
    second = await client.post(f"/api/v1/files/{up['file_id']}/recognitions")
    third = await client.post(f"/api/v1/files/{up['file_id']}/recognitions")
    assert second.status_code == third.status_code == 201
    assert (second.json()["attempt"], third.json()["attempt"]) == (2, 3)
    assert third.json()["status"] == "queued" and third.json()["pipeline"] == "tabular"
    file = (await client.get(f"/api/v1/files/{up['file_id']}")).json()
    assert [j["attempt"] for j in file["jobs"]] == [1, 2, 3]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/v1/files/{id}"),
        ("GET", "/api/v1/jobs/{id}"),
        ("POST", "/api/v1/files/{id}/recognitions"),
    ],
)
async def test_unknown_ids_are_404_problems(
    client: httpx.AsyncClient, method: str, path: str
) -> None:
    """An unknown file or job is 404 application/problem+json."""
    resp = await client.request(method, path.format(id=uuid.uuid4()))
    assert resp.status_code == 404
    assert resp.headers["content-type"].startswith(PROBLEM)
    assert resp.json()["status"] == 404


async def test_files_are_paged_newest_first(
    client: httpx.AsyncClient, sample_files: dict[str, bytes]
) -> None:
    """GET /files?limit=&offset= pages through all files with the total."""
    ids = []
    for i in range(3):
        resp = await client.post("/api/v1/files", files={"file": (f"{i}.jpg", sample_files["JPG"])})
        ids.append(resp.json()["file_id"])
    first = (await client.get("/api/v1/files", params={"limit": 2, "offset": 0})).json()
    rest = (await client.get("/api/v1/files", params={"limit": 2, "offset": 2})).json()
    assert first["total"] == rest["total"] == 3
    assert len(first["items"]) == 2 and len(rest["items"]) == 1
    seen = [f["file_id"] for f in first["items"] + rest["items"]]
    assert sorted(seen) == sorted(ids)
    bad = await client.get("/api/v1/files", params={"limit": 0})
    assert bad.status_code == 422


async def test_healthcheck_lists_all_three_subjects(
    client: httpx.AsyncClient, api_settings: CoreSettings
) -> None:
    """/healthcheck answers with the three subjects even with NATS not connected."""
    body = (await client.get("/healthcheck")).json()
    assert body["service"] == "arm-core"
    assert body["subjects"] == {
        "tabular_request": api_settings.nats.nats_tabular_request_subject,
        "image_request": api_settings.nats.nats_image_request_subject,
        "result": api_settings.nats.nats_result_subject,
    }


async def test_openapi_describes_the_api(client: httpx.AsyncClient) -> None:
    """The OpenAPI document is generated and lists the routes."""
    spec = (await client.get("/openapi.json")).json()
    for path in (
        "/api/v1/files",
        "/api/v1/files/{file_id}",
        "/api/v1/jobs/{job_id}",
        "/api/v1/files/{file_id}/recognitions",
        "/healthcheck",
    ):
        assert path in spec["paths"]
