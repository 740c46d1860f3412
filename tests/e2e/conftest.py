"""Fixtures of the end-to-end tests: a fresh database per module beside the session's one.

Each module starts its own local stack (module scope) on that database, so stacks never see
each other's rows. PostgreSQL in CI (ARM_TEST_DATABASE_URL), SQLite otherwise.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.e2e._system import fresh_database


@pytest.fixture(scope="module")
async def e2e_db(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[str]:
    """A migrated database of the module's own (dropped after the module)."""
    async with fresh_database(database_url, tmp_path_factory.mktemp("e2e-db")) as url:
        yield url
