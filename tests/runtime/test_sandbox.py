"""The worker-process sandbox survives every way a child can fail, and the next call works."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import signal
import time
from collections.abc import AsyncIterator
from concurrent.futures.process import BrokenProcessPool

import pytest

from services.runtime.sandbox import (
    Sandbox,
    SandboxCpuTimeout,
    SandboxCrashed,
    SandboxMemoryError,
    SandboxSettings,
    SandboxTaskFailed,
    SandboxTimeout,
    _Slot,
)

_MEMORY_LIMIT = 768 * 1024 * 1024


def _double(value: int) -> int:
    return value * 2


def _pid(_: int = 0) -> int:
    return os.getpid()


def _allocate(n_bytes: int) -> int:
    return len(bytearray(n_bytes))


def _abort() -> None:
    os.abort()


def _sleep(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def _span(seconds: float) -> tuple[float, float]:
    start = time.monotonic()
    time.sleep(seconds)
    return start, time.monotonic()


class _Unpicklable(BaseException):
    """Like PyO3's PanicException: a BaseException that cannot travel back as itself."""

    def __init__(self, message: str, handle: object) -> None:
        super().__init__(message)
        self.handle = handle


def _raise_unpicklable() -> None:
    raise _Unpicklable("rust panicked", lambda: None)


def _raise_value_error(text: str) -> None:
    raise ValueError(text)


@pytest.fixture
async def sandbox() -> AsyncIterator[Sandbox]:
    settings = SandboxSettings(
        workers=2, memory_limit_bytes=_MEMORY_LIMIT, timeout_seconds=5, max_tasks_per_child=50
    )
    async with Sandbox(settings) as box:
        yield box


async def test_runs_a_function_in_another_process(sandbox: Sandbox) -> None:
    """The result comes back, computed in a child (a different pid)."""
    assert await sandbox.run(_double, 21) == 42
    assert await sandbox.run(_pid) != os.getpid()


async def test_memory_over_the_limit_is_a_memory_error_and_the_pool_goes_on(
    sandbox: Sandbox,
) -> None:
    """An allocation above RLIMIT_AS raises SandboxMemoryError; the next call succeeds."""
    with pytest.raises(SandboxMemoryError) as caught:
        await sandbox.run(_allocate, 2 * _MEMORY_LIMIT)
    assert caught.value.limit_bytes == _MEMORY_LIMIT
    assert await sandbox.run(_allocate, 1024) == 1024


async def test_an_aborting_child_is_a_crash_and_the_pool_is_rebuilt(sandbox: Sandbox) -> None:
    """os.abort() in the child → SandboxCrashed; the next calls work on a fresh child."""
    with pytest.raises(SandboxCrashed) as caught:
        await sandbox.run(_abort)
    assert caught.value.detail.endswith("(SIGABRT)")
    assert await sandbox.run(_double, 2) == 4
    assert await sandbox.run(_double, 3) == 6


def test_every_thread_asking_why_a_worker_died_reads_the_signal() -> None:
    """A forkserver child's exit status is one message on a pipe that the pool's own thread
    also reads when it reaps the worker; an asker that raced it read EOF, taken as exit code
    255, and a task ended by SIGXCPU was reported as a crash (a CI failure). Eight threads
    ask at once, over several deaths: each reads the signal."""
    settings = SandboxSettings(workers=1, timeout_seconds=30, memory_limit_bytes=None)
    for _ in range(12):
        slot = _Slot(settings)
        try:
            future = slot.submit(_abort, ())
            with concurrent.futures.ThreadPoolExecutor(8) as askers:
                answers = list(askers.map(_ended_by, [slot] * 8, [future] * 8))
        finally:
            slot.kill()
        assert answers == [signal.SIGABRT] * 8


def _ended_by(slot: _Slot, future: concurrent.futures.Future[object]) -> int | None:
    assert isinstance(future.exception(timeout=30), BrokenProcessPool)
    return slot.ended_by()


async def test_a_task_over_the_wall_clock_is_killed() -> None:
    """A sleep beyond the limit → SandboxTimeout, its child is gone, the next call works."""
    settings = SandboxSettings(workers=1, timeout_seconds=3, memory_limit_bytes=None)
    async with Sandbox(settings) as box:
        victim = await box.run(_pid)
        with pytest.raises(SandboxTimeout) as caught:
            await box.run(_sleep, 30)
        assert caught.value.timeout_seconds == 3
        assert await box.run(_double, 5) == 10
        assert await box.run(_pid) != victim
        with pytest.raises(ProcessLookupError):
            os.kill(victim, 0)


async def test_a_child_serves_at_most_max_tasks_per_child() -> None:
    """With max_tasks_per_child=2 a single worker changes pid every two tasks."""
    settings = SandboxSettings(workers=1, max_tasks_per_child=2, memory_limit_bytes=None)
    async with Sandbox(settings) as box:
        pids = [await box.run(_pid) for _ in range(6)]
    assert pids[0] == pids[1] and pids[2] == pids[3] and pids[4] == pids[5]
    assert len(set(pids)) == 3


async def test_concurrent_calls_run_in_parallel(sandbox: Sandbox) -> None:
    """Two calls on two workers overlap in time (each starts before the other ends)."""
    first, second = await asyncio.gather(sandbox.run(_span, 0.5), sandbox.run(_span, 0.5))
    assert first[0] < second[1] and second[0] < first[1]


async def test_an_unpicklable_base_exception_comes_back_as_task_failed(sandbox: Sandbox) -> None:
    """A BaseException that cannot be pickled (PanicException-like) → SandboxTaskFailed."""
    with pytest.raises(SandboxTaskFailed) as caught:
        await sandbox.run(_raise_unpicklable)
    assert caught.value.error_type == "_Unpicklable"
    assert "rust panicked" in caught.value.error_message
    assert await sandbox.run(_double, 1) == 2


async def test_a_picklable_exception_is_raised_as_itself(sandbox: Sandbox) -> None:
    """The child's own exception (here ValueError) reaches the caller unchanged."""
    with pytest.raises(ValueError, match="bad input"):
        await sandbox.run(_raise_value_error, "bad input")


def _spin(cpu_seconds: float) -> float:
    """Busy for `cpu_seconds` of this process's CPU time."""
    start = time.process_time()
    while time.process_time() - start < cpu_seconds:
        pass
    return cpu_seconds


async def test_a_task_over_its_cpu_time_is_ended() -> None:
    """RLIMIT_CPU per task: a loop is ended by SIGXCPU (SandboxCpuTimeout, a SandboxTimeout)
    long before the wall-clock limit; tasks under it add up to more than it and all pass."""
    settings = SandboxSettings(
        workers=1, timeout_seconds=120, cpu_seconds=1, memory_limit_bytes=None
    )
    async with Sandbox(settings) as box:
        assert [await box.run(_spin, 0.6) for _ in range(3)] == [0.6] * 3
        started = time.monotonic()
        with pytest.raises(SandboxCpuTimeout) as caught:
            await box.run(_spin, 60)
        assert time.monotonic() - started < 60
        assert isinstance(caught.value, SandboxTimeout)
        assert caught.value.cpu_seconds == 1
        assert await box.run(_double, 4) == 8


async def test_the_cpu_limit_holds_when_the_service_ignores_and_blocks_sigxcpu() -> None:
    """A service started with SIGXCPU ignored and blocked (both survive fork and exec, as
    from a runner that masks signals): each worker takes the signal back, so a task over its
    CPU time is still ended rather than running on to the wall-clock limit."""
    settings = SandboxSettings(
        workers=1,
        timeout_seconds=120,
        cpu_seconds=1,
        memory_limit_bytes=None,
        start_method="spawn",  # a child of this process, not of a forkserver started earlier
    )
    previous = signal.signal(signal.SIGXCPU, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGXCPU})
    try:
        async with Sandbox(settings) as box:
            started = time.monotonic()
            with pytest.raises(SandboxCpuTimeout):
                await box.run(_spin, 60)
            assert time.monotonic() - started < 60
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGXCPU})
        signal.signal(signal.SIGXCPU, previous)
