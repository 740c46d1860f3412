"""Deleting a stored file for good: its rows (file, jobs, documents) and its S3 objects.

One audited operation: inside one database transaction the file's jobs are checked (a job in
flight refuses the deletion with 409, since its service is reading the object), the rows are
deleted (the foreign keys cascade to jobs, documents and their parts), then every object under
`uploads/{file_id}/`, `results/{file_id}/` and `raw/{file_id}/` is removed, and only then is the
transaction committed. If S3 fails, the rows stay and the request can be repeated (deleting an
absent object is no error). The audit line names the file, what was removed, who (the
caller's subject) and from where (the client address).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import delete, func, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.db.documents import Document
from services.arm_core.db.models import ACTIVE_STATUSES, RecognitionJob, StoredFile
from services.arm_core.exceptions import JobInFlight, NotFound, Unavailable
from services.runtime.storage import S3Storage, StorageError

__all__ = ["Deleted", "FileRetention", "object_prefixes"]

audit = logging.getLogger("services.arm_core.audit")
log = logging.getLogger("services.arm_core.jobs.retention")


def object_prefixes(file_id: uuid.UUID) -> tuple[str, ...]:
    """Every S3 prefix under which objects of the file lie (upload, result files, raw sets)."""
    return (f"uploads/{file_id}/", f"results/{file_id}/", f"raw/{file_id}/")


@dataclass(frozen=True, slots=True)
class Deleted:
    """What a deletion removed."""

    file_id: uuid.UUID
    original_name: str
    jobs: int
    documents: int
    objects: int


class FileRetention:
    """Removes a file, its jobs, documents and S3 objects."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        storage: S3Storage,
        *,
        buckets: Iterable[str],
    ) -> None:
        self._sessions = sessions
        self._storage = storage
        self._buckets = tuple(dict.fromkeys(buckets))

    async def delete_file(
        self, file_id: uuid.UUID, *, actor: str, client: str | None = None
    ) -> Deleted:
        """Delete everything of `file_id`; `JobInFlight` while one of its jobs is in flight."""
        try:
            async with self._sessions() as session, session.begin():
                file = await session.scalar(
                    select(StoredFile).where(StoredFile.id == file_id).with_for_update()
                )
                if file is None:
                    raise NotFound("file", file_id)
                statuses = (
                    await session.scalars(
                        select(RecognitionJob.status).where(RecognitionJob.file_id == file_id)
                    )
                ).all()
                active = sorted({s for s in statuses if s in ACTIVE_STATUSES})
                if active:
                    raise JobInFlight(
                        f"file {file_id} has a job in status {', '.join(active)}; "
                        "delete it once the job has ended",
                    )
                documents = await session.scalar(
                    select(func.count()).select_from(Document).where(Document.file_id == file_id)
                )
                name = file.original_name
                await session.execute(delete(StoredFile).where(StoredFile.id == file_id))
                await session.flush()
                objects = await self._delete_objects(file_id, extra=(file.s3_bucket,))
        except SQLAlchemyError as exc:
            log.error("deleting file %s: database failure: %s", file_id, type(exc).__name__)
            raise Unavailable("the file could not be deleted; try again later") from exc
        deleted = Deleted(file_id, name, len(statuses), documents or 0, objects)
        audit.info(
            "file deleted: file_id=%s name=%r jobs=%d documents=%d objects=%d by=%s client=%s",
            file_id,
            name,
            deleted.jobs,
            deleted.documents,
            deleted.objects,
            actor,
            client or "unknown",
        )
        return deleted

    async def _delete_objects(self, file_id: uuid.UUID, *, extra: tuple[str, ...]) -> int:
        count = 0
        try:
            for bucket in dict.fromkeys((*self._buckets, *extra)):
                for prefix in object_prefixes(file_id):
                    for key in await self._keys(bucket, prefix):
                        await self._storage.delete(bucket, key)
                        count += 1
        except StorageError as exc:
            log.error("deleting file %s: S3 failure: %s", file_id, exc)
            raise Unavailable("the file's objects could not be deleted; try again later") from exc
        return count

    async def _keys(self, bucket: str, prefix: str) -> list[str]:
        keys: list[str] = []
        paginator = self._storage.client.get_paginator("list_objects_v2")
        try:
            async for page in paginator.paginate(Bucket=bucket, Prefix=prefix):
                keys.extend(item["Key"] for item in page.get("Contents", []))
        except Exception as exc:
            if _is_missing_bucket(exc):
                return []
            raise StorageError(f"could not list s3://{bucket}/{prefix}: {exc}") from exc
        return keys


def _is_missing_bucket(exc: Exception) -> bool:
    response = getattr(exc, "response", None)
    code = response.get("Error", {}).get("Code") if isinstance(response, dict) else None
    return code == "NoSuchBucket"
