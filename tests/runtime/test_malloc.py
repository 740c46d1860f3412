"""Worker processes give freed large blocks back to the OS (`services.runtime.malloc`).

The workload is the shape that raised a worker's peak: one large block freed (glibc then
raises its mmap threshold to its size), then many 5 MiB buffers each followed by a 128 KiB
survivor, all buffers freed. Untuned, those buffers stay resident under the survivors; tuned
(threshold fixed at 4 MiB), they were mmapped and leave. The survivors are that big so that
they come from the top of the heap, not from a small chunk an import left free lower down
(with 600-byte survivors the untuned result depended on the imports before it).
"""

from __future__ import annotations

import platform
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from services.runtime.sandbox import Sandbox, SandboxSettings

_BUFFER_MIB = 5
_BUFFERS = 40
_SURVIVOR = 128 << 10  # 40 of them: 5 MiB that stay resident either way


def resident_left_after_transient_buffers() -> int:
    """MiB still resident after 200 MiB of freed transient buffers (run in a child)."""
    base = _rss_mib()
    big = bytearray(16 << 20)
    del big
    survivors: list[bytes] = []
    buffers: list[bytes] = []
    for _ in range(_BUFFERS):
        buffers.append(b"\x01" * (_BUFFER_MIB << 20))  # written, so resident
        survivors.append(b"\x02" * _SURVIVOR)  # too big for a free small chunk: pins the heap
    del buffers
    return _rss_mib() - base


def _rss_mib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) // 1024
    raise AssertionError("no VmRSS in /proc/self/status")


def _in_fresh_process(tuned: bool) -> int:
    code = (
        "from services.runtime.malloc import tune_worker_malloc\n"
        f"assert {tuned} is False or tune_worker_malloc() is True\n"
        "from tests.runtime.test_malloc import resident_left_after_transient_buffers as run\n"
        "print(run())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    return int(done.stdout.strip())


pytestmark = pytest.mark.skipif(
    sys.platform != "linux" or platform.libc_ver()[0] != "glibc", reason="needs Linux with glibc"
)


def test_untuned_glibc_keeps_freed_buffers_resident() -> None:
    """The problem the settings fix, shown on this machine's glibc."""
    assert _in_fresh_process(tuned=False) >= _BUFFERS * _BUFFER_MIB // 2


def test_tuned_process_returns_freed_buffers() -> None:
    assert _in_fresh_process(tuned=True) <= 20


@pytest.fixture
async def sandbox() -> AsyncIterator[Sandbox]:
    async with Sandbox(SandboxSettings(workers=1, timeout_seconds=60)) as box:
        yield box


async def test_sandbox_workers_are_tuned(sandbox: Sandbox) -> None:
    assert await sandbox.run(resident_left_after_transient_buffers) <= 20
