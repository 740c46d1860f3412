"""The result file is read before the intake's write transaction, never inside it.

A slow S3 must not hold a database connection (and, on PostgreSQL, the job's row lock): the
intake looks at the job in a short read-only session, reads and maps the file with no
connection held, and only then opens the transaction that re-reads the job and decides.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from sqlalchemy import event, func, select
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from services.arm_core.db import Document, JobStatus, RecognitionJob, create_session_factory
from services.arm_core.db.transitions import expire_overdue
from services.arm_core.jobs.intake import Intake, IntakeOutcome
from services.arm_core.jobs.results import ResultFileHandler, S3ResultReader
from services.runtime.storage import S3Storage
from tests.support.core import FakeClock, ResultPublisher, build_envelope, example, for_job

pytestmark = [pytest.mark.db, pytest.mark.wire]

Sessions = async_sessionmaker[AsyncSession]


@dataclass
class HeldConnections:
    """Counts the connections an engine's pool has handed out and not yet taken back."""

    engine: AsyncEngine
    held: int = 0

    def __post_init__(self) -> None:
        event.listen(self.engine.sync_engine, "checkout", self._out)
        event.listen(self.engine.sync_engine, "checkin", self._in)

    def _out(self, *_: Any) -> None:
        self.held += 1

    def _in(self, *_: Any) -> None:
        self.held -= 1


@dataclass
class WatchedReader:
    """The real S3 reader, recording each read and what was true while it ran.

    `held` is the number of database connections checked out at the read; `gate`, when set,
    holds every read until it opens (`started` tells the test a read is waiting), and
    `during` runs while the read waits (another replica's work, the sweeper...).
    """

    inner: S3ResultReader
    connections: HeldConnections | None = None
    held: list[int] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    gate: asyncio.Event | None = None
    started: asyncio.Event = field(default_factory=asyncio.Event)

    async def read(self, bucket: str, key: str) -> bytes:
        self.keys.append(key)
        if self.connections is not None:
            self.held.append(self.connections.held)
        self.started.set()
        if self.gate is not None:
            await self.gate.wait()
        return await self.inner.read(bucket, key)


async def documents_of(sessions: Sessions, job_id: uuid.UUID) -> int:
    async with sessions() as session:
        stmt = select(func.count()).select_from(Document).where(Document.job_id == job_id)
        return int(await session.scalar(stmt) or 0)


async def test_the_result_file_is_read_while_no_database_connection_is_held(
    engine: AsyncEngine,
    sessions: Sessions,
    storage: S3Storage,
    bucket: str,
    clock: FakeClock,
    make_job: Any,
    reload: Any,
) -> None:
    """During the S3 read of a final result the intake holds no connection (so no
    transaction, no row lock); the result is still stored and the job closed."""
    connections = HeldConnections(engine)
    reader = WatchedReader(S3ResultReader(storage), connections)
    intake = Intake(sessions, on_final=ResultFileHandler(reader), clock=clock)
    job = await make_job(status=JobStatus.PROCESSING)
    body = for_job(example("result-osv.json"), job)

    outcome = await ResultPublisher(intake, storage, bucket).deliver(job, body)

    assert outcome == IntakeOutcome.FINISHED
    assert reader.held == [0]
    assert (await reload(job.id)).status == body["status"]
    assert await documents_of(sessions, job.id) == len(body["documents"])


@pytest.fixture
async def one_connection(core_db_url: str, engine: AsyncEngine) -> AsyncIterator[Sessions]:
    """Sessions on a pool of exactly one connection (on the emptied database of `engine`)."""
    single = create_async_engine(core_db_url, pool_size=1, max_overflow=0, pool_timeout=30)
    try:
        yield create_session_factory(single)
    finally:
        await single.dispose()


async def test_a_slow_result_file_does_not_block_another_jobs_intake(
    one_connection: Sessions,
    storage: S3Storage,
    bucket: str,
    clock: FakeClock,
    make_job: Any,
    reload: Any,
) -> None:
    """With one database connection, job A's result file stuck in S3 does not keep job B's ack
    from being applied; A is closed once its read completes."""
    gate = asyncio.Event()
    reader = WatchedReader(S3ResultReader(storage), gate=gate)
    intake = Intake(one_connection, on_final=ResultFileHandler(reader), clock=clock)
    job_a = await make_job(status=JobStatus.PROCESSING)
    job_b = await make_job(status=JobStatus.PUBLISHED)
    body = for_job(example("result-osv.json"), job_a)

    slow = asyncio.create_task(ResultPublisher(intake, storage, bucket).deliver(job_a, body))
    try:
        await asyncio.wait_for(reader.started.wait(), timeout=10)
        ack = build_envelope(job_b, "processing")
        headers = {"Nats-Msg-Id": f"ack:{job_b.id}:1"}
        acked = await asyncio.wait_for(intake.handle(json.dumps(ack).encode(), headers), 10)
    finally:
        gate.set()
        finished = await asyncio.wait_for(slow, timeout=30)
    assert acked == IntakeOutcome.PROCESSING
    assert finished == IntakeOutcome.FINISHED
    assert (await reload(job_b.id)).status == "processing"
    assert (await reload(job_a.id)).status == body["status"]


async def test_a_refused_result_is_never_read(
    sessions: Sessions,
    storage: S3Storage,
    bucket: str,
    clock: FakeClock,
    make_job: Any,
    reload: Any,
) -> None:
    """The read-only look spares S3 for an unknown job, a duplicate, a stale attempt and a job
    already final; only the one result that closes its job is read."""
    reader = WatchedReader(S3ResultReader(storage))
    results = ResultPublisher(
        Intake(sessions, on_final=ResultFileHandler(reader), clock=clock), storage, bucket
    )
    job = await make_job(status=JobStatus.PROCESSING)
    body = for_job(example("result-osv.json"), job)
    assert await results.deliver(job, body) == IntakeOutcome.FINISHED
    assert await results.deliver(job, body) == IntakeOutcome.DUPLICATE
    replayed = f"replayed:{job.id}"
    assert await results.deliver(job, body, msg_id=replayed) == IntakeOutcome.IGNORED

    later = await make_job(status=JobStatus.PROCESSING, attempt=2)
    stale = for_job(example("result-osv.json"), later)
    assert await results.deliver(later, stale, msg_id=f"result:{later.id}:1") == (
        IntakeOutcome.STALE
    )

    # A real job the database never saw: its result names an unknown job.
    ghost = RecognitionJob(id=uuid.uuid4(), file_id=uuid.uuid4(), attempt=1)
    assert await results.deliver(ghost, for_job(body, ghost)) == IntakeOutcome.UNKNOWN_JOB

    assert len(reader.keys) == 1
    assert (await reload(later.id)).status == "processing"


@pytest.mark.parametrize("meanwhile", ["same result by another replica", "deadline passed"])
async def test_the_write_transaction_decides_on_the_job_as_it_is_then(
    sessions: Sessions,
    storage: S3Storage,
    bucket: str,
    clock: FakeClock,
    make_job: Any,
    reload: Any,
    meanwhile: str,
) -> None:
    """What happens to the job while its result file is read counts: the same result applied
    by another replica makes this delivery a duplicate, a timeout makes it ignored; either
    way the job changes once and no second set of documents is stored."""
    gate = asyncio.Event()
    reader = WatchedReader(S3ResultReader(storage), gate=gate)
    slow = ResultPublisher(
        Intake(sessions, on_final=ResultFileHandler(reader), clock=clock), storage, bucket
    )
    other = ResultPublisher(
        Intake(sessions, on_final=ResultFileHandler(S3ResultReader(storage)), clock=clock),
        storage,
        bucket,
    )
    job = await make_job(status=JobStatus.PROCESSING, reply_deadline=clock.now)
    body = for_job(example("result-osv.json"), job)

    delivery = asyncio.create_task(slow.deliver(job, body))
    try:
        await asyncio.wait_for(reader.started.wait(), timeout=10)
        if meanwhile == "deadline passed":
            async with sessions() as session, session.begin():
                assert await expire_overdue(session, now=clock.advance(1)) == 1
            expected, final, stored = IntakeOutcome.IGNORED, "timeout", 0
        else:
            assert await other.deliver(job, body) == IntakeOutcome.FINISHED
            expected, final, stored = (
                IntakeOutcome.DUPLICATE,
                body["status"],
                len(body["documents"]),
            )
    finally:
        gate.set()
        outcome = await asyncio.wait_for(delivery, timeout=30)

    assert outcome == expected
    assert (await reload(job.id)).status == final
    assert await documents_of(sessions, job.id) == stored
