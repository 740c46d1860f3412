"""The deadline sweeper: a job with no final result by its reply_deadline ends in `timeout`.

This is how a lost result is noticed (core NATS has no redelivery). One guarded UPDATE per pass,
safe to run on every core replica at once.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.db.models import utcnow
from services.arm_core.db.transitions import expire_overdue

__all__ = ["DeadlineSweeper"]

log = logging.getLogger("services.arm_core.sweeper")


class DeadlineSweeper:
    """Moves published / processing jobs past their reply_deadline to timeout."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        clock: Callable[[], dt.datetime] = utcnow,
    ) -> None:
        self._sessions = sessions
        self._clock = clock

    async def run_pass(self) -> int:
        """Expire every overdue job now; returns how many moved."""
        async with self._sessions() as session, session.begin():
            expired = await expire_overdue(session, now=self._clock())
        if expired:
            log.warning("%d job(s) timed out: no result before reply_deadline", expired)
        return expired
