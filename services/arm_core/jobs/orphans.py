"""Uploads no row points to, found and removed.

An upload is written to S3 before its row commits (jobs/uploads.py): a core killed between
the two (SIGKILL, a node lost) leaves `uploads/<file_id>/…` objects nobody can reach or
delete through the API. `OrphanSweeper.run_pass` (a periodic task of the app, every
ORPHAN_SWEEP_INTERVAL_SECONDS) lists the uploads prefix and deletes the objects of every file
id without a `files` row, once they are older than ORPHAN_GRACE_SECONDS (an upload in
flight, whose row is about to commit, is left alone).
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.db.models import StoredFile
from services.runtime.storage import S3Storage

__all__ = ["UPLOADS_PREFIX", "OrphanSweeper"]

UPLOADS_PREFIX = "uploads/"

log = logging.getLogger("services.arm_core.jobs.orphans")


class OrphanSweeper:
    """Deletes the upload objects of file ids without a row (see the module)."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        storage: S3Storage,
        *,
        bucket: str,
        grace: dt.timedelta,
    ) -> None:
        self._sessions = sessions
        self._storage = storage
        self._bucket = bucket
        self._grace = grace

    async def run_pass(self) -> int:
        """One sweep; the number of objects deleted."""
        cutoff = dt.datetime.now(dt.UTC) - self._grace
        candidates: dict[uuid.UUID, list[str]] = {}
        for key, modified in await self._objects():
            file_id = _file_id(key)
            if file_id is not None and modified < cutoff:
                candidates.setdefault(file_id, []).append(key)
        if not candidates:
            return 0
        known: set[uuid.UUID] = set()
        async with self._sessions() as session:
            ids = list(candidates)
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                rows = await session.execute(select(StoredFile.id).where(StoredFile.id.in_(chunk)))
                known.update(rows.scalars())
        deleted = 0
        for file_id, keys in candidates.items():
            if file_id in known:
                continue
            for key in keys:
                await self._storage.delete(self._bucket, key)
                deleted += 1
            log.warning(
                "removed the upload of %s: no row points to it (%d objects)", file_id, len(keys)
            )
        return deleted

    async def _objects(self) -> list[tuple[str, dt.datetime]]:
        found: list[tuple[str, dt.datetime]] = []
        paginator = self._storage.client.get_paginator("list_objects_v2")
        async for page in paginator.paginate(Bucket=self._bucket, Prefix=UPLOADS_PREFIX):
            items: list[dict[str, Any]] = page.get("Contents", [])
            found.extend((item["Key"], item["LastModified"]) for item in items)
        return found


def _file_id(key: str) -> uuid.UUID | None:
    parts = key.split("/")
    if len(parts) < 3:
        return None
    try:
        return uuid.UUID(parts[1])
    except ValueError:
        return None
