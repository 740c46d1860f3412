"""A service SIGKILLed leaves nothing behind: no fork server, resource tracker or worker.

A real process holding tabular-parser's worker pool (`build_recognizer`, two workers: one
idle, one kept busy) is killed with SIGKILL; every process it had started
must be gone within seconds.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux /proc")

_SERVICE = textwrap.dedent(
    """
    import asyncio, os, sys, time

    from services.runtime.settings import load_settings
    from services.tabular_parser.recognizer import build_recognizer
    from services.tabular_parser.settings import TabularParserSettings


    async def main() -> None:
        settings = load_settings(TabularParserSettings, pool={"workers": 2})
        built = build_recognizer(settings)
        box = built.resources[0]
        workers = await asyncio.gather(box.run(os.getpid), box.run(os.getpid))
        busy = asyncio.ensure_future(box.run(time.sleep, 600))  # one worker stays busy
        await asyncio.sleep(0.5)
        print(*workers, flush=True)
        await busy


    if __name__ == "__main__":
        asyncio.run(main())
    """
)


def _children(pid: int) -> set[int]:
    """Every live descendant of `pid` (from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended


def _gone_within(pids: set[int], seconds: float) -> set[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        left = {pid for pid in pids if _alive(pid)}
        if not left:
            return left
        time.sleep(0.1)
    return {pid for pid in pids if _alive(pid)}


def test_sigkill_of_the_service_leaves_no_process(tmp_path: Path) -> None:
    script = tmp_path / "service.py"
    script.write_text(_SERVICE)
    service = subprocess.Popen(
        [sys.executable, str(script)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )
    started: set[int] = set()
    try:
        assert service.stdout is not None
        workers = {int(pid) for pid in service.stdout.readline().split()}
        assert len(workers) == 2
        started = _children(service.pid)
        # the two workers, the fork server and the resource tracker
        assert workers < started and len(started) >= 4
        service.send_signal(signal.SIGKILL)
        service.wait(timeout=10)
        assert _gone_within(started, 15) == set()
    finally:
        for pid in {service.pid, *started}:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
