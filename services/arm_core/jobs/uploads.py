"""Accepting a file: checks, S3 first, then the file and its queued job in one transaction.

The S3 key is built by the core (`uploads/{file_id}/source.{ext}`); the client's file name is
kept only as data, cut to its base name when a client sends a path. A TIFF scan is stored as
the PDF made of it (`documents_io.tiff`, in a sandboxed worker: `file_reads.py`; the file is a
PDF to the contract) and, as sent, at
`uploads/{file_id}/original.tiff`: `source` serves what the recognition reads (as
`source_name`), `original` the upload as sent. If the database
commit fails after the object was written, the object is deleted again, so a refused or failed
upload leaves nothing behind. The queued job row is the outbox entry: once committed, the
relay publishes it even if this process dies right after.
"""

from __future__ import annotations

import hashlib
import logging
import unicodedata
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.db.models import JobStatus, RecognitionJob, StoredFile, utcnow
from services.arm_core.db.transitions import next_attempt_number
from services.arm_core.exceptions import (
    EmptyFile,
    FileTooLarge,
    InvalidFileName,
    MissingFileName,
    NotFound,
    Unavailable,
)
from services.arm_core.jobs.file_reads import FileReads
from services.arm_core.jobs.filetypes import FILE_TYPES, FileType, detect_type
from services.documents_io.tiff import is_tiff_name
from services.runtime.storage import S3Storage, StorageError

__all__ = [
    "MAX_NAME_LENGTH",
    "TIFF_CONTENT_TYPE",
    "Accepted",
    "Download",
    "UploadService",
    "check_name",
    "is_converted",
    "original_key",
    "source_name",
    "upload_key",
]

MAX_NAME_LENGTH = 255
TIFF_CONTENT_TYPE = "image/tiff"

log = logging.getLogger("services.arm_core.jobs.uploads")


# Control characters, line and paragraph separators (U+2028, U+2029), and the bidirectional
# controls (Unicode TR 9: embeddings, overrides, isolates, the marks).
_REFUSED_CATEGORIES = frozenset({"Cc", "Zl", "Zp"})
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def check_name(name: str | None) -> str:
    """The base name of the client's file name; `UploadRejected` when there is none.

    Old clients send a path (`C:\\Users\\a\\b.xlsx`, `..\\..\\x.xlsx`): only what follows
    the last `/` or `\\` is kept. The name is data only, never part of a key; a base name that
    is empty, `.` or `..`, has a control character, a bidirectional control (U+202E would show
    `фдж.exe` as `exe.ждф`) or a line / paragraph separator, or is too long is refused.
    """
    if name is None or not name.strip():
        raise MissingFileName("the uploaded part has no file name")
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    if base.strip() in {"", ".", ".."}:
        raise InvalidFileName(f"the file name {name!r} has no base name")
    if any(unicodedata.category(ch) in _REFUSED_CATEGORIES or ch in _BIDI for ch in base):
        raise InvalidFileName(
            "the file name contains control, bidirectional or line-separator characters"
        )
    if len(base) > MAX_NAME_LENGTH:
        raise InvalidFileName(f"the file name is longer than {MAX_NAME_LENGTH} characters")
    return base


def upload_key(file_id: uuid.UUID, extension: str) -> str:
    """The S3 key of an upload: built from the core's id and the detected type only."""
    return f"uploads/{file_id}/source.{extension}"


def original_key(file_id: uuid.UUID) -> str:
    """The S3 key of an uploaded TIFF scan, kept as sent beside the PDF made of it."""
    return f"uploads/{file_id}/original.tiff"


def is_converted(file: StoredFile) -> bool:
    """Whether the stored source was made at upload from what was sent (a TIFF scan, stored
    as a PDF with the TIFF beside it at `original_key`)."""
    return file.file_type == "PDF" and is_tiff_name(file.original_name)


def source_name(file: StoredFile) -> str:
    """The name the stored source is served under: the client's name, its extension made
    `.pdf` for a converted TIFF (`скан.tiff` → `скан.pdf`), so name and content agree."""
    if is_converted(file):
        return f"{file.original_name.rpartition('.')[0]}.{FILE_TYPES['PDF'].extension}"
    return file.original_name


@dataclass(frozen=True, slots=True)
class Download:
    """Bytes of a stored file to serve, with the name and content type they are served under."""

    data: bytes
    name: str
    content_type: str


@dataclass(frozen=True, slots=True)
class Accepted:
    """A stored file and its first, queued job; `duplicate_of` is the latest earlier file with
    the same bytes (both are kept: the analyst decides)."""

    file: StoredFile
    job: RecognitionJob
    duplicate_of: StoredFile | None = None


class UploadService:
    """Stores uploads and queues recognition jobs."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        storage: S3Storage,
        *,
        bucket: str,
        max_bytes: int,
        on_queued: Callable[[], None] = lambda: None,
        file_reads: FileReads | None = None,
    ) -> None:
        self._sessions = sessions
        self.file_reads = file_reads if file_reads is not None else FileReads()
        self._storage = storage
        self._bucket = bucket
        self.max_bytes = max_bytes
        self._on_queued = on_queued

    def check_size(self, size: int) -> None:
        """`UploadRejected` (empty: 400, too large: 413) unless 0 < size ≤ the limit."""
        if size == 0:
            raise EmptyFile("the uploaded file is empty")
        if size > self.max_bytes:
            raise FileTooLarge(f"the file is larger than {self.max_bytes} bytes")

    async def accept(self, name: str | None, data: bytes) -> Accepted:
        """Check, store and queue one upload."""
        original_name = check_name(name)
        self.check_size(len(data))
        scan: bytes | None = None  # a TIFF, kept beside the PDF made of it
        if is_tiff_name(original_name):
            scan, data = data, await self.file_reads.tiff_to_pdf(data, self.max_bytes)
            self.check_size(len(data))  # the page streams fit; the PDF's frame may not
            detected = FILE_TYPES["PDF"]
        else:
            detected = detect_type(original_name, data)
        file_id, job_id = uuid.uuid4(), uuid.uuid4()
        key = upload_key(file_id, detected.extension)
        stored = [key]
        try:
            await self._storage.put_bytes(
                self._bucket, key, data, content_type=detected.content_type
            )
            if scan is not None:
                stored.append(original_key(file_id))
                await self._storage.put_bytes(
                    self._bucket, stored[-1], scan, content_type=TIFF_CONTENT_TYPE
                )
        except StorageError as exc:
            log.error("upload %s: S3 put failed: %s", file_id, exc)
            for written in stored[:-1]:
                await self._remove_object(written)
            raise Unavailable("the file could not be stored; try again later") from exc
        now = utcnow()
        file = StoredFile(
            id=file_id,
            original_name=original_name,
            file_type=detected.file_type,
            size=len(data),
            sha256=hashlib.sha256(data).hexdigest(),
            content_type=detected.content_type,
            s3_bucket=self._bucket,
            s3_key=key,
            created_at=now,
        )
        job = RecognitionJob(
            id=job_id,
            file_id=file_id,
            pipeline=detected.pipeline,
            attempt=1,
            status=JobStatus.QUEUED.value,
            republish_count=0,
            created_at=now,
            updated_at=now,
        )
        try:
            async with self._sessions() as session, session.begin():
                earlier = await session.scalar(
                    select(StoredFile)
                    .where(StoredFile.sha256 == file.sha256)
                    .order_by(StoredFile.created_at.desc())
                    .limit(1)
                )
                session.add_all([file, job])
        except SQLAlchemyError as exc:
            log.error("upload %s: database commit failed; removing the S3 objects", file_id)
            for written in stored:
                await self._remove_object(written)
            raise Unavailable("the file could not be registered; try again later") from exc
        except BaseException:
            for written in stored:
                await self._remove_object(written)
            raise
        self._on_queued()
        return Accepted(file=file, job=job, duplicate_of=earlier)

    async def recognize_again(self, file_id: uuid.UUID) -> RecognitionJob:
        """A new queued job for a stored file, with attempt = the highest so far + 1."""
        for _ in range(5):
            try:
                async with self._sessions() as session, session.begin():
                    file = await session.get(StoredFile, file_id)
                    if file is None:
                        raise NotFound("file", file_id)
                    now = utcnow()
                    job = RecognitionJob(
                        id=uuid.uuid4(),
                        file_id=file_id,
                        pipeline=FILE_TYPES[cast(FileType, file.file_type)].pipeline,
                        attempt=await next_attempt_number(session, file_id),
                        status=JobStatus.QUEUED.value,
                        republish_count=0,
                        created_at=now,
                        updated_at=now,
                    )
                    session.add(job)
            except IntegrityError:
                # Two new attempts raced for the same number; take the next one.
                continue
            self._on_queued()
            return job
        raise Unavailable("could not allocate a new attempt number; try again")

    async def read(self, file: StoredFile) -> bytes:
        """The stored source file, the one the recognition reads (`StorageError` when S3 fails
        or the object is gone)."""
        return await self._storage.get_bytes(file.s3_bucket, file.s3_key, self.max_bytes)

    async def source(self, file: StoredFile) -> Download:
        """The stored source file to serve: `read`, as `source_name` and its content type."""
        return Download(await self.read(file), source_name(file), file.content_type)

    async def original(self, file: StoredFile) -> Download:
        """The upload as the client sent it, under its original name: the TIFF of a converted
        scan, else the stored source itself (`StorageError` as for `read`)."""
        if not is_converted(file):
            return Download(await self.read(file), file.original_name, file.content_type)
        key = original_key(file.id)
        data = await self._storage.get_bytes(file.s3_bucket, key, self.max_bytes)
        return Download(data, file.original_name, TIFF_CONTENT_TYPE)

    async def _remove_object(self, key: str) -> None:
        try:
            await self._storage.delete(self._bucket, key)
        except StorageError:
            log.exception("could not delete s3://%s/%s after a failed upload", self._bucket, key)
