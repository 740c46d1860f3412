"""Every move of the job state machine, each a guarded UPDATE.

queued → published → processing → done | needs_check | error | timeout | dlq; a final result
is also accepted in published (the ack may be lost). A transition only happens from the states
it names (`WHERE status IN (...)`), so a late or duplicated message can never move a job
backwards, and two core replicas racing on one row change it once. Each function runs inside
the caller's transaction and reports whether the row moved.

The relay's claims read with `FOR UPDATE SKIP LOCKED` (PostgreSQL; SQLite ignores it and, as
a single writer, relies on the guard of the following UPDATE).
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import CursorResult, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import joinedload

from services.arm_core.db.models import JobStatus, RecognitionJob

__all__ = [
    "NO_ACK",
    "REPLY_TIMEOUT",
    "Expired",
    "accept_final",
    "claim_due_republish",
    "claim_next_queued",
    "expire_overdue",
    "expire_overdue_jobs",
    "mark_processing",
    "mark_published",
    "mark_republished",
    "move_unacked_to_dlq",
    "next_attempt_number",
    "queue_attempt_after_timeout",
    "reject_queued",
]

NO_ACK = "NO_ACK"
"""error_code of a job that never got an ack after all republishes."""
REPLY_TIMEOUT = "TIMEOUT"
"""error_code of a job whose final result did not come before reply_deadline."""

_FINAL_FROM = (JobStatus.PUBLISHED, JobStatus.PROCESSING)
# An answer may overtake the relay's commit: the relay publishes, then records `published`, and
# on SQLite (no row lock) the service's ack or result can be applied in between. The job is then
# still `queued` in the database although its request is on the wire, so answers accept it too.
_ANSWERED_FROM = (JobStatus.QUEUED, *_FINAL_FROM)


async def _guarded(
    session: AsyncSession,
    job_id: uuid.UUID | None,
    from_states: Iterable[JobStatus],
    values: dict[str, Any],
    *extra: Any,
) -> int:
    stmt = update(RecognitionJob).where(
        RecognitionJob.status.in_([s.value for s in from_states]), *extra
    )
    if job_id is not None:
        stmt = stmt.where(RecognitionJob.id == job_id)
    stmt = stmt.values(**values).execution_options(synchronize_session=False)
    result = cast(CursorResult[Any], await session.execute(stmt))
    return result.rowcount


async def next_attempt_number(session: AsyncSession, file_id: uuid.UUID) -> int:
    """The attempt number a new recognition of `file_id` gets: the highest so far plus one."""
    current = await session.scalar(
        select(func.max(RecognitionJob.attempt)).where(RecognitionJob.file_id == file_id)
    )
    return (current or 0) + 1


async def claim_next_queued(session: AsyncSession) -> RecognitionJob | None:
    """The oldest queued job, locked against other relays until the caller's commit."""
    stmt = (
        select(RecognitionJob)
        .options(joinedload(RecognitionJob.file, innerjoin=True))
        .where(RecognitionJob.status == JobStatus.QUEUED.value)
        .order_by(RecognitionJob.created_at, RecognitionJob.id)
        .limit(1)
        .with_for_update(skip_locked=True, of=RecognitionJob)
    )
    return (await session.scalars(stmt)).first()


async def mark_published(
    session: AsyncSession,
    job: RecognitionJob,
    *,
    subject: str,
    msg_id: str,
    reply_deadline: dt.datetime,
    now: dt.datetime,
    next_attempt_at: dt.datetime,
) -> bool:
    """queued → published, recording where and under which Nats-Msg-Id it went, and when the
    relay republishes it without an ack (`next_attempt_at`, the relay's reckoning).

    When the service's answer overtook this commit (the job is already processing or final),
    the status stays as the answer left it and only the facts of the publish are recorded.
    """
    moved = await _guarded(
        session,
        job.id,
        [JobStatus.QUEUED],
        {
            "status": JobStatus.PUBLISHED.value,
            "request_subject": subject,
            "request_msg_id": msg_id,
            "published_at": now,
            "last_published_at": now,
            "next_attempt_at": next_attempt_at,
            "reply_deadline": reply_deadline,
            "republish_count": 0,
            "updated_at": now,
        },
    )
    if moved:
        return True
    await session.execute(
        update(RecognitionJob)
        .where(RecognitionJob.id == job.id, RecognitionJob.request_msg_id.is_(None))
        .values(
            request_subject=subject,
            request_msg_id=msg_id,
            published_at=now,
            last_published_at=now,
            reply_deadline=reply_deadline,
            updated_at=now,
        )
        .execution_options(synchronize_session=False)
    )
    return False


async def reject_queued(
    session: AsyncSession, job: RecognitionJob, *, error_code: str, message: str, now: dt.datetime
) -> bool:
    """queued → error when the core cannot even build a valid request for the job."""
    moved = await _guarded(
        session,
        job.id,
        [JobStatus.QUEUED],
        {
            "status": JobStatus.ERROR.value,
            "error_code": error_code,
            "error_message": message,
            "finished_at": now,
            "updated_at": now,
        },
    )
    return moved == 1


async def claim_due_republish(
    session: AsyncSession, *, now: dt.datetime, max_republish: int
) -> RecognitionJob | None:
    """A published job whose ack is overdue and that may still be republished, locked."""
    stmt = (
        select(RecognitionJob)
        .options(joinedload(RecognitionJob.file, innerjoin=True))
        .where(
            RecognitionJob.status == JobStatus.PUBLISHED.value,
            RecognitionJob.next_attempt_at <= now,
            RecognitionJob.republish_count < max_republish,
            (RecognitionJob.reply_deadline.is_(None)) | (RecognitionJob.reply_deadline > now),
        )
        .order_by(RecognitionJob.next_attempt_at, RecognitionJob.id)
        .limit(1)
        .with_for_update(skip_locked=True, of=RecognitionJob)
    )
    return (await session.scalars(stmt)).first()


async def mark_republished(
    session: AsyncSession, job: RecognitionJob, *, now: dt.datetime, next_attempt_at: dt.datetime
) -> bool:
    """Count one more republish of a still-unacked job (same Nats-Msg-Id and attempt), due
    again at `next_attempt_at`."""
    moved = await _guarded(
        session,
        job.id,
        [JobStatus.PUBLISHED],
        {
            "republish_count": job.republish_count + 1,
            "last_published_at": now,
            "next_attempt_at": next_attempt_at,
            "updated_at": now,
        },
        RecognitionJob.republish_count == job.republish_count,
    )
    return moved == 1


async def move_unacked_to_dlq(
    session: AsyncSession, *, now: dt.datetime, max_republish: int
) -> int:
    """published → dlq (NO_ACK) once every republish went unanswered for ACK_TIMEOUT."""
    return await _guarded(
        session,
        None,
        [JobStatus.PUBLISHED],
        {
            "status": JobStatus.DLQ.value,
            "error_code": NO_ACK,
            "error_message": f"no ack after {max_republish} republishes",
            "finished_at": now,
            "next_attempt_at": None,
            "updated_at": now,
        },
        RecognitionJob.republish_count >= max_republish,
        RecognitionJob.next_attempt_at <= now,
    )


@dataclass(frozen=True, slots=True)
class Expired:
    """A job the sweeper just moved to timeout."""

    job_id: uuid.UUID
    file_id: uuid.UUID
    attempt: int
    pipeline: str


async def expire_overdue(session: AsyncSession, *, now: dt.datetime) -> int:
    """published | processing → timeout for jobs past their reply_deadline; how many moved."""
    return len(await expire_overdue_jobs(session, now=now))


async def expire_overdue_jobs(session: AsyncSession, *, now: dt.datetime) -> list[Expired]:
    """As `expire_overdue`, naming the jobs moved (one UPDATE … RETURNING: of two core
    replicas sweeping at once, each row is returned to one of them)."""
    stmt = (
        update(RecognitionJob)
        .where(
            RecognitionJob.status.in_([s.value for s in _FINAL_FROM]),
            RecognitionJob.reply_deadline <= now,
        )
        .values(
            status=JobStatus.TIMEOUT.value,
            error_code=REPLY_TIMEOUT,
            error_message="no result before reply_deadline",
            finished_at=now,
            next_attempt_at=None,
            updated_at=now,
        )
        .returning(
            RecognitionJob.id,
            RecognitionJob.file_id,
            RecognitionJob.attempt,
            RecognitionJob.pipeline,
        )
        .execution_options(synchronize_session=False)
    )
    rows = (await session.execute(stmt)).all()
    return [Expired(row[0], row[1], row[2], row[3]) for row in rows]


async def queue_attempt_after_timeout(
    session: AsyncSession, expired: Expired, *, now: dt.datetime
) -> RecognitionJob | None:
    """The one automatic new attempt of a file whose job timed out (decision 0014).

    Queued only when the timed-out job is the file's latest attempt (an analyst's newer one
    supersedes it) and no other job of the file ever timed out (so an automatic attempt that
    times out too gets none: one per file, whatever the cause). Inserted under a savepoint:
    a new attempt allocated meanwhile by an analyst wins, and the sweep goes on.
    """
    newer_or_timed_out = await session.scalar(
        select(func.count())
        .select_from(RecognitionJob)
        .where(
            RecognitionJob.file_id == expired.file_id,
            RecognitionJob.id != expired.job_id,
            (RecognitionJob.attempt > expired.attempt)
            | (RecognitionJob.status == JobStatus.TIMEOUT.value),
        )
    )
    if newer_or_timed_out:
        return None
    job = RecognitionJob(
        id=uuid.uuid4(),
        file_id=expired.file_id,
        pipeline=expired.pipeline,
        attempt=expired.attempt + 1,
        status=JobStatus.QUEUED.value,
        republish_count=0,
        created_at=now,
        updated_at=now,
    )
    try:
        async with session.begin_nested():
            session.add(job)
    except IntegrityError:
        return None
    return job


async def mark_processing(
    session: AsyncSession,
    job_id: uuid.UUID,
    *,
    service_name: str,
    service_version: str,
    now: dt.datetime,
    deadline_if_missing: dt.datetime | None = None,
) -> bool:
    """published → processing on the service's ack; a repeated ack changes nothing.

    A job still `queued` is acked too: the ack overtook the relay's commit (see _ANSWERED_FROM).
    Such a job has no reply_deadline yet; `deadline_if_missing` gives it one, so that it still
    times out if the relay never records its publish (it crashed in between) and the service
    dies before answering.
    """
    values: dict[str, Any] = {}
    if deadline_if_missing is not None:
        values["reply_deadline"] = func.coalesce(RecognitionJob.reply_deadline, deadline_if_missing)
    moved = await _guarded(
        session,
        job_id,
        [JobStatus.QUEUED, JobStatus.PUBLISHED],
        {
            **values,
            "status": JobStatus.PROCESSING.value,
            "started_at": now,
            "service_name": service_name,
            "service_version": service_version,
            "next_attempt_at": None,
            "updated_at": now,
        },
    )
    return moved == 1


async def accept_final(
    session: AsyncSession,
    job_id: uuid.UUID,
    *,
    status: JobStatus,
    result_msg_id: str | None,
    now: dt.datetime,
    values: dict[str, Any] | None = None,
) -> bool:
    """(queued |) published | processing → done | needs_check | error, at most once per result.

    A result whose Nats-Msg-Id equals the job's result_msg_id is a duplicate; the status
    guard already makes a second final result a no-op, the msg-id guard states it.
    """
    if status not in (JobStatus.DONE, JobStatus.NEEDS_CHECK, JobStatus.ERROR):
        msg = f"{status} is not a final result status"
        raise ValueError(msg)
    extra: list[Any] = []
    if result_msg_id is not None:
        extra.append(
            (RecognitionJob.result_msg_id.is_(None))
            | (RecognitionJob.result_msg_id != result_msg_id)
        )
    moved = await _guarded(
        session,
        job_id,
        _ANSWERED_FROM,
        {
            **(values or {}),
            "status": status.value,
            "result_msg_id": result_msg_id,
            "finished_at": now,
            "next_attempt_at": None,
            "updated_at": now,
        },
        *extra,
    )
    return moved == 1
