"""`GET /api/v1/files` answers "what needs me": each file's latest documents at a glance (the
corrected figures, the review state), the attention filter and order, in a bounded number of
queries whatever the page holds."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from sqlalchemy import delete, event, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.app import CoreApp
from services.arm_core.db import DocumentGlance, JobStatus, RecognitionJob
from services.devstack._samples import ORG_INN, ORG_NAME, income_sheet
from tests.arm_core.web._doubtful import RIGHT_AMOUNT, doubtful_income_xlsx
from tests.arm_core.web._recognition import Recognised, upload_and_recognize, upload_taken
from tests.builders import write_xlsx
from tests.e2e._files import osv_xlsx

pytestmark = [pytest.mark.db, pytest.mark.wire]

DOUBTFUL_LINE, COLUMN = 1, 3


async def _files(client: httpx.AsyncClient, **params: Any) -> list[dict[str, Any]]:
    response = await client.get("/api/v1/files", params=params)
    assert response.status_code == 200, response.text
    items: list[dict[str, Any]] = response.json()["items"]
    return items


def _item(items: list[dict[str, Any]], recognised: Recognised) -> dict[str, Any]:
    return next(i for i in items if i["file_id"] == str(recognised.file_id))


@contextmanager
def _counting(app: CoreApp) -> Iterator[list[str]]:
    """The SQL statements the app's engine runs inside the block."""
    statements: list[str] = []

    def count(*args: Any) -> None:
        statements.append(str(args[2]))

    engine = app.core.engine.sync_engine
    event.listen(engine, "before_cursor_execute", count)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", count)


async def test_each_file_carries_its_documents_at_a_glance_and_sorts_by_attention(
    app: CoreApp, client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession]
) -> None:
    """A doubtful ОФР needs attention (1 doubt, its relation failing); a clean one does not; a
    failed recognition does too. `needs_attention=true` lists those two, `order=attention` puts
    them first though the clean file is newer. Corrected, it is in progress with no doubt left;
    marked reviewed, it says by whom and when, and leaves the attention list."""
    doubtful = await upload_and_recognize(
        app, client, sessions, "doubtful.xlsx", doubtful_income_xlsx()
    )
    _failed_file, failed_job = await upload_taken(
        client, sessions, "failed.xlsx", write_xlsx([income_sheet()])
    )
    async with sessions() as session, session.begin():
        await session.execute(
            update(RecognitionJob)
            .where(RecognitionJob.id == failed_job.id)
            .values(status=JobStatus.ERROR.value)
        )
    osv = await upload_and_recognize(app, client, sessions, "osv.xlsx", osv_xlsx())
    clean = await upload_and_recognize(
        app, client, sessions, "clean.xlsx", write_xlsx([income_sheet()])
    )

    items = await _files(client)
    [doc] = _item(items, doubtful)["documents"]
    assert doc["id"] == str(doubtful.document_id)
    assert (doc["document_type"], doc["form_variant"]) == ("INCOME", "full")
    assert (doc["organization_name"], doc["inn"], doc["report_date"]) == (
        ORG_NAME,
        ORG_INN,
        "2024-12-31",
    )
    assert (doc["status"], doc["doubts"], doc["needs_attention"]) == ("needs_check", 1, True)
    assert doc["failed_checks"] >= 1
    assert doc["review"] == {"state": "not_reviewed", "by": None, "at": None}
    [fine] = _item(items, clean)["documents"]
    assert (fine["status"], fine["doubts"], fine["failed_checks"]) == ("done", 0, 0)
    assert fine["needs_attention"] is False
    failed = next(i for i in items if i["original_name"] == "failed.xlsx")
    assert failed["documents"] == []
    [trial] = _item(items, osv)["documents"]
    assert (trial["document_type"], trial["form_variant"]) == ("OSV", None)
    assert (trial["doubts"], trial["failed_checks"], trial["status"]) == (0, 0, "done")
    assert trial["needs_attention"] is False

    attention = await _files(client, needs_attention="true")
    assert {i["original_name"] for i in attention} == {"doubtful.xlsx", "failed.xlsx"}
    calm = await _files(client, needs_attention="false")
    assert [i["original_name"] for i in calm] == ["clean.xlsx", "osv.xlsx"]
    assert next(i["original_name"] for i in await _files(client)) == "clean.xlsx"  # newest
    ordered = [i["original_name"] for i in await _files(client, order="attention")]
    assert ordered[2:] == ["clean.xlsx", "osv.xlsx"]
    assert set(ordered[:2]) == {"doubtful.xlsx", "failed.xlsx"}

    url = f"/api/v1/documents/{doubtful.document_id}/corrections"
    body = {"kind": "value", "line": DOUBTFUL_LINE, "column_index": COLUMN, "value": RIGHT_AMOUNT}
    assert (await client.post(url, json=body)).status_code == 201
    [doc] = _item(await _files(client), doubtful)["documents"]
    assert (doc["status"], doc["doubts"], doc["failed_checks"]) == ("done", 0, 0)
    assert doc["review"]["state"] == "in_progress"
    assert doc["needs_attention"] is False  # nothing left to look at, even before the mark

    assert (await client.post(url, json={"kind": "reviewed"})).status_code == 201
    [doc] = _item(await _files(client, needs_attention="false"), doubtful)["documents"]
    assert doc["review"]["state"] == "reviewed" and doc["review"]["by"] == "local"
    assert doc["review"]["at"] is not None
    single = (await client.get(f"/api/v1/files/{doubtful.file_id}")).json()
    assert single["documents"][0]["review"]["state"] == "reviewed"
    attention = await _files(client, needs_attention="true")
    assert [i["original_name"] for i in attention] == ["failed.xlsx"]


async def test_a_reviewed_document_with_doubts_left_needs_no_attention_but_an_unreviewed_does(
    app: CoreApp, client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession]
) -> None:
    """The review mark is the analyst's word: a reviewed file leaves the attention list even
    with its doubt left; a correction after the mark brings it back (in progress)."""
    doubtful = await upload_and_recognize(app, client, sessions, "d.xlsx", doubtful_income_xlsx())
    url = f"/api/v1/documents/{doubtful.document_id}/corrections"
    marked = await client.post(url, json={"kind": "reviewed", "confirm_doubts": 1})
    assert marked.status_code == 201, marked.text
    assert await _files(client, needs_attention="true") == []
    reopen = {"kind": "confirm", "line": 0, "column_index": COLUMN}
    assert (await client.post(url, json=reopen)).status_code == 201
    [item] = await _files(client, needs_attention="true")
    assert item["documents"][0]["review"]["state"] == "in_progress"


async def test_the_list_reads_in_a_bounded_number_of_queries(
    app: CoreApp, client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession]
) -> None:
    """One file or four, the list runs the same number of statements (no query per file or
    per document), and a glance missing (a document stored before the table) is computed
    once, then read."""
    data = doubtful_income_xlsx()
    await upload_and_recognize(app, client, sessions, "f0.xlsx", data)
    with _counting(app) as one:
        await _files(client, order="attention")
    for n in range(1, 4):
        await upload_and_recognize(app, client, sessions, f"f{n}.xlsx", data)
    with _counting(app) as four:
        items = await _files(client, order="attention")
    assert len(items) == 4 and all(i["documents"] for i in items)
    assert len(four) == len(one), four

    async with sessions() as session, session.begin():
        await session.execute(delete(DocumentGlance))
    with _counting(app) as rebuilt:
        again = await _files(client)
    assert len(rebuilt) > len(four)
    assert [i["documents"] for i in again] == [i["documents"] for i in items]
    with _counting(app) as read:
        await _files(client, order="attention")
    assert len(read) == len(one)
