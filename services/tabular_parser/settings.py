"""tabular-parser settings: the shared base plus the knobs of this service.

Knobs keep plain environment names like the spec's own (`PUBLISH_RETRIES`):
`JOBS_IN_FLIGHT` (jobs worked on at once; a job waiting for a worker process still counts;
requests are acked on arrival whatever it is), `BACKLOG_MAX` (acked jobs waiting for a slot),
`MAX_OBJECT_BYTES` (the largest upload read from S3; up to JOBS_IN_FLIGHT of them are held),
`SEEN_JOBS_MAX` / `SEEN_JOBS_MAX_AGE_SECONDS` (the bounded memory of finished jobs used to
answer repeats), `GRACEFUL_TIMEOUT_SECONDS` (how long SIGTERM waits for jobs in flight).
The worker processes that recognise are the group `pool` (`ParsePool`): `PARSE_WORKERS`,
`PARSE_TIMEOUT_SECONDS`, `PARSE_MEMORY_MB`, `PARSE_MAX_TASKS_PER_CHILD` (the sandbox of one
recognition) and `PARSE_NICE` (added to the worker processes' CPU nice value, so that acks are
not held back when every core is parsing).
"""

from __future__ import annotations

from pydantic import Field

from services.runtime.settings import RecognitionServiceSettings, plain_env
from services.runtime.worker_pool import WorkerPoolSettings

__all__ = ["ParsePool", "TabularParserSettings"]


class ParsePool(WorkerPoolSettings):
    """`PARSE_*`: the worker processes that read workbooks."""

    workers: int = Field(2, ge=1, le=64, validation_alias=plain_env("PARSE_WORKERS"))
    timeout_seconds: float = Field(120.0, gt=0, validation_alias=plain_env("PARSE_TIMEOUT_SECONDS"))
    memory_mb: int = Field(2048, ge=64, validation_alias=plain_env("PARSE_MEMORY_MB"))
    max_tasks_per_child: int = Field(
        50, ge=1, validation_alias=plain_env("PARSE_MAX_TASKS_PER_CHILD")
    )
    nice: int = Field(10, ge=0, le=19, validation_alias=plain_env("PARSE_NICE"))


class TabularParserSettings(RecognitionServiceSettings):
    """Settings of the tabular-parser service."""

    pool: ParsePool = ParsePool()
