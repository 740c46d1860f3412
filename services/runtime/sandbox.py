"""Running untrusted parsing in worker processes the event loop can survive.

A parser fed hostile bytes may allocate without bound, loop forever, abort the process (a
Rust panic across FFI, a segfault) or raise PyO3's `PanicException`, a `BaseException`. The
sandbox runs a picklable top-level function in a child process with an address-space limit
(RLIMIT_AS), a wall-clock limit and a bounded number of tasks per child, and turns every way
a child can fail into one of its own exceptions:

    SandboxError
    ├── SandboxTimeout       the wall-clock limit passed; the child was killed
    ├── SandboxCrashed       the child died (abort, segfault, OOM kill)
    ├── SandboxMemoryError   MemoryError inside the child (RLIMIT_AS reached)
    └── SandboxTaskFailed    an exception that could not travel back as itself

An exception that pickles (the project's own, e.g. `UnreadableWorkbook`) is re-raised as is.
Each of the N workers is its own single-process pool, so killing a timed-out or crashed child
breaks no other task; the slot is rebuilt transparently and the next call works. Children
start by "forkserver" (never fork from a threaded asyncio process).
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import pickle
import resource
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal, TypeVar

from services.runtime.exceptions import (
    SandboxCrashed,
    SandboxError,
    SandboxMemoryError,
    SandboxTaskFailed,
    SandboxTimeout,
)
from services.runtime.malloc import tune_worker_malloc

__all__ = [
    "Sandbox",
    "SandboxCrashed",
    "SandboxError",
    "SandboxMemoryError",
    "SandboxSettings",
    "SandboxTaskFailed",
    "SandboxTimeout",
]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class SandboxSettings:
    """How many children, how big, how long, how many tasks before a child is replaced.

    `niceness` is added to each child's CPU nice value: with every core parsing, the parent's
    event loop (acks, S3, publishing) still gets the CPU first.
    """

    workers: int = 2
    memory_limit_bytes: int | None = 1024 * 1024 * 1024
    timeout_seconds: float = 120.0
    max_tasks_per_child: int = 100
    start_method: Literal["forkserver", "spawn"] = "forkserver"
    niceness: int = 0


_Outcome = tuple[str, Any, str]


def _init_child(limit_bytes: int | None, niceness: int) -> None:
    """Child initializer: cap the address space so runaway allocations fail inside the child,
    lower its CPU priority below the parent's, and have freed large blocks leave its RSS
    (`services.runtime.malloc`)."""
    tune_worker_malloc()
    if limit_bytes is not None:
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    if niceness > 0:
        os.nice(niceness)


def _call_in_child(fn: Callable[..., Any], args: tuple[Any, ...]) -> _Outcome:
    """Run `fn` and report every outcome as plain data, never as an unpicklable exception."""
    try:
        return ("ok", fn(*args), "")
    except MemoryError:
        return ("memory", None, "")
    except BaseException as exc:  # PyO3 PanicException derives from BaseException
        try:
            blob = pickle.dumps(exc)
            pickle.loads(blob)
        except BaseException:
            return ("failed", type(exc).__qualname__, str(exc)[:1000])
        return ("raised", exc, "")


class _Slot:
    """One worker: a single-process pool, rebuilt after a kill or a crash."""

    def __init__(self, settings: SandboxSettings) -> None:
        self._settings = settings
        self._executor: ProcessPoolExecutor | None = None

    def executor(self) -> ProcessPoolExecutor:
        if self._executor is None:
            settings = self._settings
            self._executor = ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context(settings.start_method),
                initializer=_init_child,
                initargs=(settings.memory_limit_bytes, settings.niceness),
                max_tasks_per_child=settings.max_tasks_per_child,
            )
        return self._executor

    def kill(self) -> None:
        """SIGKILL the child (a timed-out task keeps running otherwise) and drop the pool."""
        executor, self._executor = self._executor, None
        if executor is None:
            return
        # ProcessPoolExecutor has no public kill before 3.14; `_processes` is its pid map.
        processes = list(getattr(executor, "_processes", {}).values())
        for process in processes:
            with contextlib.suppress(Exception):
                process.kill()
        executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            with contextlib.suppress(Exception):
                process.join(timeout=5)

    def close(self) -> None:
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)


class Sandbox:
    """`await sandbox.run(fn, *args)` runs `fn(*args)` in a limited child process."""

    def __init__(self, settings: SandboxSettings | None = None) -> None:
        self.settings = settings or SandboxSettings()
        if self.settings.workers < 1:
            msg = "a sandbox needs at least one worker"
            raise ValueError(msg)
        self._slots = [_Slot(self.settings) for _ in range(self.settings.workers)]
        self._free: asyncio.Queue[_Slot] = asyncio.Queue()
        for slot in self._slots:
            self._free.put_nowait(slot)
        self._closed = False

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """The result of `fn(*args)` in a child; raises a `SandboxError` or `fn`'s own error."""
        if self._closed:
            msg = "the sandbox is closed"
            raise SandboxError(msg, function=_name(fn))
        slot = await self._free.get()
        try:
            outcome = await self._run_in(slot, fn, args)
        finally:
            self._free.put_nowait(slot)
        return self._unwrap(fn, outcome)

    async def _run_in(self, slot: _Slot, fn: Callable[..., Any], args: tuple[Any, ...]) -> _Outcome:
        name = _name(fn)
        try:
            future = slot.executor().submit(_call_in_child, fn, args)
        except BrokenProcessPool:
            await asyncio.to_thread(slot.kill)
            future = slot.executor().submit(_call_in_child, fn, args)
        try:
            async with asyncio.timeout(self.settings.timeout_seconds):
                outcome: _Outcome = await asyncio.wrap_future(future)
        except TimeoutError:
            await asyncio.to_thread(slot.kill)
            raise SandboxTimeout(name, self.settings.timeout_seconds) from None
        except BrokenProcessPool as exc:
            await asyncio.to_thread(slot.kill)
            raise SandboxCrashed(name, str(exc) or type(exc).__name__) from exc
        except asyncio.CancelledError:
            # The caller gave up; the child would keep running the task otherwise.
            await asyncio.shield(asyncio.to_thread(slot.kill))
            raise
        return outcome

    def _unwrap(self, fn: Callable[..., T], outcome: _Outcome) -> T:
        kind, value, text = outcome
        if kind == "ok":
            result: T = value
            return result
        if kind == "memory":
            raise SandboxMemoryError(_name(fn), self.settings.memory_limit_bytes)
        if kind == "raised":
            raise value
        raise SandboxTaskFailed(_name(fn), str(value), text)

    async def close(self) -> None:
        """Stop every worker (idempotent)."""
        self._closed = True
        for slot in self._slots:
            await asyncio.to_thread(slot.close)

    async def __aenter__(self) -> Sandbox:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()


def _name(fn: Callable[..., Any]) -> str:
    return getattr(fn, "__qualname__", None) or repr(fn)
