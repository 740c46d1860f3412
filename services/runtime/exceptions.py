"""Every exception of `services.runtime`, under one root.

    RuntimeServiceError
    ├── SettingsError          the configuration is invalid (names keys, never values)
    ├── MessagingError
    │   ├── MissingMsgIdError  a publish without Nats-Msg-Id (a programming error)
    │   └── PublishGaveUp      every publish attempt failed; the message did not leave
    ├── StorageError
    │   ├── ObjectNotFound
    │   ├── ObjectTooLarge
    │   └── StorageUnavailable
    ├── SandboxError
    │   ├── SandboxTimeout (its CPU-time kind SandboxCpuTimeout), SandboxCrashed,
    │   ├── SandboxMemoryError, SandboxTaskFailed
    │   └── SandboxBusy        every worker of a bounded pool is taken and its queue is full
    ├── LocalFileError         a local file to recognise is missing, a folder or unreadable
    └── RecognitionFailed      (services.runtime.recognizer, with its contract error code)

A caller that only wants "the shared runtime failed" catches the root. This module imports
only the standard library (a worker process imports it through the sandbox), and the modules that raise these
re-export them, so `from services.runtime.storage import StorageError` keeps working.
"""

from __future__ import annotations

from collections.abc import Mapping

from services.runtime.ids import MSG_ID_HEADER

__all__ = [
    "LocalFileError",
    "MessagingError",
    "MissingMsgIdError",
    "ObjectNotFound",
    "ObjectTooLarge",
    "PublishGaveUp",
    "RuntimeServiceError",
    "SandboxBusy",
    "SandboxCpuTimeout",
    "SandboxCrashed",
    "SandboxError",
    "SandboxMemoryError",
    "SandboxTaskFailed",
    "SandboxTimeout",
    "SettingsError",
    "StorageError",
    "StorageUnavailable",
]


class RuntimeServiceError(Exception):
    """Root of the shared runtime's exceptions."""


class SettingsError(RuntimeServiceError, ValueError):
    """The configuration is invalid; the service must not start.

    `problems` maps each offending environment key to what is wrong with it. The text names
    keys only and never quotes a value, so it is safe to log whatever the key holds.
    """

    def __init__(self, problems: Mapping[str, str]) -> None:
        self.problems = dict(problems)
        text = "; ".join(f"{key}: {why}" for key, why in self.problems.items())
        super().__init__(text or "invalid settings")

    @property
    def keys(self) -> list[str]:
        """The offending environment keys, in the order found."""
        return list(self.problems)


class MessagingError(RuntimeServiceError):
    """Root of the messaging errors."""


class MissingMsgIdError(MessagingError):
    """A publish without a `Nats-Msg-Id` header: a programming error, never retried."""

    def __init__(self, subject: str) -> None:
        self.subject = subject
        super().__init__(f"publish to {subject!r} without a {MSG_ID_HEADER} header")


class PublishGaveUp(MessagingError):
    """Every attempt of a publish failed (1 + PUBLISH_RETRIES); the message did not leave.

    `last` is the class name of the last attempt's error (the error itself may quote a server
    address or credentials, so only its type travels).
    """

    def __init__(self, subject: str, msg_id: str, attempts: int, last: str) -> None:
        self.subject = subject
        self.msg_id = msg_id
        self.attempts = attempts
        self.last = last
        super().__init__(
            f"publish to {subject!r} ({MSG_ID_HEADER} {msg_id}) failed after {attempts} "
            f"attempts: {last}"
        )


class StorageError(RuntimeServiceError):
    """Root of the storage errors."""

    def __init__(self, message: str, *, bucket: str | None = None, key: str | None = None) -> None:
        super().__init__(message)
        self.bucket = bucket
        self.key = key


class ObjectNotFound(StorageError):
    """The bucket or the key does not exist."""


class ObjectTooLarge(StorageError):
    """The object is larger than the allowed size."""

    def __init__(self, *, bucket: str, key: str, size: int | None, max_bytes: int) -> None:
        shown = "more than that" if size is None else f"{size} bytes"
        super().__init__(
            f"s3://{bucket}/{key} is {shown}; the limit is {max_bytes} bytes",
            bucket=bucket,
            key=key,
        )
        self.size = size
        self.max_bytes = max_bytes


class StorageUnavailable(StorageError):
    """S3 could not be reached (refused, cut, timed out): worth retrying later."""


class SandboxError(RuntimeServiceError):
    """Root of the sandbox's exceptions; `function` names what was running."""

    def __init__(self, message: str, *, function: str = "") -> None:
        super().__init__(message)
        self.function = function


class SandboxTimeout(SandboxError):
    """The wall-clock limit passed; the child was killed."""

    def __init__(self, function: str, timeout_seconds: float) -> None:
        super().__init__(
            f"{function} ran over {timeout_seconds:g} s; its worker was killed", function=function
        )
        self.timeout_seconds = timeout_seconds


class SandboxCpuTimeout(SandboxTimeout):
    """The CPU-time limit (RLIMIT_CPU) passed; the kernel ended the child with SIGXCPU."""

    def __init__(self, function: str, cpu_seconds: int) -> None:
        SandboxError.__init__(
            self,
            f"{function} used over {cpu_seconds} s of CPU time; its worker was ended",
            function=function,
        )
        self.timeout_seconds = float(cpu_seconds)
        self.cpu_seconds = cpu_seconds


class SandboxBusy(SandboxError):
    """Every worker is taken and as many tasks as allowed already wait: try again later."""

    def __init__(self, function: str, waiting: int) -> None:
        super().__init__(
            f"no worker free for {function}: {waiting} tasks already wait", function=function
        )
        self.waiting = waiting


class SandboxCrashed(SandboxError):
    """The child died (abort, segfault, OOM kill)."""

    def __init__(self, function: str, detail: str) -> None:
        super().__init__(f"the worker running {function} died: {detail}", function=function)
        self.detail = detail


class SandboxMemoryError(SandboxError):
    """MemoryError inside the child (RLIMIT_AS reached)."""

    def __init__(self, function: str, limit_bytes: int | None) -> None:
        super().__init__(
            f"{function} ran out of memory (limit {limit_bytes} bytes)", function=function
        )
        self.limit_bytes = limit_bytes


class SandboxTaskFailed(SandboxError):
    """The child raised something that cannot be pickled back (e.g. PyO3 PanicException)."""

    def __init__(self, function: str, error_type: str, error_message: str) -> None:
        super().__init__(f"{function} raised {error_type}: {error_message}", function=function)
        self.error_type = error_type
        self.error_message = error_message


class LocalFileError(RuntimeServiceError):
    """A local file that cannot be recognised at all: missing, a folder, unreadable."""
