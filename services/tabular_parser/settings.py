"""tabular-parser settings: the shared base plus the knobs of this service.

Knobs keep plain environment names like the spec's own (`PUBLISH_RETRIES`):
`JOBS_IN_FLIGHT` (jobs worked on at once; a job waiting for a worker process still counts;
requests are acked on arrival whatever it is), `BACKLOG_MAX` (acked jobs waiting for a slot),
`PARSE_WORKERS` (worker processes that recognise),
`MAX_OBJECT_BYTES` (the largest upload read from S3; up to JOBS_IN_FLIGHT of them are held),
`SEEN_JOBS_MAX` / `SEEN_JOBS_MAX_AGE_SECONDS` (the bounded memory of finished jobs used to
answer repeats), `PARSE_TIMEOUT_SECONDS`, `PARSE_MEMORY_MB`, `PARSE_MAX_TASKS_PER_CHILD`
(the sandbox of one recognition), `PARSE_NICE` (added to the worker processes' CPU nice value,
so that acks are not held back when every core is parsing), `GRACEFUL_TIMEOUT_SECONDS` (how long SIGTERM waits for jobs
in flight).
"""

from __future__ import annotations

from pydantic import Field

from services.runtime.settings import RecognitionServiceSettings, plain_env

__all__ = ["TabularParserSettings"]


class TabularParserSettings(RecognitionServiceSettings):
    """Settings of the tabular-parser service."""

    parse_workers: int = Field(2, ge=1, le=64, validation_alias=plain_env("PARSE_WORKERS"))
    parse_timeout_seconds: float = Field(
        120.0, gt=0, validation_alias=plain_env("PARSE_TIMEOUT_SECONDS")
    )
    parse_memory_mb: int = Field(2048, ge=64, validation_alias=plain_env("PARSE_MEMORY_MB"))
    parse_max_tasks_per_child: int = Field(
        50, ge=1, validation_alias=plain_env("PARSE_MAX_TASKS_PER_CHILD")
    )
    parse_nice: int = Field(10, ge=0, le=19, validation_alias=plain_env("PARSE_NICE"))
