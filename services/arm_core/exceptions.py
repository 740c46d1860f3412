"""The exceptions of arm-core, one root.

```
ArmCoreError
├── ApiProblem          an HTTP problem (RFC 9457): status, title, detail
│   ├── UploadRejected  the upload is not acceptable (4xx)
│   ├── NotFound        no such file or job (404)
│   └── Unavailable     a dependency (S3, database) failed (503)
├── PublishFailed       the relay could not hand a request to NATS (retried later)
└── MappingError        a result file the core cannot take (the job closes in error)
```
"""

from __future__ import annotations

__all__ = [
    "ApiProblem",
    "ArmCoreError",
    "MappingError",
    "NotFound",
    "PublishFailed",
    "Unavailable",
    "UploadRejected",
]


class ArmCoreError(Exception):
    """Root of arm-core's exceptions."""


class ApiProblem(ArmCoreError):
    """An error the REST API returns as `application/problem+json`."""

    type_slug = "about:blank"

    def __init__(self, status: int, title: str, detail: str) -> None:
        super().__init__(f"{status} {title}: {detail}")
        self.status = status
        self.title = title
        self.detail = detail

    @property
    def type(self) -> str:
        """The problem type URI."""
        return self.type_slug


class UploadRejected(ApiProblem):
    """The upload is refused; nothing was stored."""

    type_slug = "urn:arm-ka:problem:upload-rejected"


class NotFound(ApiProblem):
    """The requested file or job does not exist."""

    type_slug = "urn:arm-ka:problem:not-found"

    def __init__(self, what: str, ident: object) -> None:
        super().__init__(404, f"{what.capitalize()} not found", f"no {what} with id {ident}")
        self.what = what
        self.ident = ident


class Unavailable(ApiProblem):
    """Storage or the database failed; the request may be retried."""

    type_slug = "urn:arm-ka:problem:unavailable"

    def __init__(self, detail: str) -> None:
        super().__init__(503, "Service unavailable", detail)


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
