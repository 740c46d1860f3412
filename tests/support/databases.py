"""Scratch PostgreSQL databases: one per test session, end-to-end stack or benchmark run.

Each gets a database of its own on the server of a base URL, so parallel runs and stacks
never see each other's rows; it is dropped (FORCE: a stopped service may still hold a
connection) when the block ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from typing import Any

from sqlalchemy.engine import URL, make_url

__all__ = ["scratch_database"]


@contextlib.asynccontextmanager
async def scratch_database(
    base_url: str, prefix: str, *, connect_timeout: float | None = None
) -> AsyncIterator[str]:
    """The URL of a new, empty database `<prefix>_<random>` beside `base_url`; raises what
    asyncpg raises when the server cannot be reached (within `connect_timeout`, if given)."""
    import asyncpg

    base = make_url(base_url)
    connect = _admin(base)
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    admin = await asyncio.wait_for(asyncpg.connect(**connect), connect_timeout)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    try:
        yield base.set(database=name).render_as_string(hide_password=False)
    finally:
        admin = await asyncpg.connect(**connect)
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()


def _admin(url: URL) -> dict[str, Any]:
    """asyncpg's connection arguments for the base URL's own database (where CREATE runs)."""
    return {
        "host": url.host or "127.0.0.1",
        "port": url.port or 5432,
        "user": url.username or "postgres",
        "password": url.password,
        "database": url.database or "postgres",
    }
