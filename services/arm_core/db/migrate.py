"""Apply the Alembic migrations that ship inside the package.

`migrate(url)` is what `python -m services.arm_core migrate` and the app start (embedded SQLite)
call; it runs Alembic on a connection of our own async engine, so no `alembic.ini` is needed.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy.engine import Connection

from services.arm_core.db.engine import create_engine

__all__ = ["MIGRATIONS_DIR", "alembic_config", "migrate"]

MIGRATIONS_DIR = Path(__file__).with_name("migrations")


def alembic_config(url: str | None = None) -> Config:
    """An Alembic config pointing at the packaged migrations (for tooling and tests)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if url is not None:
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


async def migrate(url: str, revision: str = "head") -> None:
    """Upgrade the database at `url` to `revision` (idempotent)."""
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(_upgrade, revision)
    finally:
        await engine.dispose()


def _upgrade(connection: Connection, revision: str) -> None:
    config = alembic_config()
    config.attributes["connection"] = connection
    command.upgrade(config, revision)
