"""Shapes of the REST API's answers (they also make the OpenAPI document)."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Sequence
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field

from services.arm_core.db.documents import DocumentGlance
from services.arm_core.db.models import RecognitionJob, StoredFile
from services.arm_core.documents.glance import Glanced, GlanceState

__all__ = [
    "API_PREFIX",
    "DocumentGlanceOut",
    "DocumentList",
    "DocumentOut",
    "DocumentStatusName",
    "DocumentSummary",
    "FileDeleted",
    "FileOut",
    "FilePage",
    "FileTypeName",
    "JobOut",
    "JobPage",
    "JobStatusName",
    "OsvRowPage",
    "PagesDoneOut",
    "PipelineName",
    "Problem",
    "ReviewGlanceOut",
    "S3Location",
    "UploadOut",
    "document_url",
    "documents_url",
]

API_PREFIX = "/api/v1"

JobStatusName = Literal[
    "queued", "published", "processing", "done", "needs_check", "error", "timeout", "dlq"
]
DocumentStatusName = Literal["done", "needs_check", "error"]
PipelineName = Literal["tabular", "image"]
FileTypeName = Literal["XLS", "XLSX", "XLSB", "PDF", "PNG", "JPG"]


def documents_url(file_id: uuid.UUID, job_id: uuid.UUID | None = None) -> str:
    """Where the documents of a file (of one job, when given) are listed."""
    url = f"{API_PREFIX}/files/{file_id}/documents"
    return url if job_id is None else f"{url}?job_id={job_id}"


def document_url(document_id: uuid.UUID) -> str:
    """Where one document is read."""
    return f"{API_PREFIX}/documents/{document_id}"


class S3Location(BaseModel):
    """Where an object lies."""

    bucket: str
    key: str


class PagesDoneOut(BaseModel):
    """A processing scan's pages done of all its recogniser reads (decision 0037)."""

    pages_done: int = Field(ge=0)
    pages_total: int = Field(ge=1)


class JobOut(BaseModel):
    """A recognition job as the API shows it."""

    model_config = ConfigDict(from_attributes=True)

    job_id: uuid.UUID
    file_id: uuid.UUID
    status: JobStatusName
    attempt: int
    pipeline: PipelineName
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
    documents_url: str = Field(description="The documents this job's result produced")
    progress: PagesDoneOut | None = Field(
        None,
        description="Only in `GET /jobs/{job_id}` of a scan being processed by scan-gateway's "
        "local recogniser: the pages it has done so far; null when not known (never guessed)",
    )

    @classmethod
    def of(cls, job: RecognitionJob) -> JobOut:
        """The API view of a job row."""
        return cls(
            job_id=job.id,
            file_id=job.file_id,
            status=cast(JobStatusName, job.status),
            attempt=job.attempt,
            pipeline=cast(PipelineName, job.pipeline),
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
            documents_url=documents_url(job.file_id, job.id),
        )


class ReviewGlanceOut(BaseModel):
    """Where a document's review stands, at a glance."""

    state: GlanceState = Field(
        description="not_reviewed: no correction yet; in_progress: corrections, no review mark "
        "after the last of them; reviewed: marked reviewed after every correction"
    )
    by: str | None = Field(description="Who marked it reviewed (reviewed only)")
    at: dt.datetime | None = Field(description="When it was marked reviewed (reviewed only)")


class DocumentGlanceOut(BaseModel):
    """A document of the file's latest result at a glance: the figures of the corrected
    document (corrections applied, checks recomputed)."""

    id: uuid.UUID
    document_type: str
    form_variant: str | None
    organization_name: str | None
    inn: str | None
    report_date: str | None
    status: DocumentStatusName | None = Field(description="The corrected document's status")
    doubts: int = Field(
        description="Values, lines and header fields still needing review (0 for an ОСВ, "
        "whose rows carry no doubt of their own: its failed checks say what to look at)"
    )
    failed_checks: int = Field(
        description="Failed hard relations (an ОСВ: failed control sums and row identities)"
    )
    soft_failed_checks: int = Field(description="Failed soft relations")
    needs_attention: bool = Field(
        description="Not reviewed, and doubts, failed checks or a status other than done"
    )
    review: ReviewGlanceOut
    url: str

    @classmethod
    def of(cls, glanced: Glanced) -> DocumentGlanceOut:
        """The API view of a listed document and its glance."""
        document, glance = glanced.document, glanced.glance
        return cls(
            id=document.id,
            document_type=document.document_type,
            form_variant=document.form_variant,
            organization_name=glance.organization_name,
            inn=glance.inn,
            report_date=glance.report_date,
            status=cast(DocumentStatusName | None, glance.status),
            doubts=glance.doubts or 0,
            failed_checks=glance.failed_checks,
            soft_failed_checks=glance.soft_failed_checks,
            needs_attention=glance.needs_attention,
            review=_review(glance),
            url=document_url(document.id),
        )


def _review(glance: DocumentGlance) -> ReviewGlanceOut:
    return ReviewGlanceOut(
        state=cast(GlanceState, glance.review_state),
        by=glance.reviewed_by,
        at=glance.reviewed_at,
    )


class FileOut(BaseModel):
    """A stored file and its jobs, oldest attempt first, and the documents of its latest
    result at a glance."""

    file_id: uuid.UUID
    original_name: str
    file_type: FileTypeName
    size: int
    sha256: str
    content_type: str
    s3: S3Location
    created_at: dt.datetime
    content_url: str = Field(
        description="The stored source the recognition read (a TIFF scan: the PDF made of it)"
    )
    original_url: str = Field(description="The upload as the client sent it")
    documents_url: str = Field(description="The documents of the latest result")
    jobs: list[JobOut] = Field(default_factory=list)
    documents: list[DocumentGlanceOut] = Field(
        default_factory=list,
        description="The documents of the latest result (done or needs_check), in the result "
        "file's order; empty until there is one",
    )

    @classmethod
    def of(
        cls, file: StoredFile, jobs: list[RecognitionJob], documents: Sequence[Glanced] = ()
    ) -> FileOut:
        """The API view of a file row, its jobs and its latest result's documents."""
        return cls(
            file_id=file.id,
            original_name=file.original_name,
            file_type=cast(FileTypeName, file.file_type),
            size=file.size,
            sha256=file.sha256,
            content_type=file.content_type,
            s3=S3Location(bucket=file.s3_bucket, key=file.s3_key),
            created_at=file.created_at,
            content_url=f"{API_PREFIX}/files/{file.id}/content",
            original_url=f"{API_PREFIX}/files/{file.id}/original",
            documents_url=documents_url(file.id),
            jobs=[JobOut.of(job) for job in sorted(jobs, key=lambda j: j.attempt)],
            documents=[DocumentGlanceOut.of(d) for d in documents],
        )


class JobPage(BaseModel):
    """One page of jobs, newest first."""

    items: list[JobOut]
    total: int
    limit: int
    offset: int


class FileDeleted(BaseModel):
    """What `DELETE /files/{file_id}` removed."""

    file_id: uuid.UUID
    original_name: str
    jobs: int = Field(description="Recognition jobs deleted")
    documents: int = Field(description="Documents deleted (with their lines, values and rows)")
    objects: int = Field(description="S3 objects deleted: the upload, result files, raw sets")


class Problem(BaseModel):
    """An error (RFC 9457 problem details); `type` names the kind, see docs/api.md."""

    model_config = ConfigDict(extra="allow")

    type: str = Field(description="urn:arm-ka:problem:<slug>, or about:blank for plain HTTP")
    title: str
    status: int
    detail: str
    errors: list[dict[str, Any]] | None = Field(
        None, description="invalid-request only: each invalid field (loc, msg)"
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
    status: JobStatusName
    attempt: int
    pipeline: PipelineName
    file_type: FileTypeName
    original_name: str
    size: int
    sha256: str
    content_type: str
    s3: S3Location
    duplicate_of: uuid.UUID | None = Field(
        None,
        description="The latest earlier file with exactly these bytes (same sha256); both are "
        "kept and recognised — the analyst may delete one",
    )


class DocumentSummary(BaseModel):
    """A document in a file's list."""

    document_id: uuid.UUID
    job_id: uuid.UUID
    file_ordinal: int = Field(description="Index of the document in the result file's documents[]")
    document_type: str
    form_variant: str | None
    status: DocumentStatusName
    url: str


class DocumentList(BaseModel):
    """The documents of one job of a file (the latest result when no job was named)."""

    file_id: uuid.UUID
    job_id: uuid.UUID | None = Field(
        description="The job whose documents these are; null: none yet"
    )
    items: list[DocumentSummary]


class DocumentOut(BaseModel):
    """One document as stored: the normalised parts, the producer's warnings, every issue.

    Statement forms carry columns and lines (each line also with line_code_original_value);
    ОСВ documents give rows_total and rows_url instead of rows (they are paged).
    """

    document_id: uuid.UUID
    job_id: uuid.UUID
    file_id: uuid.UUID
    file_ordinal: int
    source_schema_version: str
    document_type: str
    form_variant: str | None
    status: DocumentStatusName
    locator: Any
    header: Any
    checks: Any = None
    producer_checks: Any = Field(None, description="A 1.x document's own checks, as sent")
    columns: list[dict[str, Any]] | None = None
    lines: list[dict[str, Any]] | None = None
    rows_total: int | None = None
    rows_url: str | None = None
    warnings: list[dict[str, Any]]
    issues: list[dict[str, Any]] = Field(description="document_issue rows, producer and core")
    normalized_url: str


class OsvRowPage(BaseModel):
    """One page of an ОСВ document's rows, in their order."""

    items: list[dict[str, Any]]
    total: int
    limit: int
    offset: int
