"""The outbox relay: publishes queued jobs, republishes unacked ones, gives up into dlq.

Order inside one job's transaction: claim (PostgreSQL: `FOR UPDATE SKIP LOCKED`, so another
replica skips the row), publish, then the guarded UPDATE and commit. A crash between publish and
commit leaves the row queued: it is published again with the same `Nats-Msg-Id`
(`<job_id>:<attempt>`), a duplicate the service absorbs, never a loss. A failed publish rolls
back and ends the pass; the row waits for the next one.

Without an ack within ACK_TIMEOUT_SECONDS the same request (same id, attempt and
reply_deadline) goes out again, at most OUTBOX_MAX_REPUBLISH times; one more ACK_TIMEOUT
without an ack moves the job to dlq with error_code NO_ACK.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.db.models import RecognitionJob, utcnow
from services.arm_core.db.transitions import (
    claim_due_republish,
    claim_next_queued,
    mark_published,
    mark_republished,
    move_unacked_to_dlq,
    reject_queued,
)
from services.arm_core.exceptions import PublishFailed
from services.arm_core.jobs._contract import request_problems
from services.arm_core.settings import CoreSettings
from services.runtime.ids import msg_id

__all__ = [
    "REQUEST_INVALID",
    "REQUEST_SCHEMA_VERSION",
    "OutboxRelay",
    "RelayPass",
    "RequestPublisher",
    "format_deadline",
    "request_body",
]

REQUEST_SCHEMA_VERSION = "1.0"
REQUEST_INVALID = "REQUEST_INVALID"
"""error_code of a job for which the core could not build a request passing the schema."""

RequestPublisher = Callable[[dict[str, Any], str, str], Awaitable[None]]
"""`publish(body, subject, nats_msg_id)`; raises `PublishFailed` when the message did not leave."""

log = logging.getLogger("services.arm_core.jobs.relay")


def format_deadline(value: dt.datetime) -> str:
    """UTC ISO 8601 with milliseconds and `Z` (what goes into `reply_deadline`)."""
    return value.astimezone(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _truncate_ms(value: dt.datetime) -> dt.datetime:
    # The stored deadline must print exactly as the published one, for identical republishes.
    return value.replace(microsecond=value.microsecond // 1000 * 1000)


def request_body(job: RecognitionJob, reply_deadline: dt.datetime) -> dict[str, Any]:
    """The request message (v1.0) of a job; its `file` relationship must be loaded."""
    file = job.file
    return {
        "schema_version": REQUEST_SCHEMA_VERSION,
        "job_id": str(job.id),
        "file_id": str(file.id),
        "pipeline": job.pipeline,
        "file_type": file.file_type,
        "original_name": file.original_name,
        "s3": {"bucket": file.s3_bucket, "key": file.s3_key},
        "reply_deadline": format_deadline(reply_deadline),
        "attempt": job.attempt,
    }


@dataclass(slots=True)
class RelayPass:
    """What one pass of the relay did."""

    published: int = 0
    republished: int = 0
    dead_lettered: int = 0
    rejected: int = 0
    publish_failed: bool = False


class OutboxRelay:
    """Moves jobs queued → published, republishes unacked ones and dead-letters the rest."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        settings: CoreSettings,
        publish: RequestPublisher,
        *,
        clock: Callable[[], dt.datetime] = utcnow,
    ) -> None:
        self._sessions = sessions
        self._settings = settings
        self._publish = publish
        self._clock = clock
        self._failing = False

    def _next_attempt(self, published_at: dt.datetime) -> dt.datetime:
        """When a request published at `published_at` is republished if no ack came."""
        return published_at + self._settings.ack_timeout

    async def run_pass(self) -> RelayPass:
        """One pass: publish queued jobs, republish overdue ones, dead-letter exhausted ones."""
        outcome = RelayPass()
        try:
            await self._publish_queued(outcome)
            await self._republish_due(outcome)
        except PublishFailed as exc:
            outcome.publish_failed = True
            # Once per outage, not once per poll: NATS may be down for a while.
            level = logging.DEBUG if self._failing else logging.WARNING
            log.log(level, "relay pass stopped: %s; the job stays for the next pass", exc)
        self._failing = outcome.publish_failed
        async with self._sessions() as session, session.begin():
            outcome.dead_lettered = await move_unacked_to_dlq(
                session, now=self._clock(), max_republish=self._settings.outbox_max_republish
            )
        if outcome.dead_lettered:
            log.warning("%d job(s) moved to dlq: no ack (NO_ACK)", outcome.dead_lettered)
        return outcome

    async def _publish_queued(self, outcome: RelayPass) -> None:
        for _ in range(self._settings.relay_batch_size):
            async with self._sessions() as session, session.begin():
                job = await claim_next_queued(session)
                if job is None:
                    return
                now = self._clock()
                deadline = _truncate_ms(now + self._settings.reply_budget(job.pipeline))
                body = request_body(job, deadline)
                problems = request_problems(body)
                if problems:
                    await reject_queued(
                        session,
                        job,
                        error_code=REQUEST_INVALID,
                        message="; ".join(problems)[:2000],
                        now=now,
                    )
                    outcome.rejected += 1
                    log.error("job %s: request fails the schema: %s", job.id, problems)
                    continue
                subject = self._settings.request_subject(job.pipeline)
                mid = msg_id("request", job.id, job.attempt)
                await self._publish(body, subject, mid)
                await mark_published(
                    session,
                    job,
                    subject=subject,
                    msg_id=mid,
                    reply_deadline=deadline,
                    now=now,
                    next_attempt_at=self._next_attempt(now),
                )
            outcome.published += 1
            log.info("job %s published to %s (Nats-Msg-Id %s)", job.id, subject, mid)

    async def _republish_due(self, outcome: RelayPass) -> None:
        for _ in range(self._settings.relay_batch_size):
            async with self._sessions() as session, session.begin():
                now = self._clock()
                job = await claim_due_republish(
                    session, now=now, max_republish=self._settings.outbox_max_republish
                )
                if job is None:
                    return
                deadline = job.reply_deadline or _truncate_ms(
                    now + self._settings.reply_budget(job.pipeline)
                )
                subject = job.request_subject or self._settings.request_subject(job.pipeline)
                mid = job.request_msg_id or msg_id("request", job.id, job.attempt)
                await self._publish(request_body(job, deadline), subject, mid)
                await mark_republished(
                    session, job, now=now, next_attempt_at=self._next_attempt(now)
                )
            outcome.republished += 1
            log.info(
                "job %s republished (%d/%d) without an ack (Nats-Msg-Id %s)",
                job.id,
                job.republish_count + 1,
                self._settings.outbox_max_republish,
                mid,
            )
