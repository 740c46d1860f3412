"""The job state machine on the database: every transition, and every refusal of its guard.

Runs on the session database: SQLite by default, PostgreSQL with ARM_TEST_DATABASE_URL.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.db import JobStatus, RecognitionJob
from services.arm_core.db.transitions import (
    NO_ACK,
    accept_final,
    claim_due_republish,
    claim_next_queued,
    expire_overdue,
    mark_processing,
    mark_published,
    mark_republished,
    move_unacked_to_dlq,
    next_attempt_number,
    reject_queued,
)
from tests.support.core import T0

pytestmark = pytest.mark.db

ACK = dt.timedelta(seconds=30)
Sessions = async_sessionmaker[AsyncSession]


async def test_claim_takes_the_oldest_queued_job(sessions: Sessions, make_job: Any) -> None:
    """The relay claims queued jobs oldest first and never a job in another state."""
    await make_job(status=JobStatus.PUBLISHED, created_at=T0 - dt.timedelta(hours=1))
    newer = await make_job(created_at=T0)
    older = await make_job(created_at=T0 - dt.timedelta(minutes=5))
    async with sessions() as session, session.begin():
        claimed = await claim_next_queued(session)
        assert claimed is not None
        assert claimed.id == older.id
        assert claimed.file.id == older.file_id
    assert newer.id != older.id


async def test_queued_to_published_records_subject_id_and_deadline(
    sessions: Sessions, make_job: Any, reload: Any
) -> None:
    """queued → published stores the subject, Nats-Msg-Id, times and reply_deadline."""
    job = await make_job()
    deadline = T0 + dt.timedelta(minutes=10)
    async with sessions() as session, session.begin():
        moved = await mark_published(
            session,
            job,
            subject="files.tabular_uploaded",
            msg_id=f"{job.id}:1",
            reply_deadline=deadline,
            now=T0,
            next_attempt_at=T0 + ACK,
        )
    assert moved
    row = await reload(job.id)
    assert row.status == JobStatus.PUBLISHED
    assert (row.request_subject, row.request_msg_id) == ("files.tabular_uploaded", f"{job.id}:1")
    assert (row.published_at, row.reply_deadline, row.next_attempt_at) == (T0, deadline, T0 + ACK)


async def test_publish_guard_refuses_a_job_already_published(
    sessions: Sessions, make_job: Any, reload: Any
) -> None:
    """A second relay's commit on an already published job changes nothing."""
    job = await make_job(status=JobStatus.PUBLISHED, request_msg_id="first")
    async with sessions() as session, session.begin():
        moved = await mark_published(
            session,
            job,
            subject="s",
            msg_id="second",
            reply_deadline=T0,
            now=T0,
            next_attempt_at=T0 + ACK,
        )
    assert not moved
    assert (await reload(job.id)).request_msg_id == "first"


async def test_queued_to_error_when_no_valid_request_can_be_built(
    sessions: Sessions, make_job: Any, reload: Any
) -> None:
    """queued → error with the given code."""
    job = await make_job()
    async with sessions() as session, session.begin():
        assert await reject_queued(session, job, error_code="REQUEST_INVALID", message="x", now=T0)
    row = await reload(job.id)
    assert (row.status, row.error_code, row.finished_at) == ("error", "REQUEST_INVALID", T0)


async def test_republish_claim_waits_for_the_ack_timeout(sessions: Sessions, make_job: Any) -> None:
    """A published job is due for republish only once next_attempt_at has passed."""
    job = await make_job(
        status=JobStatus.PUBLISHED,
        next_attempt_at=T0 + ACK,
        reply_deadline=T0 + dt.timedelta(hours=1),
    )
    async with sessions() as session, session.begin():
        assert await claim_due_republish(session, now=T0, max_republish=3) is None
        due = await claim_due_republish(session, now=T0 + ACK, max_republish=3)
        assert due is not None and due.id == job.id


async def test_republish_claim_skips_exhausted_and_overdue_jobs(
    sessions: Sessions, make_job: Any
) -> None:
    """No republish beyond the limit, nor past the reply_deadline."""
    await make_job(
        status=JobStatus.PUBLISHED,
        next_attempt_at=T0,
        republish_count=3,
        reply_deadline=T0 + dt.timedelta(hours=1),
    )
    await make_job(status=JobStatus.PUBLISHED, next_attempt_at=T0, reply_deadline=T0)
    async with sessions() as session, session.begin():
        assert await claim_due_republish(session, now=T0, max_republish=3) is None


async def test_republish_counts_once_per_claim(
    sessions: Sessions, make_job: Any, reload: Any
) -> None:
    """mark_republished increments the counter and moves next_attempt_at; a stale copy does not."""
    job = await make_job(status=JobStatus.PUBLISHED, next_attempt_at=T0)
    async with sessions() as session, session.begin():
        assert await mark_republished(session, job, now=T0, next_attempt_at=T0 + ACK)
    async with sessions() as session, session.begin():
        # `job` still says republish_count=0: a second replica with a stale read loses.
        assert not await mark_republished(session, job, now=T0, next_attempt_at=T0 + ACK)
    row = await reload(job.id)
    assert (row.republish_count, row.next_attempt_at, row.status) == (1, T0 + ACK, "published")


async def test_published_to_dlq_after_the_last_republish_times_out(
    sessions: Sessions, make_job: Any, reload: Any
) -> None:
    """published → dlq (NO_ACK) only when the limit is reached and the last wait is over."""
    exhausted = await make_job(
        status=JobStatus.PUBLISHED,
        republish_count=3,
        next_attempt_at=T0 + ACK,
        request_msg_id="j:1",
    )
    still_going = await make_job(status=JobStatus.PUBLISHED, republish_count=2, next_attempt_at=T0)
    async with sessions() as session, session.begin():
        assert await move_unacked_to_dlq(session, now=T0, max_republish=3) == 0
    async with sessions() as session, session.begin():
        assert await move_unacked_to_dlq(session, now=T0 + ACK, max_republish=3) == 1
    row = await reload(exhausted.id)
    assert (row.status, row.error_code, row.request_msg_id) == ("dlq", NO_ACK, "j:1")
    assert (await reload(still_going.id)).status == "published"


async def test_published_to_processing_on_ack(
    sessions: Sessions, make_job: Any, reload: Any
) -> None:
    """published → processing with started_at and the service."""
    job = await make_job(status=JobStatus.PUBLISHED, next_attempt_at=T0)
    async with sessions() as session, session.begin():
        assert await mark_processing(
            session, job.id, service_name="tabular-parser", service_version="1.0", now=T0
        )
    row = await reload(job.id)
    assert (row.status, row.started_at, row.service_name, row.service_version) == (
        "processing",
        T0,
        "tabular-parser",
        "1.0",
    )
    assert row.next_attempt_at is None


@pytest.mark.parametrize(
    "status",
    [
        JobStatus.PROCESSING,
        JobStatus.DONE,
        JobStatus.NEEDS_CHECK,
        JobStatus.ERROR,
        JobStatus.TIMEOUT,
        JobStatus.DLQ,
    ],
)
async def test_ack_moves_only_a_published_job(
    sessions: Sessions, make_job: Any, reload: Any, status: JobStatus
) -> None:
    """An ack in any later state (late, duplicate) changes nothing."""
    job = await make_job(status=status)
    async with sessions() as session, session.begin():
        moved = await mark_processing(
            session, job.id, service_name="x", service_version="1", now=T0
        )
    assert not moved
    assert (await reload(job.id)).status == status


@pytest.mark.parametrize("start", [JobStatus.PUBLISHED, JobStatus.PROCESSING])
@pytest.mark.parametrize("final", [JobStatus.DONE, JobStatus.NEEDS_CHECK, JobStatus.ERROR])
async def test_final_result_closes_published_or_processing(
    sessions: Sessions, make_job: Any, reload: Any, start: JobStatus, final: JobStatus
) -> None:
    """published | processing → done | needs_check | error, recording result_msg_id."""
    job = await make_job(status=start)
    async with sessions() as session, session.begin():
        assert await accept_final(
            session,
            job.id,
            status=final,
            result_msg_id="result:j:1",
            now=T0,
            values={"error_code": "X"},
        )
    row = await reload(job.id)
    assert (row.status, row.result_msg_id, row.finished_at, row.error_code) == (
        final,
        "result:j:1",
        T0,
        "X",
    )


@pytest.mark.parametrize(
    "status",
    [
        JobStatus.DONE,
        JobStatus.NEEDS_CHECK,
        JobStatus.ERROR,
        JobStatus.TIMEOUT,
        JobStatus.DLQ,
    ],
)
async def test_final_result_never_moves_a_job_backwards(
    sessions: Sessions, make_job: Any, reload: Any, status: JobStatus
) -> None:
    """A result for a closed job changes nothing (a queued one: see the overtaking test)."""
    job = await make_job(status=status)
    async with sessions() as session, session.begin():
        assert not await accept_final(
            session, job.id, status=JobStatus.DONE, result_msg_id="result:j:1", now=T0
        )
    row = await reload(job.id)
    assert (row.status, row.result_msg_id) == (status, None)


async def test_the_same_result_msg_id_is_applied_once(
    sessions: Sessions, make_job: Any, reload: Any
) -> None:
    """The msg-id guard refuses a result whose id the job already holds."""
    job = await make_job(status=JobStatus.PROCESSING, result_msg_id="result:j:1")
    async with sessions() as session, session.begin():
        assert not await accept_final(
            session, job.id, status=JobStatus.DONE, result_msg_id="result:j:1", now=T0
        )
    assert (await reload(job.id)).status == "processing"


async def test_accept_final_refuses_a_non_final_status(sessions: Sessions, make_job: Any) -> None:
    """Only done, needs_check and error are final results."""
    job = await make_job(status=JobStatus.PUBLISHED)
    async with sessions() as session:
        with pytest.raises(ValueError, match="not a final"):
            await accept_final(
                session, job.id, status=JobStatus.TIMEOUT, result_msg_id=None, now=T0
            )


@pytest.mark.parametrize("start", [JobStatus.PUBLISHED, JobStatus.PROCESSING])
async def test_past_reply_deadline_to_timeout(
    sessions: Sessions, make_job: Any, reload: Any, start: JobStatus
) -> None:
    """published | processing → timeout once reply_deadline is reached, not before."""
    job = await make_job(status=start, reply_deadline=T0)
    async with sessions() as session, session.begin():
        assert await expire_overdue(session, now=T0 - dt.timedelta(seconds=1)) == 0
    async with sessions() as session, session.begin():
        assert await expire_overdue(session, now=T0) == 1
    row = await reload(job.id)
    assert (row.status, row.error_code, row.finished_at) == ("timeout", "TIMEOUT", T0)


@pytest.mark.parametrize("status", [JobStatus.QUEUED, JobStatus.DONE, JobStatus.ERROR])
async def test_timeout_leaves_queued_and_closed_jobs(
    sessions: Sessions, make_job: Any, reload: Any, status: JobStatus
) -> None:
    """The sweeper never touches a job that is not waiting for an answer."""
    job = await make_job(status=status, reply_deadline=T0 - dt.timedelta(hours=1))
    async with sessions() as session, session.begin():
        assert await expire_overdue(session, now=T0) == 0
    assert (await reload(job.id)).status == status


async def test_next_attempt_is_the_highest_plus_one(sessions: Sessions, make_job: Any) -> None:
    """A new recognition of a file gets attempt = max + 1."""
    job = await make_job(attempt=3)
    async with sessions() as session:
        assert await next_attempt_number(session, job.file_id) == 4


async def test_timestamps_come_back_aware_utc(
    sessions: Sessions, make_job: Callable[..., Any], reload: Any
) -> None:
    """A UTC+3 time is stored and read back as the same instant in UTC on every backend."""
    moscow = dt.timezone(dt.timedelta(hours=3))
    job: RecognitionJob = await make_job(
        status=JobStatus.PUBLISHED, reply_deadline=dt.datetime(2026, 3, 2, 12, 0, tzinfo=moscow)
    )
    row = await reload(job.id)
    assert row.reply_deadline == dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)
    assert row.reply_deadline.tzinfo is dt.UTC


async def test_an_answer_that_overtakes_the_relays_commit_is_applied_and_the_publish_recorded(
    sessions: Sessions, make_job: Any, reload: Any
) -> None:
    """The relay publishes, then records `published`; an ack (or result) applied in between finds
    the job still queued. It is applied, and the relay's late commit records where the request
    went without moving the job back."""
    job = await make_job(status=JobStatus.QUEUED)
    async with sessions() as session, session.begin():
        acked = await mark_processing(
            session, job.id, service_name="tabular-parser", service_version="1", now=T0
        )
    async with sessions() as session, session.begin():
        recorded = await mark_published(
            session,
            await session.get_one(RecognitionJob, job.id),
            subject="files.tabular_uploaded",
            msg_id=f"{job.id}:1",
            reply_deadline=T0 + dt.timedelta(minutes=10),
            now=T0,
            next_attempt_at=T0 + dt.timedelta(seconds=30),
        )

    after = await reload(job.id)
    assert (acked, recorded) == (True, False)
    assert after.status == JobStatus.PROCESSING
    assert (after.request_msg_id, after.request_subject) == (
        f"{job.id}:1",
        "files.tabular_uploaded",
    )
    assert after.reply_deadline is not None


async def test_a_result_that_overtakes_the_relays_commit_closes_the_job(
    sessions: Sessions, make_job: Any, reload: Any
) -> None:
    """A final result applied while the job is still recorded as queued closes it once."""
    job = await make_job(status=JobStatus.QUEUED)
    async with sessions() as session, session.begin():
        first = await accept_final(
            session, job.id, status=JobStatus.DONE, result_msg_id="result:j:1", now=T0
        )
    async with sessions() as session, session.begin():
        again = await accept_final(
            session, job.id, status=JobStatus.DONE, result_msg_id="result:j:1", now=T0
        )
    row = await reload(job.id)
    assert (first, again) == (True, False)
    assert (row.status, row.result_msg_id) == (JobStatus.DONE, "result:j:1")


async def test_an_ack_that_overtakes_a_relay_that_then_crashes_still_times_out(
    sessions: Sessions, make_job: Any, reload: Any
) -> None:
    """Relay publishes and dies before recording it; the service acks the job still queued and
    dies too. The ack's fallback deadline lets the sweeper close the job instead of leaving it
    processing forever; a recorded deadline is never replaced by the fallback."""
    job = await make_job(status=JobStatus.QUEUED)
    fallback = T0 + dt.timedelta(minutes=10)
    async with sessions() as session, session.begin():
        assert await mark_processing(
            session,
            job.id,
            service_name="tabular-parser",
            service_version="1",
            now=T0,
            deadline_if_missing=fallback,
        )
    async with sessions() as session, session.begin():
        before = await expire_overdue(session, now=fallback - dt.timedelta(seconds=1))
    async with sessions() as session, session.begin():
        after = await expire_overdue(session, now=fallback)

    row = await reload(job.id)
    assert (before, after) == (0, 1)
    assert (row.status, row.error_code) == (JobStatus.TIMEOUT, "TIMEOUT")


async def test_the_fallback_deadline_never_replaces_a_recorded_one(
    sessions: Sessions, make_job: Any, reload: Any
) -> None:
    """An ack on a published job keeps the deadline the relay recorded."""
    recorded = T0 + dt.timedelta(minutes=10)
    job = await make_job(status=JobStatus.PUBLISHED, reply_deadline=recorded)
    async with sessions() as session, session.begin():
        assert await mark_processing(
            session,
            job.id,
            service_name="tabular-parser",
            service_version="1",
            now=T0,
            deadline_if_missing=T0 + dt.timedelta(days=1),
        )
    assert (await reload(job.id)).reply_deadline == recorded
