"""A recogniser's side of the sandbox, written once for both recognition services.

`SandboxRunner` is the part of `Sandbox` a recogniser uses (a test may run the worker function
inline). `recognition_failure` is the one ladder from a sandbox's exceptions to the job's error:
every way a worker can fail on a file — out of its wall-clock or CPU time, out of memory, died,
raised what cannot travel back — is UNREADABLE, the file could not be read within the limits
(decision 0031). TIMEOUT stays what spec 001 makes it: the job's `reply_deadline` passed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from services.runtime.exceptions import (
    SandboxCrashed,
    SandboxError,
    SandboxMemoryError,
    SandboxTimeout,
)
from services.runtime.recognizer import ErrorCode, RecognitionFailed

__all__ = ["SandboxRunner", "recognition_failure", "run_recognition"]


class SandboxRunner(Protocol):
    """The part of `services.runtime.sandbox.Sandbox` a recogniser uses."""

    async def run(self, fn: Callable[..., Any], /, *args: Any) -> Any: ...


def recognition_failure(exc: SandboxError, what: str) -> RecognitionFailed:
    """The job's UNREADABLE error for a worker that failed reading `what` ("the workbook")."""
    if isinstance(exc, SandboxTimeout):
        reason = f"reading {what} took longer than allowed"
    elif isinstance(exc, SandboxMemoryError):
        reason = f"reading {what} needed more memory than allowed"
    elif isinstance(exc, SandboxCrashed):
        reason = f"the worker process reading {what} died"
    else:  # e.g. a Rust panic that cannot travel back as itself
        reason = f"{what} could not be read by the worker process"
    return RecognitionFailed(ErrorCode.UNREADABLE, reason)


async def run_recognition(
    sandbox: SandboxRunner, fn: Callable[..., Any], *args: Any, what: str
) -> Any:
    """`fn(*args)` in `sandbox`; a failed worker is `recognition_failure`'s `RecognitionFailed`
    (what `fn` itself raises, a `RecognitionFailed` included, passes as it is)."""
    try:
        return await sandbox.run(fn, *args)
    except SandboxError as exc:
        raise recognition_failure(exc, what) from exc
