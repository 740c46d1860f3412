"""`python -m services.devstack --demo --exit-after-demo`: every sample through the real
stack (three services as processes), every job final in done or needs_check."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from services.devstack._samples import samples

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.e2e
@pytest.mark.slow
def test_demo_ends_every_job_done_or_needs_check(tmp_path: Path) -> None:
    """The demo exits 0 and its summary shows each sample with a recognised status."""
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "services.devstack",
            "--demo",
            "--exit-after-demo",
            "--data-dir",
            str(tmp_path),
            "--timeout",
            "60",
            "--port",
            "0",  # any free ports: other stacks may hold the defaults on this machine
            "--nats-port",
            "0",
            "--s3-port",
            "0",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    summary = run.stdout.split("Demo summary:", 1)[1]
    statuses = dict(
        (name, status)
        for status, name in re.findall(r"^\s+(\S+)\s+(\S+\.\w+)$", summary, flags=re.MULTILINE)
    )
    assert set(statuses) == {sample.name for sample in samples()}
    assert set(statuses.values()) <= {"done", "needs_check"}
    assert (
        "проверки: все выполнены" in run.stdout or "не выполнено проверок:" in run.stdout
    )  # each job printed with its documents' checks
