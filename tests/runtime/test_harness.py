"""The root harness itself: the servers answer and the database is the session's own."""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest
from sqlalchemy import inspect, text
from sqlalchemy.ext.asyncio import create_async_engine

from services.runtime.settings import Settings


def _project_tables() -> frozenset[str]:
    from services.arm_core.db.models import Base

    return frozenset(Base.metadata.tables) | {"alembic_version"}


_PROJECT_TABLES = _project_tables()


@pytest.mark.db
async def test_database_url_is_the_sessions_own_database(database_url: str) -> None:
    """The session database accepts a connection and holds nothing but this project's tables
    (SQLite by default, a fresh PostgreSQL database when ARM_TEST_DATABASE_URL is set): other
    tests of the session may have migrated it already, nothing else may have written to it."""
    if os.environ.get("ARM_TEST_DATABASE_URL", "").startswith("postgresql"):
        assert "/arm_ka_test_" in database_url
    engine = create_async_engine(database_url)
    try:
        async with engine.connect() as conn:
            assert (await conn.execute(text("select 1"))).scalar() == 1
            tables = await conn.run_sync(lambda sync: inspect(sync).get_table_names())
        foreign = [t for t in tables if t not in _PROJECT_TABLES]
        assert foreign == []
    finally:
        await engine.dispose()


@pytest.mark.wire
def test_make_settings_points_at_the_harness_servers(
    make_settings: Callable[..., Settings], nats_url: str, s3_endpoint: str
) -> None:
    """Settings from the harness reach the session's NATS and S3, and overrides merge."""
    settings = make_settings(nats={"nats_result_subject": "harness.result"})
    assert settings.nats.servers == [nats_url]
    assert settings.s3.s3_endpoint_url == s3_endpoint
    assert settings.nats.nats_result_subject == "harness.result"


def test_unique_subject_is_unique_and_valid(unique_subject: Callable[[str], str]) -> None:
    """Two calls never collide and both pass the subject rules."""
    from services.runtime.settings import validate_subjects

    a, b = unique_subject("files.x"), unique_subject("files.x")
    assert a != b and a.startswith("files.x.")
    validate_subjects({"A": a, "B": b})
