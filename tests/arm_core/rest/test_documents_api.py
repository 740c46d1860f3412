"""Round trip of every contract example: S3 → intake → database → read API, nothing lost.

For 2.0 the normalised document the API returns equals the example's document; for 1.x it
equals the example mapped with the defaults of spec 001 (`map_v1`, whose defaults are proved
one by one in test_results.py and test_mapping.py).
"""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.app import CoreApp
from services.arm_core.db import JobStatus, RecognitionJob
from services.arm_core.jobs.mapping import map_v1
from tests.support.core import deliver, example, for_job

pytestmark = [pytest.mark.db, pytest.mark.wire]

PAIRS = [
    ("result-statement-excel.json", "result-message-done.json"),
    ("result-statement-minimal.json", "result-message-needs-check.json"),
    ("result-osv.json", "result-message-done.json"),
]


async def get_json(client: httpx.AsyncClient, url: str) -> Any:
    resp = await client.get(url)
    assert resp.status_code == 200, resp.text
    return resp.json()


@pytest.mark.parametrize("major", [2, 1])
@pytest.mark.parametrize(("result_name", "envelope_name"), PAIRS)
async def test_every_example_round_trips_through_the_api(
    app: CoreApp,
    client: httpx.AsyncClient,
    make_job: Any,
    result_name: str,
    envelope_name: str,
    major: int,
) -> None:
    """Each example result with its envelope: listed, read and re-emitted with nothing lost."""
    job = await make_job(status=JobStatus.PROCESSING)
    result = for_job(example(result_name, major=major), job)
    envelope = for_job(example(envelope_name, major=major), job)
    await deliver(app, job, result, envelope)

    expected = (
        result["documents"] if major == 2 else [d.body for d in map_v1(result, envelope).documents]
    )
    job_body = await get_json(client, f"/api/v1/jobs/{job.id}")
    assert job_body["status"] in ("done", "needs_check"), job_body
    listing = await get_json(client, job_body["documents_url"])
    assert listing["job_id"] == str(job.id)
    assert [(d["document_type"], d["status"]) for d in listing["items"]] == [
        (d["document_type"], d["status"]) for d in expected
    ]
    assert [d.get("form_variant") for d in expected] == [
        d["form_variant"] for d in listing["items"]
    ]
    for item, document in zip(listing["items"], expected, strict=True):
        detail = await get_json(client, item["url"])
        assert await get_json(client, detail["normalized_url"]) == document
        assert detail["warnings"] == document["warnings"]
        if document["document_type"] == "OSV":
            assert detail["rows_total"] == len(document["rows"])
        else:
            assert [line["line_code_original_value"] for line in detail["lines"]] == [
                line["line_code"] for line in document["lines"]
            ]


async def test_osv_rows_are_paged(app: CoreApp, client: httpx.AsyncClient, make_job: Any) -> None:
    """`/rows?limit=&offset=` returns that slice of the rows, in order, with the total."""
    job = await make_job(status=JobStatus.PROCESSING)
    result = for_job(example("result-osv.json"), job)
    await deliver(app, job, result, for_job(example("result-message-done.json"), job))
    listing = await get_json(client, f"/api/v1/files/{job.file_id}/documents")
    detail = await get_json(client, listing["items"][0]["url"])
    page = await get_json(client, f"{detail['rows_url']}?limit=2&offset=1")
    rows = result["documents"][0]["rows"]
    assert (page["items"], page["total"], page["limit"], page["offset"]) == (rows[1:3], 5, 2, 1)


async def test_v1_document_detail_shows_core_issues_and_producer_checks(
    app: CoreApp, client: httpx.AsyncClient, make_job: Any
) -> None:
    """The detail of a 1.x balance lists the core's MAPPING_WARNING and keeps its own checks."""
    job = await make_job(status=JobStatus.PROCESSING)
    result = for_job(example("result-statement-excel.json", major=1), job)
    envelope = for_job(example("result-message-done.json", major=1), job)
    await deliver(app, job, result, envelope)
    listing = await get_json(client, f"/api/v1/files/{job.file_id}/documents")
    detail = await get_json(client, listing["items"][0]["url"])
    assert detail["source_schema_version"] == "1.2"
    assert detail["producer_checks"] == result["documents"][0]["checks"]
    codes = [(i["source"], i["code"]) for i in detail["issues"]]
    assert ("core", "MAPPING_WARNING") in codes
    assert detail["warnings"] == []


async def test_latest_result_by_default_any_job_by_id(
    app: CoreApp,
    client: httpx.AsyncClient,
    make_job: Any,
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    """Without job_id the newest attempt with a result is listed; job_id picks an older one."""
    first = await make_job(status=JobStatus.PROCESSING)
    await deliver(
        app,
        first,
        for_job(example("result-osv.json"), first),
        for_job(example("result-message-done.json"), first),
    )
    second = RecognitionJob(
        id=uuid.uuid4(),
        file_id=first.file_id,
        pipeline="tabular",
        attempt=2,
        status=JobStatus.PROCESSING.value,
        republish_count=0,
        created_at=first.created_at,
        updated_at=first.created_at,
    )
    async with sessions() as session, session.begin():
        session.add(second)
    third = RecognitionJob(
        id=uuid.uuid4(),
        file_id=first.file_id,
        pipeline="tabular",
        attempt=3,
        status=JobStatus.QUEUED.value,
        republish_count=0,
        created_at=first.created_at,
        updated_at=first.created_at,
    )
    async with sessions() as session, session.begin():
        session.add(third)
    await deliver(
        app,
        second,
        for_job(example("result-statement-excel.json"), second),
        for_job(example("result-message-done.json"), second),
    )
    file_body = await get_json(client, f"/api/v1/files/{first.file_id}")
    latest = await get_json(client, file_body["documents_url"])
    assert latest["job_id"] == str(second.id)
    assert [d["document_type"] for d in latest["items"]] == ["BALANCE", "INCOME", "DISCLOSURE"]
    older = await get_json(client, f"/api/v1/files/{first.file_id}/documents?job_id={first.id}")
    assert [d["document_type"] for d in older["items"]] == ["OSV"]
    queued = await get_json(client, f"/api/v1/files/{first.file_id}/documents?job_id={third.id}")
    assert queued["items"] == []


async def test_document_errors_are_problems(
    app: CoreApp, client: httpx.AsyncClient, make_job: Any
) -> None:
    """Unknown file, document or foreign job: 404; rows of a statement form: 422."""
    job = await make_job(status=JobStatus.PROCESSING)
    other = await make_job(status=JobStatus.PROCESSING)
    await deliver(
        app,
        job,
        for_job(example("result-statement-minimal.json"), job),
        for_job(example("result-message-needs-check.json"), job),
    )
    listing = await get_json(client, f"/api/v1/files/{job.file_id}/documents")
    statuses = [
        (await client.get(url)).status_code
        for url in (
            f"/api/v1/files/{uuid.uuid4()}/documents",
            f"/api/v1/files/{job.file_id}/documents?job_id={other.id}",
            f"/api/v1/documents/{uuid.uuid4()}",
            f"/api/v1/documents/{uuid.uuid4()}/normalized",
            f"{listing['items'][0]['url']}/rows",
        )
    ]
    assert statuses == [404, 404, 404, 404, 422]
    rows = await client.get(f"{listing['items'][0]['url']}/rows")
    assert rows.json()["type"] == "urn:arm-ka:problem:not-an-osv-document"
    missing = await client.get(f"/api/v1/documents/{uuid.uuid4()}")
    assert missing.json()["type"] == "urn:arm-ka:problem:not-found"
