"""ORM models of the core's own tables: stored files and recognition jobs.

`recognition_job` is also the transactional outbox: a `queued` row is a request waiting for
the relay. Timestamps are always timezone-aware UTC in Python, whatever the database stores.
"""

from __future__ import annotations

import datetime as dt
import uuid
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    TypeDecorator,
    Uuid,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

__all__ = [
    "ACTIVE_STATUSES",
    "FINAL_STATUSES",
    "Base",
    "Correction",
    "CorrectionKind",
    "JobStatus",
    "RecognitionJob",
    "StoredFile",
    "UtcDateTime",
    "utcnow",
]


def utcnow() -> dt.datetime:
    """The current time, aware, in UTC (the only clock the core uses)."""
    return dt.datetime.now(dt.UTC)


class UtcDateTime(TypeDecorator[dt.datetime]):
    """An aware UTC datetime on every backend.

    PostgreSQL keeps `timestamptz`; SQLite has no time zones, so the value is stored as naive
    UTC and made aware again on read. Comparisons in SQL stay correct on both.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: dt.datetime | None, dialect: Dialect) -> dt.datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            msg = "naive datetimes are not accepted; use an aware UTC datetime"
            raise ValueError(msg)
        value = value.astimezone(dt.UTC)
        if dialect.name == "sqlite":
            return value.replace(tzinfo=None)
        return value

    def process_result_value(
        self, value: dt.datetime | None, dialect: Dialect
    ) -> dt.datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=dt.UTC)
        return value.astimezone(dt.UTC)


class JobStatus(StrEnum):
    """States of a recognition job (DESIGN.md «arm-core»)."""

    QUEUED = "queued"
    PUBLISHED = "published"
    PROCESSING = "processing"
    DONE = "done"
    NEEDS_CHECK = "needs_check"
    ERROR = "error"
    TIMEOUT = "timeout"
    DLQ = "dlq"


ACTIVE_STATUSES: frozenset[JobStatus] = frozenset(
    {JobStatus.QUEUED, JobStatus.PUBLISHED, JobStatus.PROCESSING}
)
FINAL_STATUSES: frozenset[JobStatus] = frozenset(set(JobStatus) - ACTIVE_STATUSES)


class Base(DeclarativeBase):
    """Declarative base; the migrations, not `create_all`, own the schema."""

    type_annotation_map = {dt.datetime: UtcDateTime(), dict[str, Any]: JSON()}  # noqa: RUF012


class StoredFile(Base):
    """One upload, kept in S3 under a key the core built (never the client's name)."""

    __tablename__ = "stored_file"
    __table_args__ = (Index("ix_stored_file_created_at", "created_at"),)

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    original_name: Mapped[str] = mapped_column(String(512))
    file_type: Mapped[str] = mapped_column(String(8))
    size: Mapped[int] = mapped_column(BigInteger)
    sha256: Mapped[str] = mapped_column(String(64))
    content_type: Mapped[str] = mapped_column(String(255))
    s3_bucket: Mapped[str] = mapped_column(String(255))
    s3_key: Mapped[str] = mapped_column(String(1024))
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)

    jobs: Mapped[list[RecognitionJob]] = relationship(
        back_populates="file", order_by="RecognitionJob.attempt", lazy="raise"
    )


class RecognitionJob(Base):
    """One attempt at recognising a stored file; its own outbox row while `queued`."""

    __tablename__ = "recognition_job"
    __table_args__ = (
        Index("ix_recognition_job_status_next", "status", "next_attempt_at"),
        Index("ix_recognition_job_file_attempt", "file_id", "attempt", unique=True),
    )

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    file_id: Mapped[uuid.UUID] = mapped_column(
        Uuid, ForeignKey("stored_file.id", ondelete="CASCADE")
    )
    pipeline: Mapped[str] = mapped_column(String(16))
    attempt: Mapped[int] = mapped_column(Integer, default=1)
    status: Mapped[str] = mapped_column(String(16), default=JobStatus.QUEUED.value)
    request_subject: Mapped[str | None] = mapped_column(String(255))
    request_msg_id: Mapped[str | None] = mapped_column(String(128))
    result_msg_id: Mapped[str | None] = mapped_column(String(128))
    published_at: Mapped[dt.datetime | None]
    started_at: Mapped[dt.datetime | None]
    finished_at: Mapped[dt.datetime | None]
    service_name: Mapped[str | None] = mapped_column(String(128))
    service_version: Mapped[str | None] = mapped_column(String(64))
    reply_deadline: Mapped[dt.datetime | None]
    error_code: Mapped[str | None] = mapped_column(String(64))
    error_message: Mapped[str | None] = mapped_column(Text)
    metrics: Mapped[dict[str, Any] | None]
    group_schema: Mapped[str | None] = mapped_column(String(16))
    statements_version: Mapped[str | None] = mapped_column(String(64))
    republish_count: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    last_published_at: Mapped[dt.datetime | None]
    next_attempt_at: Mapped[dt.datetime | None]
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(default=utcnow, onupdate=utcnow)

    file: Mapped[StoredFile] = relationship(back_populates="jobs", lazy="raise")


class CorrectionKind(StrEnum):
    """What an analyst changed in a recognised document."""

    VALUE = "value"
    LINE_CODE = "line_code"
    HEADER = "header"
    CONFIRM = "confirm"
    REVIEWED = "reviewed"


class Correction(Base):
    """One change an analyst made to a document: who, when, old and new.

    The recognised document is never overwritten; the corrected document is the recognised
    one with its corrections applied in order (services/arm_core/documents/corrections.py). `line` is
    the line's position in the document, `column_index` the value's column, `field` a header
    field. A `reviewed` row marks the document reviewed.
    """

    __tablename__ = "document_correction"
    __table_args__ = (Index("ix_document_correction_document", "document_id", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    document_id: Mapped[uuid.UUID] = mapped_column(
        Uuid, ForeignKey("document.id", ondelete="CASCADE")
    )
    kind: Mapped[str] = mapped_column(String(16))
    line: Mapped[int | None] = mapped_column(Integer)
    column_index: Mapped[int | None] = mapped_column(Integer)
    field: Mapped[str | None] = mapped_column(String(64))
    old_value: Mapped[str | None] = mapped_column(Text)
    new_value: Mapped[str | None] = mapped_column(Text)
    author: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
