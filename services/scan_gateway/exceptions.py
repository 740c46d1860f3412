"""The exceptions of scan-gateway, one root; each carries its data as attributes.

    ScanGatewayError
    ├── ScanSystemError          the scanning system could not give a result set
    │   ├── ScanUnavailable      5xx / connection errors after every retry
    │   ├── ScanRejected         a 4xx answer (bad token, refused file): retrying will not help
    │   ├── ScanJobFailed        the scanning system reports its job as failed
    │   └── ScanDeadlineExceeded the exchange did not finish before the job's deadline
    ├── ItemInvalid              an item of a result set is not the JSON this gateway reads
    ├── OcrUnavailable           the local recogniser lacks a tool (Tesseract) for this file
    └── FileUnreadable           the file is not what its type says (a broken or empty PDF)

httpx errors are translated into these in `client.py` only; nothing here quotes the token.
"""

from __future__ import annotations

__all__ = [
    "FileUnreadable",
    "ItemInvalid",
    "OcrUnavailable",
    "ScanDeadlineExceeded",
    "ScanGatewayError",
    "ScanJobFailed",
    "ScanRejected",
    "ScanSystemError",
    "ScanUnavailable",
]


class ScanGatewayError(Exception):
    """Root of scan-gateway's own exceptions."""


class ScanSystemError(ScanGatewayError):
    """The scanning system did not deliver; `scan_job_id` names its job when one was created."""

    def __init__(self, message: str, *, scan_job_id: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.scan_job_id = scan_job_id


class ScanUnavailable(ScanSystemError):
    """Server errors or connection failures persisted through every retry."""


class ScanRejected(ScanSystemError):
    """The scanning system answered 4xx: the request itself is refused."""

    def __init__(self, message: str, *, status_code: int, scan_job_id: str | None = None) -> None:
        super().__init__(message, scan_job_id=scan_job_id)
        self.status_code = status_code


class ScanJobFailed(ScanSystemError):
    """The scanning system finished its job with status `failed`."""


class ScanDeadlineExceeded(ScanSystemError):
    """The whole exchange ran past the job's reply_deadline (or the gateway's own cap)."""


class ItemInvalid(ScanGatewayError):
    """An item of a result set is not valid JSON or not shaped as docs/scanning-system-protocol.md
    says; `part` is the item's name."""

    def __init__(self, part: str, reason: str) -> None:
        super().__init__(f"item {part!r}: {reason}")
        self.part = part
        self.reason = reason


class OcrUnavailable(ScanGatewayError):
    """The local recogniser needs a tool that is not installed; `what` names it."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what

    def __reduce__(self) -> tuple[type[OcrUnavailable], tuple[str]]:
        return (type(self), (self.what,))


class FileUnreadable(ScanGatewayError):
    """The local recogniser cannot open the file at all; `reason` says why (UNREADABLE)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason

    def __reduce__(self) -> tuple[type[FileUnreadable], tuple[str]]:
        return (type(self), (self.reason,))
