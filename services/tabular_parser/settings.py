"""tabular-parser settings: the shared base plus the knobs of this service.

Knobs keep plain environment names like the spec's own (`PUBLISH_RETRIES`):
`JOBS_IN_FLIGHT` (requests handled at once: the subscriber's max_workers; a job waiting for a
worker process still counts), `PARSE_WORKERS` (worker processes that recognise; keep it below
JOBS_IN_FLIGHT so that new requests are acked while every worker is busy),
`MAX_OBJECT_BYTES` (the largest upload read from S3; up to JOBS_IN_FLIGHT of them are held),
`SEEN_JOBS_MAX` / `SEEN_JOBS_MAX_AGE_SECONDS` (the bounded memory of finished jobs used to
answer repeats), `PARSE_TIMEOUT_SECONDS`, `PARSE_MEMORY_MB`, `PARSE_MAX_TASKS_PER_CHILD`
(the sandbox of one recognition), `PARSE_NICE` (added to the worker processes' CPU nice value,
so that acks are not held back when every core is parsing), `GRACEFUL_TIMEOUT_SECONDS` (how long SIGTERM waits for jobs
in flight).
"""

from __future__ import annotations

from pydantic import AliasChoices, Field

from services.runtime.settings import Settings

__all__ = ["TabularParserSettings"]


def _env(name: str) -> AliasChoices:
    return AliasChoices(name, name.lower())


class TabularParserSettings(Settings):
    """Settings of the tabular-parser service."""

    jobs_in_flight: int = Field(8, ge=1, le=256, validation_alias=_env("JOBS_IN_FLIGHT"))
    parse_workers: int = Field(2, ge=1, le=64, validation_alias=_env("PARSE_WORKERS"))
    max_object_bytes: int = Field(
        100 * 1024 * 1024, ge=1, validation_alias=_env("MAX_OBJECT_BYTES")
    )
    seen_jobs_max: int = Field(10_000, ge=0, validation_alias=_env("SEEN_JOBS_MAX"))
    seen_jobs_max_age_seconds: float = Field(
        24 * 3600.0, ge=0, validation_alias=_env("SEEN_JOBS_MAX_AGE_SECONDS")
    )
    parse_timeout_seconds: float = Field(
        120.0, gt=0, validation_alias=_env("PARSE_TIMEOUT_SECONDS")
    )
    parse_memory_mb: int = Field(2048, ge=64, validation_alias=_env("PARSE_MEMORY_MB"))
    parse_max_tasks_per_child: int = Field(
        50, ge=1, validation_alias=_env("PARSE_MAX_TASKS_PER_CHILD")
    )
    parse_nice: int = Field(10, ge=0, le=19, validation_alias=_env("PARSE_NICE"))
    graceful_timeout_seconds: float = Field(
        15.0, ge=0, validation_alias=_env("GRACEFUL_TIMEOUT_SECONDS")
    )
