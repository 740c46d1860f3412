"""Run the real entry points as subprocesses: the installed `arm-ka` script and `python -m`."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARM_KA = Path(sys.executable).with_name("arm-ka")


def arm_ka(
    *args: str, env: Mapping[str, str] | None = None, timeout: float = 120.0
) -> subprocess.CompletedProcess[str]:
    """`arm-ka ARGS` as installed in the virtualenv (`pip install -e .` makes it)."""
    if not ARM_KA.exists():
        pytest.fail(f"{ARM_KA} is missing: run `.venv/bin/pip install -e .`")
    return _run([str(ARM_KA), *args], env=env, timeout=timeout)


def python_m(module: str, *args: str, timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
    """`python -m MODULE ARGS` with the test interpreter."""
    return _run([sys.executable, "-m", module, *args], timeout=timeout)


def python_c(code: str, *args: str, timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
    """`python -c CODE ARGS` with the test interpreter, in a fresh process."""
    return _run([sys.executable, "-c", code, *args], timeout=timeout)


def _run(
    argv: list[str], *, env: Mapping[str, str] | None = None, timeout: float
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
