"""The deadline sweeper: lost results end in timeout, then (when on) one new attempt."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

import pytest
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.db import JobStatus, RecognitionJob
from services.arm_core.jobs.sweeper import DeadlineSweeper
from tests.support.core import FakeClock

pytestmark = pytest.mark.db


async def test_sweeper_times_out_overdue_jobs_only(
    sessions: async_sessionmaker[AsyncSession], make_job: Any, reload: Any, clock: FakeClock
) -> None:
    """Overdue published/processing jobs → timeout; jobs still in time stay as they are."""
    overdue = await make_job(status=JobStatus.PROCESSING, reply_deadline=clock.now)
    in_time = await make_job(
        status=JobStatus.PUBLISHED, reply_deadline=clock.now + dt.timedelta(seconds=1)
    )
    sweeper = DeadlineSweeper(sessions, clock=clock)
    assert await sweeper.run_pass() == 1
    assert (await reload(overdue.id)).status == "timeout"
    assert (await reload(in_time.id)).status == "published"
    clock.advance(1)
    assert await sweeper.run_pass() == 1
    assert (await reload(in_time.id)).status == "timeout"


async def _jobs_of(
    sessions: async_sessionmaker[AsyncSession], file_id: uuid.UUID
) -> list[RecognitionJob]:
    async with sessions() as session:
        rows = await session.scalars(
            select(RecognitionJob)
            .where(RecognitionJob.file_id == file_id)
            .order_by(RecognitionJob.attempt)
        )
        return list(rows)


async def test_a_timed_out_job_gets_one_automatic_new_attempt_and_only_one(
    sessions: async_sessionmaker[AsyncSession], make_job: Any, clock: FakeClock
) -> None:
    """new_attempt: the overdue job still ends timeout (spec 001), its file gets attempt 2
    queued for the relay (woken once); when attempt 2 times out as well, no attempt 3."""
    woken: list[int] = []
    first = await make_job(status=JobStatus.PROCESSING, reply_deadline=clock.now)
    sweeper = DeadlineSweeper(
        sessions, clock=clock, new_attempt=True, on_queued=lambda: woken.append(1)
    )
    assert await sweeper.run_pass() == 1
    jobs = await _jobs_of(sessions, first.file_id)
    assert [(j.attempt, j.status) for j in jobs] == [(1, "timeout"), (2, "queued")]
    assert jobs[0].error_code == "TIMEOUT"
    assert jobs[1].pipeline == first.pipeline
    assert woken == [1]

    async with sessions() as session, session.begin():
        await session.execute(
            update(RecognitionJob)
            .where(RecognitionJob.id == jobs[1].id)
            .values(status=JobStatus.PUBLISHED.value, reply_deadline=clock.advance(5))
        )
    assert await sweeper.run_pass() == 1
    again = await _jobs_of(sessions, first.file_id)
    assert [(j.attempt, j.status) for j in again] == [(1, "timeout"), (2, "timeout")]
    assert woken == [1]


async def test_no_automatic_attempt_when_off_or_when_a_newer_attempt_exists(
    sessions: async_sessionmaker[AsyncSession], make_job: Any, clock: FakeClock
) -> None:
    """Off: timeout and nothing else. On, but the analyst already asked for attempt 2 while
    attempt 1 was still running: attempt 1 times out and no automatic attempt 3 is added."""
    lone = await make_job(status=JobStatus.PUBLISHED, reply_deadline=clock.now)
    assert await DeadlineSweeper(sessions, clock=clock).run_pass() == 1
    assert [j.status for j in await _jobs_of(sessions, lone.file_id)] == ["timeout"]

    old = await make_job(status=JobStatus.PROCESSING, reply_deadline=clock.now)
    async with sessions() as session, session.begin():
        session.add(
            RecognitionJob(
                id=uuid.uuid4(),
                file_id=old.file_id,
                pipeline=old.pipeline,
                attempt=2,
                status=JobStatus.QUEUED.value,
                republish_count=0,
                created_at=clock.now,
                updated_at=clock.now,
            )
        )
    assert await DeadlineSweeper(sessions, clock=clock, new_attempt=True).run_pass() == 1
    jobs = await _jobs_of(sessions, old.file_id)
    assert [(j.attempt, j.status) for j in jobs] == [(1, "timeout"), (2, "queued")]
