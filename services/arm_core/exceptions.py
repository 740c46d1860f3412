"""The exceptions of arm-core, one root.

```
ArmCoreError
├── ApiProblem          an HTTP problem (RFC 9457) of a type of problem_types
│   ├── UploadRejected  the upload is not acceptable (4xx)
│   ├── NotFound        no such file, job or document (404)
│   ├── Conflict        not now: a job of the file is in flight (409)
│   └── Unavailable     a dependency (S3, database) failed (503)
├── PublishFailed       the relay could not hand a request to NATS (retried later)
└── MappingError        a result file the core cannot take (the job closes in error)
```
"""

from __future__ import annotations

from services.arm_core.problem_types import NOT_FOUND, UNAVAILABLE, ProblemType

__all__ = [
    "ApiProblem",
    "ArmCoreError",
    "Conflict",
    "MappingError",
    "NotFound",
    "PublishFailed",
    "Unavailable",
    "UploadRejected",
]


class ArmCoreError(Exception):
    """Root of arm-core's exceptions."""


class ApiProblem(ArmCoreError):
    """An error the REST API returns as `application/problem+json`, of one catalogued type."""

    def __init__(self, problem: ProblemType, detail: str) -> None:
        super().__init__(f"{problem.status} {problem.title}: {detail}")
        self.problem = problem
        self.status = problem.status
        self.title = problem.title
        self.detail = detail

    @property
    def type(self) -> str:
        """The problem type URI."""
        return self.problem.uri


class UploadRejected(ApiProblem):
    """The upload is refused; nothing was stored."""


class NotFound(ApiProblem):
    """The requested file, job or document does not exist."""

    def __init__(self, what: str, ident: object) -> None:
        super().__init__(NOT_FOUND, f"no {what} with id {ident}")
        self.title = f"{what.capitalize()} not found"
        self.what = what
        self.ident = ident


class Conflict(ApiProblem):
    """The request conflicts with the state of the resource (a job still in flight)."""


class Unavailable(ApiProblem):
    """Storage or the database failed; the request may be retried."""

    def __init__(self, detail: str) -> None:
        super().__init__(UNAVAILABLE, detail)


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
