"""The progress line of `arm-ka parse` (issue 17 item 9): on a terminal's stderr while the work
runs, never on a pipe. The terminal is a real pty."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import time
from pathlib import Path

from tests.builders import write_xlsx
from tests.cli._run import ARM_KA, ROOT, arm_ka
from tests.tabular_parser.statements._forms import onec_income, onec_workbook


def _stderr_on_a_pty(*args: str, timeout: float = 120.0) -> tuple[int, str, str]:
    """Run `arm-ka ARGS` with stderr on a pty (stdout a pipe): exit code, stdout, pty text."""
    master, slave = pty.openpty()
    process = subprocess.Popen(
        [str(ARM_KA), *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=slave, text=False
    )
    os.close(slave)
    seen = bytearray()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed its side
                break
            if not chunk:
                break
            seen += chunk
        elif process.poll() is not None:
            break
    stdout, _ = process.communicate(timeout=timeout)
    os.close(master)
    return process.returncode, stdout.decode(), seen.decode(errors="replace")


def test_progress_shows_the_stage_and_the_files_on_a_terminal(tmp_path: Path) -> None:
    """Two workbooks: the line names the file being read and its stage, counts the files done
    («[1/2 done]»), redraws in place and is erased at the end; stdout keeps only the summary."""
    first, second = tmp_path / "first.xlsx", tmp_path / "second.xlsx"
    first.write_bytes(write_xlsx(onec_workbook()))
    second.write_bytes(write_xlsx([onec_income()]))
    code, stdout, terminal = _stderr_on_a_pty("parse", str(first), str(second))
    assert code == 0, terminal
    assert "reading XLSX workbook" in terminal
    assert "first.xlsx" in terminal
    assert "/2 done]" in terminal
    assert "\r\x1b[2K" in terminal
    assert terminal.endswith("\r\x1b[2K")  # the line is erased: the shell prompt starts clean
    assert "reading XLSX workbook" not in stdout
    assert stdout.splitlines()[-1] == "total: 2 files — 2 done"


def test_no_progress_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    """stderr on a pipe (CI, a log file): not a byte of progress."""
    path = tmp_path / "income.xlsx"
    path.write_bytes(write_xlsx([onec_income()]))
    run = arm_ka("parse", str(path))
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
