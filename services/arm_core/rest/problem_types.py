"""The catalogue of the REST API's problem types (RFC 9457 `type`): one URI per kind of error.

A client branches on `type`, never on `title` or `detail`; each type keeps one status. The
catalogue also makes the OpenAPI document's error responses and docs/api.md's table.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "DOUBTS_LEFT",
    "EMPTY_FILE",
    "FILES_BUSY",
    "FILE_OVER_LIMITS",
    "FILE_TOO_LARGE",
    "FILE_TYPE_MISMATCH",
    "FORBIDDEN",
    "INVALID_CORRECTION",
    "INVALID_FILE_NAME",
    "INVALID_REQUEST",
    "JOB_IN_FLIGHT",
    "MISSING_FILE_NAME",
    "NOT_AN_OSV_DOCUMENT",
    "NOT_FOUND",
    "NO_EVIDENCE",
    "PROBLEM_TYPES",
    "UNAUTHENTICATED",
    "UNAVAILABLE",
    "UNSUPPORTED_FILE_CONTENT",
    "UNSUPPORTED_FILE_TYPE",
    "UPLOAD_PROBLEMS",
    "ProblemType",
]

_PREFIX = "urn:arm-ka:problem:"


@dataclass(frozen=True, slots=True)
class ProblemType:
    """One kind of error: its URI slug, HTTP status, title and what it means."""

    slug: str
    status: int
    title: str
    meaning: str

    @property
    def uri(self) -> str:
        """The `type` member of the problem document."""
        return _PREFIX + self.slug


MISSING_FILE_NAME = ProblemType(
    "missing-file-name", 400, "Missing file name", "The uploaded part has no file name."
)
INVALID_FILE_NAME = ProblemType(
    "invalid-file-name",
    400,
    "Invalid file name",
    "The base name is empty, '.' or '..', too long, or has control characters.",
)
EMPTY_FILE = ProblemType("empty-file", 400, "Empty file", "The uploaded file has no bytes.")
FILE_TOO_LARGE = ProblemType(
    "file-too-large", 413, "File too large", "The file is larger than UPLOAD_MAX_BYTES."
)
UNSUPPORTED_FILE_TYPE = ProblemType(
    "unsupported-file-type",
    415,
    "Unsupported file type",
    "The file extension is not a supported one; `detail` lists those that are.",
)
UNSUPPORTED_FILE_CONTENT = ProblemType(
    "unsupported-file-content",
    415,
    "Unsupported file content",
    "The bytes are not any supported file type, whatever the name says.",
)
FILE_TYPE_MISMATCH = ProblemType(
    "file-type-mismatch",
    422,
    "File type mismatch",
    "The bytes are another supported type than the extension says (a PDF named .xlsx).",
)
INVALID_REQUEST = ProblemType(
    "invalid-request",
    422,
    "Invalid request",
    "A parameter or form field is missing or invalid; `errors` lists each one.",
)
NOT_AN_OSV_DOCUMENT = ProblemType(
    "not-an-osv-document",
    422,
    "Not an ОСВ document",
    "Only ОСВ documents have rows; a statement form's values are in its lines.",
)
INVALID_CORRECTION = ProblemType(
    "invalid-correction",
    422,
    "Invalid correction",
    "The correction names no such line, column or field, or its new value is not valid "
    "(an amount, a line code, a header field value); `detail` says why.",
)
DOUBTS_LEFT = ProblemType(
    "doubts-left",
    409,
    "Doubts left",
    "The document still has values, lines or header fields that need review; `doubts_left` "
    "counts them. Mark it reviewed anyway by sending that exact count as `confirm_doubts`.",
)
NOT_FOUND = ProblemType(
    "not-found", 404, "Not found", "No file, job or document with that id (or not of that file)."
)
NO_EVIDENCE = ProblemType(
    "no-evidence",
    404,
    "No evidence",
    "The value has no recorded position on a page: an Excel document (its source is the cell "
    "window), a line or value the recogniser placed nowhere, or a result without evidence.",
)
JOB_IN_FLIGHT = ProblemType(
    "job-in-flight",
    409,
    "Job in flight",
    "The file has a queued, published or processing job; delete it once the job has ended.",
)
UNAUTHENTICATED = ProblemType(
    "unauthenticated",
    401,
    "Authentication required",
    "No valid bearer token or login cookie: missing, expired, for another audience or issuer, "
    "or badly signed; `WWW-Authenticate` says which.",
)
FORBIDDEN = ProblemType(
    "forbidden",
    403,
    "Forbidden",
    "The caller is known but lacks the role the operation needs (integrator, analyst or admin).",
)
UNAVAILABLE = ProblemType(
    "unavailable",
    503,
    "Service unavailable",
    "Storage, the database or the identity provider failed; nothing was changed, the request "
    "may be retried.",
)
FILE_OVER_LIMITS = ProblemType(
    "file-over-limits",
    422,
    "File over the reading limits",
    "Reading the file (a TIFF made a PDF, a page drawn, a window of cells) went over the "
    "memory, CPU-time or wall-clock limit of its sandboxed worker; the same file will again.",
)
FILES_BUSY = ProblemType(
    "files-busy",
    503,
    "File readers busy",
    "Every worker that reads files, and every place to wait for one, is taken; retry shortly "
    "(other requests are not held up).",
)

# Every check of an upload's name, size and content.
_UPLOAD_CHECKS: tuple[ProblemType, ...] = (
    MISSING_FILE_NAME,
    INVALID_FILE_NAME,
    EMPTY_FILE,
    FILE_TOO_LARGE,
    UNSUPPORTED_FILE_TYPE,
    UNSUPPORTED_FILE_CONTENT,
    FILE_TYPE_MISMATCH,
    FILE_OVER_LIMITS,
)

PROBLEM_TYPES: tuple[ProblemType, ...] = (
    *_UPLOAD_CHECKS,
    INVALID_REQUEST,
    NOT_AN_OSV_DOCUMENT,
    INVALID_CORRECTION,
    DOUBTS_LEFT,
    NOT_FOUND,
    NO_EVIDENCE,
    JOB_IN_FLIGHT,
    UNAUTHENTICATED,
    FORBIDDEN,
    UNAVAILABLE,
    FILES_BUSY,
)

# What POST /files can answer: every check of the upload, a bad form, a failed dependency
# (401 and 403 are added to every secured operation by the OpenAPI document itself).
UPLOAD_PROBLEMS: tuple[ProblemType, ...] = (
    *_UPLOAD_CHECKS,
    INVALID_REQUEST,
    UNAVAILABLE,
    FILES_BUSY,
)
