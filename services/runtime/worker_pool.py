"""A recognition service's pool of worker processes: its settings group and what is built on it.

Both recognition services run their recogniser in sandboxed worker processes with the same five
knobs (how many, how long, how much memory, tasks per child, CPU niceness). They are one nested
group, `settings.pool`, whose fields keep each service's plain environment names
(`PARSE_WORKERS`, `OCR_MEMORY_MB`…): a service subclasses `WorkerPoolSettings`, redeclaring the
fields with its defaults and `validation_alias=plain_env(...)`, and `PlainGroupSource` reads those
names from the environment into the group (pydantic-settings reads a nested group only as
`OPENBAO__POOL__…`).

`BuiltRecognizer` is what a service's `build_recognizer(settings, …)` returns: the recogniser and
the resources it runs on, which the service app enters and closes with the service and a local
parse around one file.
"""

from __future__ import annotations

import os
from contextlib import AbstractAsyncContextManager
from typing import Any, NamedTuple

from pydantic import AliasChoices, BaseModel, ConfigDict, Field
from pydantic.fields import FieldInfo
from pydantic_settings import PydanticBaseSettingsSource

from services.runtime.recognizer import Recognizer
from services.runtime.sandbox import Sandbox, SandboxSettings

__all__ = ["BuiltRecognizer", "PlainGroupSource", "WorkerPoolSettings", "pool_for"]

_MB = 1024 * 1024


class WorkerPoolSettings(BaseModel):
    """The worker processes of a recogniser (a service narrows the defaults and names)."""

    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True)

    workers: int = Field(2, ge=1, le=64)
    timeout_seconds: float = Field(120.0, gt=0)
    memory_mb: int = Field(2048, ge=64)
    max_tasks_per_child: int = Field(50, ge=1)
    nice: int = Field(0, ge=0, le=19)

    def sandbox(self, *, workers: int | None = None) -> SandboxSettings:
        """The sandbox of these limits; `workers` replaces the pool's size (a capped service,
        a local parse of one file)."""
        return SandboxSettings(
            workers=self.workers if workers is None else workers,
            memory_limit_bytes=self.memory_mb * _MB,
            timeout_seconds=self.timeout_seconds,
            max_tasks_per_child=self.max_tasks_per_child,
            niceness=self.nice,
        )


def pool_for(pool: WorkerPoolSettings, jobs_in_flight: int, workers: int | None) -> Sandbox:
    """A recognition service's sandbox: `workers` processes when given (a local parse of N files
    at once), else the pool's size capped by JOBS_IN_FLIGHT, since no more files than that are
    ever recognised at once."""
    size = workers if workers is not None else min(pool.workers, jobs_in_flight)
    return Sandbox(pool.sandbox(workers=size))


class PlainGroupSource(PydanticBaseSettingsSource):
    """Every `WorkerPoolSettings` field of the settings class, read from its plain environment
    name (case-insensitive, as the other settings are). Values are keyed by field name, so an
    explicit argument (`pool={"workers": 1}`) still wins over the environment."""

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False  # unused: __call__ reads whole groups

    def __call__(self) -> dict[str, Any]:
        environ = {key.upper(): value for key, value in os.environ.items()}
        found: dict[str, Any] = {}
        for name, field in self.settings_cls.model_fields.items():
            group = field.annotation
            if not (isinstance(group, type) and issubclass(group, WorkerPoolSettings)):
                continue
            values = {
                key: environ[alias]
                for key, knob in group.model_fields.items()
                for alias in _plain_names(knob)[:1]
                if alias in environ
            }
            if values:
                found[name] = values
        return found


def _plain_names(field: FieldInfo) -> list[str]:
    alias = field.validation_alias
    if isinstance(alias, str):
        return [alias.upper()]
    if isinstance(alias, AliasChoices):
        return [choice.upper() for choice in alias.choices if isinstance(choice, str)]
    return []


class BuiltRecognizer(NamedTuple):
    """A service's recogniser and the resources it runs on (worker pools, HTTP clients), to be
    entered before the first job and closed after the last."""

    recognizer: Recognizer
    resources: tuple[AbstractAsyncContextManager[Any], ...]
