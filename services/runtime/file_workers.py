"""Sandboxed worker processes for reading borrower files on request, with bounded concurrency.

A service that answers people (arm-core) reads a stored file on request: renders a page,
turns a TIFF into a PDF, cuts a window of cells. Those are borrower's bytes, parsed by C and
Rust libraries, so they run as the recognisers' do (`services.runtime.sandbox`): in worker
processes with an address-space, a CPU-time and a wall-clock limit, each dying with the
service. Unlike a recogniser's pool, which a bounded backlog feeds, requests arrive at will:
`FileWorkers` admits `workers` running plus `waiting` queued tasks and refuses the next one at
once (`SandboxBusy`), so a burst neither queues without bound nor holds the caller's memory.
The caller's event loop and its thread pool only wait on a pipe: API requests and token
checks never wait behind a file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any, TypeVar

from services.runtime.exceptions import SandboxBusy
from services.runtime.sandbox import Sandbox, SandboxSettings

__all__ = ["FileWorkerLimits", "FileWorkers"]

T = TypeVar("T")
_MB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class FileWorkerLimits:
    """How many file readers run and wait, and what each may use."""

    workers: int = 2
    waiting: int = 8
    memory_mb: int = 1024
    cpu_seconds: int = 30
    timeout_seconds: float = 60.0
    max_tasks_per_child: int = 50
    niceness: int = 5

    def sandbox(self) -> SandboxSettings:
        """The sandbox of these limits."""
        return SandboxSettings(
            workers=self.workers,
            memory_limit_bytes=self.memory_mb * _MB,
            timeout_seconds=self.timeout_seconds,
            max_tasks_per_child=self.max_tasks_per_child,
            niceness=self.niceness,
            cpu_seconds=self.cpu_seconds,
        )


class FileWorkers:
    """`await workers.run(fn, *args)`: `fn(*args)` in a sandboxed worker, or `SandboxBusy`
    when `workers + waiting` tasks are in already. Workers start on first use."""

    def __init__(self, limits: FileWorkerLimits | None = None) -> None:
        self.limits = limits or FileWorkerLimits()
        self._sandbox = Sandbox(self.limits.sandbox())
        self._admitted = 0

    @property
    def admitted(self) -> int:
        """Tasks running or waiting now."""
        return self._admitted

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """The result of `fn(*args)`; a `SandboxError` (busy, over a limit, died) or `fn`'s own
        error."""
        if self._admitted >= self.limits.workers + self.limits.waiting:
            name = getattr(fn, "__qualname__", repr(fn))
            raise SandboxBusy(name, self._admitted - self.limits.workers)
        self._admitted += 1
        try:
            return await self._sandbox.run(fn, *args)
        finally:
            self._admitted -= 1

    async def close(self) -> None:
        """Stop the workers (idempotent)."""
        await self._sandbox.close()

    async def __aenter__(self) -> FileWorkers:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()
