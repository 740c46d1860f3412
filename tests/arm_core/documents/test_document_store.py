"""A large ОСВ is stored by bulk INSERTs and comes back exactly (SQLite, or PostgreSQL with
ARM_TEST_DATABASE_URL)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.db import Document, JobStatus
from services.arm_core.documents.read import load_document, load_osv_rows, normalised_document
from services.arm_core.jobs.intake import IntakeOutcome
from tests.support.core import ResultPublisher, example, for_job

pytestmark = [pytest.mark.db, pytest.mark.wire]

ROWS = 5_000


def _many_rows(template: list[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    """`count` distinct rows cycling through the example's kinds: names, sums, INNs and
    `extra` differ from row to row; `extra` is absent, null-valued or full; some rows carry a
    key of a newer MINOR; a sum is null in every third row."""
    rows = []
    for i in range(count):
        row = dict(template[i % len(template)])
        row["row_index"] = 8 + i
        row["ref"] = f"TDSheet!A{9 + i}"
        row["name"] = f"Контрагент №{i} «Ромашка»"
        row["opening_debit"] = f"{i * 1000 + 7}.{i % 100:02d}" if i % 3 else None
        row["turnover_credit"] = str(10**30 + i)  # past NUMERIC: kept as the exact string
        row["inn"] = f"{7700000000 + i}" if row["kind"] == "subconto" else None
        if i % 7 == 0:
            row.pop("extra", None)
        elif i % 7 == 1:
            row["extra"] = {"КПП": None}
        else:
            row["extra"] = {"КПП": f"{770100000 + i}", "Примечание": f"стр. {i}"}
        if i % 11 == 0:
            row["outline"] = i  # a key of a newer MINOR
        rows.append(row)
    return rows


async def test_a_large_osv_is_stored_and_read_back_exactly(
    results: ResultPublisher,
    make_job: Any,
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    """5 000 rows (more than one bulk chunk) keep their order and every value; a page across
    a chunk boundary is that slice of the rows; the document itself is as sent."""
    job = await make_job(status=JobStatus.PROCESSING)
    body = for_job(example("result-osv.json"), job)
    document = body["documents"][0]
    document["rows"] = _many_rows(document["rows"], ROWS)
    body["schema_version"] = "2.3"

    outcome = await results.deliver(job, body, result_schema_version="2.3")

    assert outcome == IntakeOutcome.FINISHED
    async with sessions() as session:
        ids = (await session.scalars(select(Document.id).where(Document.job_id == job.id))).all()
        assert len(ids) == 1
        stored = await load_document(session, ids[0])
        rows = await load_osv_rows(session, ids[0])
        page = await load_osv_rows(session, ids[0], limit=4, offset=1998)
    assert stored is not None
    assert [r.position for r in rows] == list(range(ROWS))
    assert normalised_document(stored, rows) == document
    # an ОСВ document (the union's other half has no rows)
    assert normalised_document(stored, page)["rows"] == document["rows"][1998:2002]  # type: ignore[typeddict-item]


async def test_osv_rows_of_two_documents_stay_apart(
    results: ResultPublisher,
    make_job: Any,
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    """Two ОСВ documents of one file: each gets its own rows, numbered from 0."""
    job = await make_job(status=JobStatus.PROCESSING)
    body = for_job(example("result-osv.json"), job)
    first = body["documents"][0]
    second = {**first, "rows": _many_rows(first["rows"], 3)}
    body["documents"].append(second)
    assert await results.deliver(job, body) == IntakeOutcome.FINISHED

    async with sessions() as session:
        ids = (
            await session.scalars(
                select(Document.id).where(Document.job_id == job.id).order_by(Document.file_ordinal)
            )
        ).all()
        got = [[r.ref for r in await load_osv_rows(session, i)] for i in ids]
    assert got == [[r["ref"] for r in first["rows"]], [r["ref"] for r in second["rows"]]]
