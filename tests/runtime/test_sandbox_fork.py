"""A sandbox's one worker forked from its parent (`Sandbox.start_by_fork`, what `arm-ka parse`
of one file uses): it has what the parent imported, large arguments and results travel whole
through the file the two share, and the sandbox's limits and failures stay what they are.

Each case runs in a fresh interpreter: forking needs a process with no other thread, which a
test session (its servers' threads) does not promise.
"""

from __future__ import annotations

import json
import os
import textwrap

import pytest

from tests.cli._run import python_c

_PRELUDE = """
import asyncio, json, os, sys, threading, time
from services.runtime.sandbox import Sandbox, SandboxSettings, SandboxTimeout

MARK = []


def marked() -> list[int]:
    return MARK


def pid() -> int:
    return os.getpid()


def big(size: int) -> dict[str, object]:
    return {"head": b"h" * 10, "body": bytes(range(256)) * (size // 256), "tail": b"t" * size}


def digest(data: bytes, small: bytes) -> list[object]:
    import hashlib

    return [hashlib.sha256(data).hexdigest(), len(data), small.decode()]


def sleep(seconds: float) -> None:
    time.sleep(seconds)


def allocate(size: int) -> int:
    return len(bytearray(size))


def fail(text: str) -> None:
    raise ValueError(text)


class Result:  # a value a weak reference can follow
    pass


def released(keep: bool) -> list[bool]:
    # Whether a value handed to `release_later` is still alive right after (kept when `keep`;
    # otherwise a new value given next replaces it), and whether the collector was told to
    # look away from what the process holds (gc.freeze).
    import gc, weakref
    from services.runtime.sandbox import release_later

    gc.unfreeze()
    value = Result()
    alive = weakref.ref(value)
    release_later(value)
    if not keep:
        release_later(None)
    del value
    return [alive() is not None, gc.get_freeze_count() > 0]
"""


def _run(body: str) -> object:
    """The JSON the snippet prints as its last line, run after `_PRELUDE` as a script."""
    done = python_c(_PRELUDE + "\n" + textwrap.dedent(body))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_forked_worker_has_what_its_parent_holds_and_runs_in_another_process() -> None:
    """State the parent built after its imports is in the worker: it was forked, not started
    by the fork server (whose workers import the modules afresh)."""
    found = _run(
        """
        MARK.append(7)
        box = Sandbox(SandboxSettings(workers=1, memory_limit_bytes=None))
        box.start_by_fork()

        async def main() -> list[object]:
            async with box:
                return [await box.run(marked), await box.run(pid) != os.getpid()]

        print(json.dumps(asyncio.run(main())))
        """
    )
    assert found == [[7], True]


def test_large_arguments_and_results_travel_whole_through_the_shared_file() -> None:
    """Bytes of several MiB reach the worker and come back equal and as bytes, beside the
    small ones, and the shared file is emptied once they are read."""
    found = _run(
        """
        import hashlib
        box = Sandbox(SandboxSettings(workers=1, memory_limit_bytes=None))
        box.start_by_fork()
        size = 3 * 1024 * 1024
        data = os.urandom(size)

        async def main() -> list[object]:
            async with box:
                got = await box.run(big, size)
                sent = await box.run(digest, data, b"small")
                again = await box.run(big, 512)
                shared = box._slots[0].shared
                left = os.fstat(shared).st_size if shared is not None else -1
                return [
                    got == big(size),
                    [type(v).__name__ for v in got.values()],
                    sent == [hashlib.sha256(data).hexdigest(), size, "small"],
                    again == big(512),
                    shared is not None,
                    left,
                ]

        print(json.dumps(asyncio.run(main())))
        """
    )
    assert found == [True, ["bytes", "bytes", "bytes"], True, True, True, 0]


def test_limits_and_failures_are_the_sandboxes_own_and_a_killed_worker_is_rebuilt() -> None:
    """Under fork the memory limit, the raised error and the timeout work as for any worker;
    the worker rebuilt after the kill is started by the fork server (its parent is not this
    process), and it works."""
    found = _run(
        """
        limit = 512 * 1024 * 1024
        box = Sandbox(SandboxSettings(workers=1, memory_limit_bytes=limit, timeout_seconds=2))
        box.start_by_fork()

        async def main() -> list[object]:
            out: list[object] = []
            async with box:
                try:
                    await box.run(allocate, 2 * limit)
                except Exception as exc:
                    out.append(type(exc).__name__)
                try:
                    await box.run(fail, "named")
                except ValueError as exc:
                    out.append(str(exc))
                out.append(await box.run(os.getppid) == os.getpid())
                try:
                    await box.run(sleep, 30)
                except SandboxTimeout:
                    out.append("timeout")
                out.append(await box.run(os.getppid) == os.getpid())
                out.append(await box.run(abs, -3))
            return out

        print(json.dumps(asyncio.run(main())))
        """
    )
    assert found == ["SandboxMemoryError", "named", True, "timeout", False, 3]


@pytest.mark.parametrize(
    ("setup", "error"),
    [
        ("box = Sandbox(SandboxSettings(workers=2))", "ValueError"),
        (
            "threading.Thread(target=time.sleep, args=(5,), daemon=True).start()\n"
            "box = Sandbox(SandboxSettings(workers=1))",
            "RuntimeError",
        ),
    ],
    ids=["two-workers", "another-thread"],
)
def test_a_worker_is_forked_only_alone_from_a_process_with_one_thread(
    setup: str, error: str
) -> None:
    """Two workers, or a thread beside the main one (whose locks a fork could copy held),
    refuse the fork before any process starts."""
    found = _run(
        setup
        + """
try:
    box.start_by_fork()
except Exception as exc:
    print(json.dumps(type(exc).__name__))
else:
    print(json.dumps("started"))
"""
    )
    assert found == error


def test_large_bytes_travel_in_the_shared_file_and_only_their_place_in_the_pickle() -> None:
    """Wherever large bytes sit in a value, the file holds them and the pickle (what the
    pool's pipe carries) only the rest; reading them back empties the file."""
    from services.runtime.sandbox import _pack, _unpack

    large, other = b"\x01" * (2 << 20), bytes(range(256)) * 8192
    value = {"nested": [("x", large)], "again": other, "small": b"s" * 100}
    shared = os.memfd_create("test-shared")
    try:
        blob, sizes = _pack(value, shared)
        assert os.fstat(shared).st_size == len(large) + len(other)
        assert len(blob) < 1024
        assert _unpack(shared, blob, sizes) == value
        assert os.fstat(shared).st_size == 0
    finally:
        os.close(shared)


def test_a_forked_worker_keeps_a_released_value_until_it_is_replaced() -> None:
    """`release_later` in the worker forked for one file keeps the value (its freeing would sit
    before the reply, and the worker's exit frees nothing) and freezes what it holds (the
    collector's pass over it would sit there too); the next value replaces it, so at most one
    result is held. Any other process (a fork-server worker, here the parent: the flag is only
    set by the forked worker's task) lets go of it at once and freezes nothing."""
    found = _run(
        """
        forked = Sandbox(SandboxSettings(workers=1, memory_limit_bytes=None))
        forked.start_by_fork()

        async def main() -> list[list[bool]]:
            async with forked:
                return [
                    await forked.run(released, True),
                    await forked.run(released, False),
                    released(True),
                ]

        print(json.dumps(asyncio.run(main())))
        """
    )
    assert found == [[True, True], [False, True], [False, False]]
