"""Migrations: the CLI applies them, and they build exactly the schema the models declare."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy.engine import Connection

from services.arm_core.db import Base, create_engine

pytestmark = pytest.mark.db

REPO = Path(__file__).resolve().parents[3]


def test_migrate_command_creates_the_tables(tmp_path: Path) -> None:
    """`python -m services.arm_core migrate` upgrades the configured database to head."""
    db = tmp_path / "cli.sqlite3"
    env = {**os.environ, "OPENBAO__DB__DB_URL": f"sqlite+aiosqlite:///{db}"}
    done = subprocess.run(
        [sys.executable, "-m", "services.arm_core", "migrate"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(db) as conn:
        tables = {
            row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }
        version = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    assert {
        "stored_file",
        "recognition_job",
        "document",
        "statement_column",
        "statement_line",
        "statement_value",
        "osv_row",
        "document_issue",
        "alembic_version",
    } <= tables
    assert version == ("0004",)


def _diff(connection: Connection) -> list[Any]:
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    return list(compare_metadata(context, Base.metadata))


async def test_migrated_schema_matches_the_models(core_db_url: str) -> None:
    """Autogenerate finds nothing to change between the migrated database and the models."""
    engine = create_engine(core_db_url)
    try:
        async with engine.connect() as conn:
            diff = await conn.run_sync(_diff)
    finally:
        await engine.dispose()
    assert diff == []
