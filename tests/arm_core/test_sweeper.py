"""The deadline sweeper: lost results end in timeout."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.db import JobStatus
from services.arm_core.sweeper import DeadlineSweeper
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
