"""The exceptions of arm-core, one root; none of them knows HTTP.

```
ArmCoreError
├── Refused                     the request cannot be done as asked (the caller's to change)
│   ├── UploadRejected          the upload is not acceptable; nothing was stored
│   │   ├── MissingFileName     the uploaded part has no file name
│   │   ├── InvalidFileName     empty, '.', '..', too long, control characters
│   │   ├── EmptyFile           no bytes
│   │   ├── FileTooLarge        over the upload limit
│   │   ├── UnsupportedFileType the extension is none of the supported ones
│   │   ├── UnsupportedFileContent  the bytes are no supported type
│   │   └── FileTypeMismatch    the bytes are another supported type than the name says
│   ├── NotFound                no such file, job or document
│   ├── JobInFlight             a job of the file is queued, published or processing
│   ├── NotAnOsvDocument        rows asked of a statement form
│   ├── NoEvidence              a value with no recorded position on a page
│   ├── InvalidCorrection       a correction naming nothing, or with a value that is not one
│   ├── FileOverLimits          reading a stored or uploaded file went over its worker's limits
│   ├── DoubtsLeft              marked reviewed with doubts left, their count not confirmed
│   └── (auth) NotAuthenticated, Forbidden
├── Unavailable                 a dependency (S3, the database, the provider) failed
│   └── FilesBusy               every file-reading worker and waiting place is taken
├── PublishFailed               the relay could not hand a request to NATS (retried later)
└── MappingError                a result file the core cannot take (the job closes in error)
```

The REST API and the pages turn them into answers in one place each (`rest/problems.py`'s
table, the pages' own texts); the jobs and documents rooms raise them without knowing how.
"""

from __future__ import annotations

__all__ = [
    "ArmCoreError",
    "DoubtsLeft",
    "EmptyFile",
    "FileOverLimits",
    "FileTooLarge",
    "FileTypeMismatch",
    "FilesBusy",
    "InvalidCorrection",
    "InvalidFileName",
    "JobInFlight",
    "MappingError",
    "MissingFileName",
    "NoEvidence",
    "NotAnOsvDocument",
    "NotFound",
    "PublishFailed",
    "Refused",
    "Unavailable",
    "UnsupportedFileContent",
    "UnsupportedFileType",
    "UploadRejected",
]


class ArmCoreError(Exception):
    """Root of arm-core's exceptions."""


class Refused(ArmCoreError):
    """The request cannot be done as asked; `detail` says why, in words a caller can act on."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class UploadRejected(Refused):
    """The upload is refused; nothing was stored."""


class MissingFileName(UploadRejected):
    """The uploaded part has no file name."""


class InvalidFileName(UploadRejected):
    """The base name is empty, '.' or '..', too long, or has control characters."""


class EmptyFile(UploadRejected):
    """The uploaded file has no bytes."""


class FileTooLarge(UploadRejected):
    """The file is larger than the upload limit."""


class UnsupportedFileType(UploadRejected):
    """The file extension is not a supported one."""


class UnsupportedFileContent(UploadRejected):
    """The bytes are not any supported file type, whatever the name says."""


class FileTypeMismatch(UploadRejected):
    """The bytes are another supported type than the extension says."""


class NotFound(Refused):
    """The requested file, job or document does not exist."""

    def __init__(self, what: str, ident: object) -> None:
        super().__init__(f"no {what} with id {ident}")
        self.what = what
        self.ident = ident


class JobInFlight(Refused):
    """A job of the file is queued, published or processing: not now."""


class NotAnOsvDocument(Refused):
    """Only ОСВ documents have rows."""


class NoEvidence(Refused):
    """The value has no position on a page: an Excel document (its cells are the source), a
    value the recogniser placed nowhere, or a result recognised without evidence."""


class InvalidCorrection(Refused):
    """A correction names no such line, column or field, or its value is not valid; `detail`
    is shown to the analyst as it is (Russian)."""


class FileOverLimits(Refused):
    """Reading the file (a page, a TIFF, a window of cells) went over the memory, CPU-time or
    wall-clock limit of its sandboxed worker; the same file will do so again."""


class DoubtsLeft(Refused):
    """A document marked reviewed while `count` values, lines or header fields still need
    review, and the request did not confirm that exact count; `detail` (Russian) names it."""

    def __init__(self, count: int, confirmed: int | None) -> None:
        asked = "" if confirmed is None else f" (подтверждено {confirmed})"
        super().__init__(
            f"Остались сомнительные значения: {count}{asked}. Проверьте их или подтвердите, "
            f"что отмечаете документ проверенным с {count} сомнительными (confirm_doubts={count})"
        )
        self.count = count
        self.confirmed = confirmed


class Unavailable(ArmCoreError):
    """Storage, the database or the provider failed; the request may be retried."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class FilesBusy(Unavailable):
    """Every worker that reads files, and every place to wait for one, is taken: try again
    shortly (the API's other requests are not held up)."""


class PublishFailed(ArmCoreError):
    """A request could not be published; the outbox row stays for the next relay pass."""

    def __init__(self, job_id: object, subject: str) -> None:
        super().__init__(f"could not publish job {job_id} to {subject}")
        self.job_id = job_id
        self.subject = subject


class MappingError(ArmCoreError):
    """A result file fails its contract or cannot be read or mapped; never retried.

    `reason` is what the job records in metrics.mapping_error.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
