"""Engine and session factory for PostgreSQL (asyncpg) and SQLite (aiosqlite).

SQLite is the embedded default: WAL so readers never block the single writer, a busy timeout
so a second writer waits instead of failing, and foreign keys switched on (they are off by
default there).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

__all__ = ["create_engine", "create_session_factory", "is_database_locked", "is_sqlite"]


def is_sqlite(url: str) -> bool:
    """True when the URL names a SQLite database (the single-writer backend)."""
    return make_url(url).get_backend_name() == "sqlite"


def create_engine(url: str, *, echo: bool = False) -> AsyncEngine:
    """An async engine for `url`; creates the folder of a SQLite file if needed."""
    parsed = make_url(url)
    kwargs: dict[str, Any] = {"echo": echo}
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database or ""
        if database and database != ":memory:" and not database.startswith("file:"):
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        kwargs["connect_args"] = {"timeout": 30}
    else:
        kwargs["pool_pre_ping"] = True
    engine = create_async_engine(parsed, **kwargs)
    if parsed.get_backend_name() == "sqlite":
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
    return engine


def is_database_locked(exc: BaseException) -> bool:
    """True for SQLite's «database is locked» (a writer held the lock past the busy timeout):
    a transient state the next pass retries, not a failure worth a traceback."""
    return isinstance(exc, OperationalError) and "database is locked" in str(exc.orig)


def create_session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """Sessions that keep loaded attributes after commit (handlers read them afterwards)."""
    return async_sessionmaker(engine, expire_on_commit=False)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA busy_timeout=30000")
    finally:
        cursor.close()
