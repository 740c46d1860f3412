"""Running untrusted parsing in worker processes the event loop can survive.

A parser fed hostile bytes may allocate without bound, loop forever, abort the process (a
Rust panic across FFI, a segfault) or raise PyO3's `PanicException`, a `BaseException`. The
sandbox runs a picklable top-level function in a child process with an address-space limit
(RLIMIT_AS), a CPU-time limit (RLIMIT_CPU, when set), a wall-clock limit and a bounded number
of tasks per child, and turns every way
a child can fail into one of its own exceptions:

    SandboxError
    ├── SandboxTimeout       the wall-clock limit passed; the child was killed
    │   └── SandboxCpuTimeout  the CPU-time limit (RLIMIT_CPU) passed; SIGXCPU ended it
    ├── SandboxCrashed       the child died (abort, segfault, OOM kill)
    ├── SandboxMemoryError   MemoryError inside the child (RLIMIT_AS reached)
    └── SandboxTaskFailed    an exception that could not travel back as itself

An exception that pickles (the project's own, e.g. `UnreadableWorkbook`) is re-raised as is.
Each of the N workers is its own single-process pool, so killing a timed-out or crashed child
breaks no other task; the slot is rebuilt transparently and the next call works. Children
start by "forkserver" (never fork from a threaded asyncio process). A process with no thread
but its main one, such as a command recognising one local file, may have its one worker forked
from itself instead (`Sandbox.start_by_fork`): the worker then starts with every module its
parent imported, with no fork server to start and nothing to import twice. Every child dies
with the process that made the sandbox, even a SIGKILLed one (`services.runtime.lifeline`).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import io
import math
import multiprocessing
import os
import pickle
import resource
import signal
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal, TypeVar

from services.runtime.exceptions import (
    SandboxCpuTimeout,
    SandboxCrashed,
    SandboxError,
    SandboxMemoryError,
    SandboxTaskFailed,
    SandboxTimeout,
)
from services.runtime.lifeline import die_with
from services.runtime.malloc import tune_worker_malloc

__all__ = [
    "Sandbox",
    "SandboxCpuTimeout",
    "SandboxCrashed",
    "SandboxError",
    "SandboxMemoryError",
    "SandboxSettings",
    "SandboxTaskFailed",
    "SandboxTimeout",
    "release_later",
]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class SandboxSettings:
    """How many children, how big, how long, how many tasks before a child is replaced.

    `niceness` is added to each child's CPU nice value: with every core parsing, the parent's
    event loop (acks, S3, publishing) still gets the CPU first. `cpu_seconds` caps the CPU
    time of one task (RLIMIT_CPU, moved on before each task; the kernel ends the child with
    SIGXCPU, `SandboxCpuTimeout`).
    """

    workers: int = 2
    memory_limit_bytes: int | None = 1024 * 1024 * 1024
    timeout_seconds: float = 120.0
    max_tasks_per_child: int = 100
    start_method: Literal["forkserver", "spawn"] = "forkserver"
    niceness: int = 0
    cpu_seconds: int | None = None


_Outcome = tuple[str, Any, str]


def _init_child(
    limit_bytes: int | None, niceness: int, cpu_seconds: int | None, service_pid: int
) -> None:
    """Child initializer: die with the service (`lifeline`), cap the address space so runaway
    allocations fail inside the child and its CPU time so a loop ends, lower its CPU priority
    below the parent's, and have freed large blocks leave its RSS (`services.runtime.malloc`).
    A forked child collects garbage even when its parent had stopped collecting
    (`Sandbox.start_by_fork`)."""
    die_with(service_pid)
    gc.enable()
    tune_worker_malloc()
    if limit_bytes is not None:
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    if cpu_seconds is not None:
        global _task_cpu_seconds
        _task_cpu_seconds = cpu_seconds
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # SIGXCPU would dump a core
        # The limit is only as good as SIGXCPU: a service started with it ignored or blocked
        # (both survive fork and exec) would let a task run on past its CPU time.
        signal.signal(signal.SIGXCPU, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGXCPU})
    if niceness > 0:
        os.nice(niceness)


_task_cpu_seconds: int | None = None
"""In a child: the CPU seconds one task may use (`SandboxSettings.cpu_seconds`)."""


def _limit_task_cpu() -> None:
    """RLIMIT_CPU's soft limit set to what this child used so far plus one task's allowance
    (the limit counts the whole process; the hard limit stays, so it can move on)."""
    if _task_cpu_seconds is None:
        return
    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft = math.ceil(usage.ru_utime + usage.ru_stime) + _task_cpu_seconds
    _soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def _ready() -> None:
    """The task that makes a pool start its worker process."""


def _call_in_child(fn: Callable[..., Any], args: tuple[Any, ...]) -> _Outcome:
    """Run `fn` and report every outcome as plain data, never as an unpicklable exception."""
    _limit_task_cpu()
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


_kept: list[Any] = []
_keeping = False  # True in a worker forked from a command (`_call_through`)


def release_later(value: Any) -> None:
    """Let go of `value`, which the caller no longer needs, when that costs nothing.

    Freeing a large result (the million objects of a 100k-row ОСВ's documents, ~40 ms) would
    otherwise sit between the recognition and its reply, and so would the collector's first
    pass over them once a caller that paused it resumes it (~45 ms). A worker forked from a
    command (`Sandbox.start_by_fork`: one local file) keeps the last value given until its next
    task or its exit, which frees nothing, and moves every object it holds out of the
    collector's sight (`gc.freeze`; call this before resuming the collector); any other worker
    lets go of the value now, so that a service's idle worker holds no finished result and its
    collector still sees everything.
    """
    if _keeping:
        _kept[:] = [value]
        gc.freeze()


def _call_through(fn: Callable[..., Any], packed: tuple[bytes, str], shared: int) -> _Outcome:
    """`_call_in_child` in a forked worker whose arguments and result travel through its
    shared file `shared` (`_Slot.start_by_fork`) rather than the pool's pipe."""
    global _keeping
    _keeping = True
    _kept.clear()  # the previous task's value, if this worker is given a second one
    try:
        outcome = _call_in_child(fn, _unpack(shared, *packed))
        if outcome[0] != "ok":
            return outcome
        return ("shared", *_pack(outcome[1], shared))
    except MemoryError:  # reading the arguments, or pickling the result, under RLIMIT_AS
        return ("memory", None, "")


_REAP_SECONDS = 5.0
"""How long a crash's cause waits for the pool's thread to reap the dead worker."""

_SHARED_MIN_BYTES = 1 << 20
"""A bytes object this large goes through a forked worker's shared file."""


class _SharingPickler(pickle.Pickler):
    """Writes each large bytes object to the shared file and pickles only its place.

    `persistent_id` (not `reducer_override`, which the C pickler skips for bytes) is asked
    about every object, so a large bytes object anywhere in the value is found.
    """

    def __init__(self, out: io.BytesIO, shared: int) -> None:
        super().__init__(out, protocol=pickle.HIGHEST_PROTOCOL)
        self._shared = shared
        self.sizes: list[int] = []
        self._offset = 0

    def persistent_id(self, obj: Any) -> int | None:
        if type(obj) is not bytes or len(obj) < _SHARED_MIN_BYTES:
            return None
        with memoryview(obj) as view:
            done = 0
            while done < view.nbytes:
                done += os.pwrite(self._shared, view[done:], self._offset + done)
        self.sizes.append(len(obj))
        self._offset += len(obj)
        return len(self.sizes) - 1


class _SharedUnpickler(pickle.Unpickler):
    """Reads back what `_SharingPickler` wrote: each large bytes object from its place."""

    def __init__(self, blob: bytes, shared: int, sizes: list[int]) -> None:
        super().__init__(io.BytesIO(blob))
        self._shared = shared
        self._places: list[tuple[int, int]] = []
        offset = 0
        for size in sizes:
            self._places.append((offset, size))
            offset += size

    def persistent_load(self, pid: Any) -> bytes:
        offset, size = self._places[pid]
        return os.pread(self._shared, size, offset)


def _pack(value: Any, shared: int) -> tuple[bytes, str]:
    """`value` pickled with its large bytes written to the file `shared` (a memfd both
    processes hold), and their sizes: 40 MB of a result are copied once into the file and
    once out of it, not through the pipe's 64 KiB at a time and the pickles around it."""
    os.ftruncate(shared, 0)
    out = io.BytesIO()
    pickler = _SharingPickler(out, shared)
    pickler.dump(value)
    return out.getvalue(), ",".join(map(str, pickler.sizes))


def _unpack(shared: int, blob: bytes, listed: str) -> Any:
    """What `_pack` wrote, read back (its large bytes as bytes) and the file emptied."""
    sizes = [int(size) for size in listed.split(",") if size]
    value = _SharedUnpickler(blob, shared, sizes).load()
    if sizes:
        os.ftruncate(shared, 0)  # its memory goes back now, not when the worker stops
    return value


class _Slot:
    """One worker: a single-process pool, rebuilt after a kill or a crash."""

    def __init__(self, settings: SandboxSettings) -> None:
        self._settings = settings
        self._executor: ProcessPoolExecutor | None = None
        self.shared: int | None = None  # the forked worker's shared file (memfd)
        self._children: list[multiprocessing.process.BaseProcess] = []  # of the last submit

    def executor(self) -> ProcessPoolExecutor:
        if self._executor is None:
            self._executor = self._new_executor(fork=False)
        return self._executor

    def start_by_fork(self) -> None:
        """Fork the worker from this process now (see `Sandbox.start_by_fork`)."""
        if self._executor is not None:
            msg = "the worker of this slot has started already"
            raise RuntimeError(msg)
        if hasattr(os, "memfd_create"):  # Linux; elsewhere everything takes the pipe
            self.shared = os.memfd_create("sandbox-shared", os.MFD_CLOEXEC)
        self._executor = self._new_executor(fork=True)
        self._executor.submit(_ready)  # a pool of the fork method starts its process here

    def _new_executor(self, *, fork: bool) -> ProcessPoolExecutor:
        settings = self._settings
        return ProcessPoolExecutor(
            max_workers=1,
            mp_context=multiprocessing.get_context("fork" if fork else settings.start_method),
            initializer=_init_child,
            initargs=(
                settings.memory_limit_bytes,
                settings.niceness,
                settings.cpu_seconds,
                os.getpid(),
            ),
            # The pool refuses a task limit under fork; a forked worker serves this process.
            max_tasks_per_child=None if fork else settings.max_tasks_per_child,
        )

    def submit(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> Future[_Outcome]:
        executor = self.executor()
        if self.shared is None:
            future = executor.submit(_call_in_child, fn, args)
        else:
            future = executor.submit(_call_through, fn, _pack(args, self.shared), self.shared)
        self._children = list(getattr(executor, "_processes", {}).values())
        return future

    def ended_by(self) -> int | None:
        """The signal that ended the worker of the last submit (None: it did not die so); a
        worker the pool started after that submit (replacing one at its task limit) counts."""
        # The pool's own thread reaps a dead worker; asking at the same time races it: a
        # forkserver child's status is one message on a pipe, and the reader that loses gets
        # EOF, which multiprocessing reports as exit code 255 (a SIGXCPU taken for a crash).
        manager = getattr(self._executor, "_executor_manager_thread", None)
        if isinstance(manager, threading.Thread) and manager is not threading.current_thread():
            manager.join(timeout=_REAP_SECONDS)
        processes: dict[int, multiprocessing.process.BaseProcess]
        processes = getattr(self._executor, "_processes", None) or {}
        known = {child.pid for child in self._children}
        later = [child for child in processes.values() if child.pid not in known]
        for child in [*self._children, *later]:
            child.join(timeout=1)
            code: int | None = child.exitcode
            if code is not None and code < 0:
                return -code
        return None

    def receive(self, outcome: _Outcome) -> _Outcome:
        """The outcome as `_call_in_child` gives it, a shared result read from the file."""
        if outcome[0] != "shared" or self.shared is None:
            return outcome
        return ("ok", _unpack(self.shared, outcome[1], outcome[2]), "")

    def _forget_shared(self) -> None:
        shared, self.shared = self.shared, None
        if shared is not None:
            os.close(shared)

    def kill(self) -> None:
        """SIGKILL the child (a timed-out task keeps running otherwise) and drop the pool."""
        self._forget_shared()  # a rebuilt worker is no forked one
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
        self._forget_shared()


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

    def start_by_fork(self) -> None:
        """Start the worker now, forked from this process rather than from the fork server.

        For a process that runs no thread but its main one (forking beside another thread can
        copy a lock it holds), such as `arm-ka parse` of one file before its progress line
        starts: the worker has every module this process imported, at the cost of a fork,
        instead of a fork server's interpreter and imports. One worker only, and only this
        first start: a worker rebuilt after a kill starts by the settings' method, and a
        forked worker is not replaced after `max_tasks_per_child` tasks (the process pool
        refuses that limit under fork), so it suits a process that runs few tasks.

        This process's objects are frozen out of the garbage collector first (`gc.freeze`, as
        the gc module advises before a fork): the child's collections then leave the pages
        it shares with its parent alone, and this process's own last collection at its exit
        skips them.
        """
        if self.settings.workers != 1:
            msg = "only a sandbox of one worker starts it by fork"
            raise ValueError(msg)
        if threading.active_count() != 1:
            msg = "a worker is forked only from a process with no other thread"
            raise RuntimeError(msg)
        gc.freeze()
        self._slots[0].start_by_fork()

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
            future = slot.submit(fn, args)
        except BrokenProcessPool:
            await asyncio.to_thread(slot.kill)
            future = slot.submit(fn, args)
        try:
            async with asyncio.timeout(self.settings.timeout_seconds):
                outcome: _Outcome = await asyncio.wrap_future(future)
        except TimeoutError:
            await asyncio.to_thread(slot.kill)
            raise SandboxTimeout(name, self.settings.timeout_seconds) from None
        except BrokenProcessPool as exc:
            signum = await asyncio.to_thread(slot.ended_by)
            await asyncio.to_thread(slot.kill)
            cpu_seconds = self.settings.cpu_seconds
            if signum == signal.SIGXCPU and cpu_seconds is not None:
                raise SandboxCpuTimeout(name, cpu_seconds) from exc
            detail = str(exc) or type(exc).__name__
            if signum is not None:
                detail = f"{detail} ({_signal_name(signum)})"
            raise SandboxCrashed(name, detail) from exc
        except asyncio.CancelledError:
            # The caller gave up; the child would keep running the task otherwise.
            await asyncio.shield(asyncio.to_thread(slot.kill))
            raise
        if outcome[0] == "shared":
            return await asyncio.to_thread(slot.receive, outcome)
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
