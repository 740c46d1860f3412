"""The embedded SQLite under concurrent writers: WAL, a busy timeout, and a lock that a
background pass meets is a warning it retries, not an ERROR traceback."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from services.arm_core.db.engine import create_engine, create_session_factory, is_database_locked
from services.arm_core.jobs.periodic import PeriodicTask


async def test_sqlite_runs_in_wal_with_a_busy_timeout_and_writers_wait(tmp_path: Path) -> None:
    """Every connection is in WAL with busy_timeout ≥ 5 s, so 30 transactions that read and
    then write at once all commit (a writer waits for the lock instead of failing)."""
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'core.sqlite3'}")
    try:
        async with engine.begin() as connection:
            assert (await connection.execute(text("PRAGMA journal_mode"))).scalar() == "wal"
            timeout = (await connection.execute(text("PRAGMA busy_timeout"))).scalar()
            assert isinstance(timeout, int) and timeout >= 5000
            await connection.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY, v INT)"))
        sessions = create_session_factory(engine)

        async def writer(value: int) -> None:
            async with sessions() as session, session.begin():
                await session.execute(text("SELECT count(*) FROM t"))
                await asyncio.sleep(0.01)
                await session.execute(text("INSERT INTO t (v) VALUES (:v)"), {"v": value})
                await asyncio.sleep(0.01)

        await asyncio.gather(*(writer(i) for i in range(30)))
        async with engine.connect() as connection:
            assert (await connection.execute(text("SELECT count(*) FROM t"))).scalar() == 30
    finally:
        await engine.dispose()


def _locked() -> OperationalError:
    return OperationalError("INSERT …", {}, Exception("database is locked"))


async def test_a_locked_database_is_a_warning_the_next_pass_retries(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A pass that meets «database is locked» is logged as a WARNING without a traceback and
    the loop runs the next pass; any other failure is still an ERROR with its traceback."""
    failures: list[Exception] = [_locked(), RuntimeError("boom")]
    passes = 0
    done = asyncio.Event()

    async def step() -> None:
        nonlocal passes
        passes += 1
        if failures:
            raise failures.pop(0)
        done.set()

    logger = logging.getLogger("tests.sqlite_locks")
    task = PeriodicTask("relay", step, 0.01, logger=logger)
    with caplog.at_level(logging.INFO, logger="tests.sqlite_locks"):
        task.start()
        await asyncio.wait_for(done.wait(), timeout=5)
        await task.stop()
    records = [r for r in caplog.records if r.name == "tests.sqlite_locks"]
    assert [(r.levelno, r.exc_info is not None) for r in records] == [
        (logging.WARNING, False),
        (logging.ERROR, True),
    ]
    assert "database is locked" in records[0].getMessage()
    assert passes == 3
    assert is_database_locked(_locked()) and not is_database_locked(RuntimeError("locked"))
