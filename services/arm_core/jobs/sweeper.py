"""The deadline sweeper: a job with no final result by its reply_deadline ends in `timeout`.

This is how a lost result is noticed (core NATS has no redelivery: a result published into a
connection that dies with its NATS node can vanish). The job itself always ends `timeout`, as
spec 001 demands; with `TIMEOUT_NEW_ATTEMPT` (on by default, decision 0014) the file then gets
one automatic new attempt, so a lost result costs time, not an analyst's work. One guarded
UPDATE per pass, safe to run on every core replica at once: each expired row is returned to
one sweeper only, which alone queues its new attempt.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.db.models import utcnow
from services.arm_core.db.transitions import expire_overdue_jobs, queue_attempt_after_timeout

__all__ = ["DeadlineSweeper"]

log = logging.getLogger("services.arm_core.jobs.sweeper")


class DeadlineSweeper:
    """Moves published / processing jobs past their reply_deadline to timeout and, when
    `new_attempt`, queues the file's one automatic new attempt (`on_queued` wakes the relay)."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        clock: Callable[[], dt.datetime] = utcnow,
        new_attempt: bool = False,
        on_queued: Callable[[], None] | None = None,
    ) -> None:
        self._sessions = sessions
        self._clock = clock
        self._new_attempt = new_attempt
        self._on_queued = on_queued

    async def run_pass(self) -> int:
        """Expire every overdue job now; returns how many moved."""
        now = self._clock()
        queued = 0
        async with self._sessions() as session, session.begin():
            expired = await expire_overdue_jobs(session, now=now)
            for job in expired:
                again = (
                    await queue_attempt_after_timeout(session, job, now=now)
                    if self._new_attempt
                    else None
                )
                if again is None:
                    log.warning(
                        "job %s attempt %d timed out: no result before reply_deadline",
                        job.job_id,
                        job.attempt,
                    )
                else:
                    queued += 1
                    log.warning(
                        "job %s attempt %d timed out: no result before reply_deadline; "
                        "new attempt %d queued as job %s",
                        job.job_id,
                        job.attempt,
                        again.attempt,
                        again.id,
                    )
        if queued and self._on_queued is not None:
            self._on_queued()
        return len(expired)
