"""arm-core's own knobs on top of the shared `Settings`.

Plain environment names, like the spec's tuning knobs: how long each pipeline gets to answer
(reply_deadline = publish time + budget), the upload size limit, and the relay's rhythm:
ACK_TIMEOUT_SECONDS and OUTBOX_MAX_REPUBLISH (spec 001) are the core's alone, since only its
relay republishes.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import Field

from services.runtime.settings import Settings, plain_env

__all__ = ["CoreSettings", "Pipeline"]

Pipeline = Literal["tabular", "image"]


class CoreSettings(Settings):
    """Settings of arm-core (`load_settings(CoreSettings)`)."""

    ack_timeout_seconds: float = Field(
        30.0, gt=0, validation_alias=plain_env("ACK_TIMEOUT_SECONDS")
    )
    outbox_max_republish: int = Field(3, ge=0, validation_alias=plain_env("OUTBOX_MAX_REPUBLISH"))

    tabular_reply_budget_seconds: float = Field(
        600.0, gt=0, validation_alias=plain_env("TABULAR_REPLY_BUDGET_SECONDS")
    )
    image_reply_budget_seconds: float = Field(
        1800.0, gt=0, validation_alias=plain_env("IMAGE_REPLY_BUDGET_SECONDS")
    )
    upload_max_bytes: int = Field(
        100 * 1024 * 1024, gt=0, validation_alias=plain_env("UPLOAD_MAX_BYTES")
    )
    result_max_bytes: int = Field(
        64 * 1024 * 1024, gt=0, validation_alias=plain_env("RESULT_MAX_BYTES")
    )
    relay_poll_interval_seconds: float = Field(
        0.5, gt=0, validation_alias=plain_env("RELAY_POLL_INTERVAL_SECONDS")
    )
    relay_batch_size: int = Field(100, gt=0, validation_alias=plain_env("RELAY_BATCH_SIZE"))
    # None: migrate at start only for SQLite (the embedded default); PostgreSQL is migrated
    # by `python -m services.arm_core migrate` as a deployment step.
    db_migrate_on_start: bool | None = Field(
        None, validation_alias=plain_env("DB_MIGRATE_ON_START")
    )

    def reply_budget(self, pipeline: str) -> dt.timedelta:
        """How long a service of `pipeline` has from publish to final result."""
        if pipeline == "tabular":
            return dt.timedelta(seconds=self.tabular_reply_budget_seconds)
        if pipeline == "image":
            return dt.timedelta(seconds=self.image_reply_budget_seconds)
        msg = f"unknown pipeline {pipeline!r}"
        raise ValueError(msg)

    def request_subject(self, pipeline: str) -> str:
        """The request subject of `pipeline` (the subject must match the pipeline)."""
        if pipeline == "tabular":
            return self.nats.nats_tabular_request_subject
        if pipeline == "image":
            return self.nats.nats_image_request_subject
        msg = f"unknown pipeline {pipeline!r}"
        raise ValueError(msg)

    @property
    def ack_timeout(self) -> dt.timedelta:
        """ACK_TIMEOUT_SECONDS as a timedelta."""
        return dt.timedelta(seconds=self.ack_timeout_seconds)
