"""Alembic environment: runs on the connection `services.arm_core.db.migrate` hands in.

Run standalone (`alembic -x url=...`) it opens its own async engine.
"""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection

from services.arm_core.db.engine import create_engine
from services.arm_core.db.models import Base

target_metadata = Base.metadata


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def _run_standalone(url: str) -> None:
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(_run)
    finally:
        await engine.dispose()


def _main() -> None:
    connection = context.config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = context.get_x_argument(as_dictionary=True).get("url") or context.config.get_main_option(
        "sqlalchemy.url"
    )
    if not url:
        msg = "no database URL: pass -x url=... or set sqlalchemy.url"
        raise RuntimeError(msg)
    asyncio.run(_run_standalone(url))


if context.is_offline_mode():
    msg = "offline (SQL script) migrations are not supported"
    raise RuntimeError(msg)
_main()
