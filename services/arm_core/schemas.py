"""Shapes of the REST API's answers (they also make the OpenAPI document)."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from services.arm_core.db.models import RecognitionJob, StoredFile

__all__ = ["FileOut", "FilePage", "JobOut", "S3Location", "UploadOut"]


class S3Location(BaseModel):
    """Where an object lies."""

    bucket: str
    key: str


class JobOut(BaseModel):
    """A recognition job as the API shows it."""

    model_config = ConfigDict(from_attributes=True)

    job_id: uuid.UUID
    file_id: uuid.UUID
    status: str
    attempt: int
    pipeline: str
    error_code: str | None = None
    error_message: str | None = None
    request_subject: str | None = None
    request_msg_id: str | None = None
    result_msg_id: str | None = None
    republish_count: int = 0
    metrics: dict[str, Any] | None = None
    service_name: str | None = None
    service_version: str | None = None
    group_schema: str | None = None
    statements_version: str | None = None
    reply_deadline: dt.datetime | None = None
    published_at: dt.datetime | None = None
    started_at: dt.datetime | None = None
    finished_at: dt.datetime | None = None
    created_at: dt.datetime
    updated_at: dt.datetime

    @classmethod
    def of(cls, job: RecognitionJob) -> JobOut:
        """The API view of a job row."""
        return cls(
            job_id=job.id,
            file_id=job.file_id,
            status=job.status,
            attempt=job.attempt,
            pipeline=job.pipeline,
            error_code=job.error_code,
            error_message=job.error_message,
            request_subject=job.request_subject,
            request_msg_id=job.request_msg_id,
            result_msg_id=job.result_msg_id,
            republish_count=job.republish_count,
            metrics=job.metrics,
            service_name=job.service_name,
            service_version=job.service_version,
            group_schema=job.group_schema,
            statements_version=job.statements_version,
            reply_deadline=job.reply_deadline,
            published_at=job.published_at,
            started_at=job.started_at,
            finished_at=job.finished_at,
            created_at=job.created_at,
            updated_at=job.updated_at,
        )


class FileOut(BaseModel):
    """A stored file and its jobs, oldest attempt first."""

    file_id: uuid.UUID
    original_name: str
    file_type: str
    size: int
    sha256: str
    content_type: str
    s3: S3Location
    created_at: dt.datetime
    jobs: list[JobOut] = Field(default_factory=list)

    @classmethod
    def of(cls, file: StoredFile, jobs: list[RecognitionJob]) -> FileOut:
        """The API view of a file row and its jobs."""
        return cls(
            file_id=file.id,
            original_name=file.original_name,
            file_type=file.file_type,
            size=file.size,
            sha256=file.sha256,
            content_type=file.content_type,
            s3=S3Location(bucket=file.s3_bucket, key=file.s3_key),
            created_at=file.created_at,
            jobs=[JobOut.of(job) for job in sorted(jobs, key=lambda j: j.attempt)],
        )


class FilePage(BaseModel):
    """One page of files, newest first."""

    items: list[FileOut]
    total: int
    limit: int
    offset: int


class UploadOut(BaseModel):
    """The answer to an upload: the stored file and its queued job."""

    file_id: uuid.UUID
    job_id: uuid.UUID
    status: str
    attempt: int
    pipeline: str
    file_type: str
    original_name: str
    size: int
    sha256: str
    content_type: str
    s3: S3Location
