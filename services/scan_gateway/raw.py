"""The raw result set in S3: `raw/{file_id}/{job_id}/<item>` plus a manifest, named by
`raw_s3_key` in the envelope, so an analyst can see what the scanning system returned; and the
evidence file beside the result (`services.scan_gateway.evidence`)."""

from __future__ import annotations

import logging
from typing import Any, Protocol

from services.runtime.recognizer import Job
from services.runtime.storage import StorageError
from services.scan_gateway.evidence import evidence_key
from services.scan_gateway.resultset import RawResultSet

__all__ = ["MANIFEST", "RawArchive", "RawStore", "raw_prefix"]

MANIFEST = "result-set.json"
log = logging.getLogger("services.scan_gateway.raw")


class RawStore(Protocol):
    """The part of `services.runtime.storage.S3Storage` the archive uses."""

    async def put_bytes(
        self, bucket: str, key: str, data: bytes, *, content_type: str = ...
    ) -> None: ...

    async def put_json(self, bucket: str, key: str, document: Any) -> None: ...


def raw_prefix(job: Job) -> str:
    return f"raw/{job.file_id}/{job.job_id}/"


class RawArchive:
    """Writes a result set next to the results (`bucket`, else the request's bucket)."""

    def __init__(self, storage: RawStore, bucket: str | None = None) -> None:
        self._storage = storage
        self._bucket = bucket

    async def store(self, job: Job, raw: RawResultSet) -> str | None:
        """The manifest's key, or None when S3 refused (logged; the job goes on without it)."""
        bucket = self._bucket or job.bucket
        prefix = raw_prefix(job)
        manifest = {
            "source": raw.source,
            "source_job_id": raw.source_job_id,
            "items": sorted(raw.items),
            "missing": list(raw.missing),
        }
        try:
            for name, data in sorted(raw.items.items()):
                await self._storage.put_bytes(
                    bucket, prefix + _safe(name), data, content_type="application/json"
                )
            await self._storage.put_json(bucket, prefix + MANIFEST, manifest)
        except StorageError as exc:
            log.error("job %s: raw result set not stored: %s", job.job_id, exc)
            return None
        return prefix + MANIFEST

    async def store_evidence(self, job: Job, evidence: dict[str, Any]) -> str | None:
        """The evidence file's key, or None when S3 refused (logged: the values then have no
        position, and the job goes on)."""
        key = evidence_key(job)
        try:
            await self._storage.put_json(self._bucket or job.bucket, key, evidence)
        except StorageError as exc:
            log.error("job %s: evidence not stored: %s", job.job_id, exc)
            return None
        return key


def _safe(name: str) -> str:
    """An item name as one key segment (no `/`, no `..`)."""
    cleaned = name.replace("/", "_").replace("\\", "_")
    return "_" + cleaned if cleaned in ("", ".", "..", MANIFEST) else cleaned
