"""The final-result handler: read the result file, validate it by its MAJOR, map it, store it.

Plugged into the intake as a `StagedFinalHandler`. For a done / needs_check envelope it reads
`result_s3` (size-capped), checks the file against the schema of its own MAJOR, that this MAJOR
is the envelope's `result_schema_version` MAJOR and that its job_id / file_id are the
envelope's, and maps it (1.x or 2.0), all before the intake's transaction opens, so that a slow
S3 holds no database connection. Then, in that transaction, it closes the job and stores the
documents. Any of these failing closes the job in error with the reason in
`metrics.mapping_error` (MAPPING_ERROR); a result file is never fetched twice.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import logging
import uuid
from collections.abc import Mapping
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from services.arm_core.db.models import ACTIVE_STATUSES, JobStatus, RecognitionJob
from services.arm_core.db.text import storable
from services.arm_core.db.transitions import accept_final
from services.arm_core.documents.glance import store_glances
from services.arm_core.documents.store import store_documents
from services.arm_core.exceptions import MappingError
from services.arm_core.jobs.intake import (
    MAPPING_ERROR,
    FinalResultHandler,
    close_in_error,
    service_values,
)
from services.arm_core.jobs.mapping import MappedResult, envelope_metrics, map_result
from services.contract import Kind, Registry, default_registry, parse_version
from services.runtime.storage import S3Storage, StorageError

__all__ = [
    "DEFAULT_RESULT_MAX_BYTES",
    "ResultFileHandler",
    "ResultReader",
    "S3ResultReader",
]

DEFAULT_RESULT_MAX_BYTES = 64 * 1024 * 1024
_MAX_REASON = 2000
_MAX_PROBLEMS = 20

log = logging.getLogger("services.arm_core.jobs.results")


class ResultReader(Protocol):
    """Where result files come from; raises MappingError when one cannot be read."""

    async def read(self, bucket: str, key: str) -> bytes: ...


class S3ResultReader:
    """Reads result files from S3 with a size cap; storage errors become MappingError."""

    def __init__(self, storage: S3Storage, *, max_bytes: int = DEFAULT_RESULT_MAX_BYTES) -> None:
        self._storage = storage
        self._max_bytes = max_bytes

    async def read(self, bucket: str, key: str) -> bytes:
        try:
            return await self._storage.get_bytes(bucket, key, self._max_bytes)
        except StorageError as exc:
            msg = f"the result file could not be read: {exc}"
            raise MappingError(msg) from exc


def _same_uuid(a: object, b: object) -> bool:
    try:
        return uuid.UUID(str(a)) == uuid.UUID(str(b))
    except ValueError:
        return False


class ResultFileHandler:
    """`StagedFinalHandler` that maps and stores the result file of a final envelope."""

    def __init__(self, reader: ResultReader, *, registry: Registry | None = None) -> None:
        self._reader = reader
        self._registry = registry or default_registry()

    async def prepare(self, envelope: dict[str, Any]) -> FinalResultHandler:
        """Read and map the result file (no database here); its closing step comes back."""
        try:
            return _LoadedResult(await self.load(envelope))
        except MappingError as exc:
            return _LoadedResult(exc)

    async def load(self, envelope: Mapping[str, Any]) -> MappedResult:
        """Read, check and map the result file of `envelope`; MappingError says why not."""
        location = envelope.get("result_s3")
        if not isinstance(location, Mapping):
            msg = "the envelope has no result_s3"
            raise MappingError(msg)
        data = await self._reader.read(str(location["bucket"]), str(location["key"]))
        # Parsing and validating a large file is CPU work: keep it off the event loop.
        return await asyncio.to_thread(self._map, data, envelope)

    def _map(self, data: bytes, envelope: Mapping[str, Any]) -> MappedResult:
        try:
            result = storable(json.loads(data)) if b"\\u0000" in data else json.loads(data)
        except (ValueError, UnicodeDecodeError) as exc:
            msg = "the result file is not JSON"
            raise MappingError(msg) from exc
        problems = self._registry.validate(Kind.RESULT, result)
        if problems:
            shown = "; ".join(str(p) for p in problems[:_MAX_PROBLEMS])
            msg = f"the result file fails its contract: {shown}"
            raise MappingError(msg)
        if not isinstance(result, dict):  # validate() reports it; this tells mypy
            msg = "the result file is not a JSON object"
            raise MappingError(msg)
        version = parse_version(result["schema_version"])
        expected = parse_version(envelope.get("result_schema_version"))
        if version is None or expected is None or version[0] != expected[0]:
            msg = (
                f"the result file is {result['schema_version']} but the envelope announced "
                f"{envelope.get('result_schema_version')!r}: the MAJORs differ"
            )
            raise MappingError(msg)
        for key in ("job_id", "file_id"):
            if not _same_uuid(result.get(key), envelope.get(key)):
                msg = f"the result file's {key} is not the envelope's"
                raise MappingError(msg)
        return map_result(result, envelope)


class _LoadedResult:
    """The closing step of one prepared result: a mapped file to store, or why it was refused."""

    def __init__(self, loaded: MappedResult | MappingError) -> None:
        self._loaded = loaded

    async def __call__(
        self,
        session: AsyncSession,
        job: RecognitionJob,
        envelope: dict[str, Any],
        *,
        result_msg_id: str | None,
        now: dt.datetime,
    ) -> bool:
        if job.status not in ACTIVE_STATUSES:
            return False  # final already: the guard would refuse
        mapped = self._loaded
        if isinstance(mapped, MappingError):
            return await _reject(session, job, envelope, mapped.reason, result_msg_id, now)
        moved = await accept_final(
            session,
            job.id,
            status=JobStatus(mapped.status),
            result_msg_id=result_msg_id,
            now=now,
            values={
                **service_values(job, envelope),
                "metrics": mapped.metrics,
                "group_schema": mapped.group_schema,
                "statements_version": mapped.statements_version,
            },
        )
        if moved:
            await store_glances(session, await store_documents(session, job, mapped))
            log.info(
                "job %s: result %s mapped, %d documents stored",
                job.id,
                mapped.schema_version,
                len(mapped.documents),
            )
        return moved


async def _reject(
    session: AsyncSession,
    job: RecognitionJob,
    envelope: Mapping[str, Any],
    reason: str,
    result_msg_id: str | None,
    now: dt.datetime,
) -> bool:
    reason = reason[:_MAX_REASON]
    log.warning("job %s: result file rejected: %s", job.id, reason)
    metrics = envelope_metrics(envelope.get("metrics")) or {}
    metrics.setdefault("warnings", [])
    metrics["mapping_error"] = reason
    return await close_in_error(
        session,
        job,
        code=MAPPING_ERROR,
        message="the result file was not accepted",
        result_msg_id=result_msg_id,
        now=now,
        values={**service_values(job, envelope), "metrics": metrics},
    )
