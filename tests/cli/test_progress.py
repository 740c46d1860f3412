"""The progress line of `arm-ka parse` (issue 17 item 9): on a terminal's stderr while the work
runs, never on a pipe. The terminal is a real pty."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import time
from pathlib import Path

from services.cli._local import Planned
from services.cli._progress import ProgressLine
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


def test_progress_shows_the_stage_and_the_files_on_a_terminal() -> None:
    """While a file is in work the line names it and its stage and counts the files done
    («[готово 1 из 2]»), redrawn in place on a real terminal, and erased when the work ends. Driven
    by the work's own events, so it does not depend on how fast this machine parses."""
    master, slave = pty.openpty()
    files = [
        Planned(Path("first.xlsx"), b"", "XLSX", "tabular-parser"),
        Planned(Path("second.xlsx"), b"", "XLSX", "tabular-parser"),
    ]
    with os.fdopen(slave, "w", encoding="utf-8") as terminal, ProgressLine(terminal, files) as line:
        assert line.enabled
        line("start", files[0])
        seen = _read_until(master, "first.xlsx: чтение книги XLSX")
        line("done", files[0])
        line("start", files[1])
        seen += _read_until(master, "[готово 1 из 2] second.xlsx: чтение книги XLSX")
        line("done", files[1])
    seen += _read_until(master, "")
    os.close(master)
    assert "\r\x1b[2K" in seen
    assert seen.endswith("\r\x1b[2K")  # the line is erased: the shell prompt starts clean


def test_a_parse_on_a_terminal_ends_with_the_line_erased_and_stdout_clean(tmp_path: Path) -> None:
    """`arm-ka parse` of two workbooks with stderr on a pty: whatever was drawn is erased at
    the end, and stdout keeps only the summary."""
    first, second = tmp_path / "first.xlsx", tmp_path / "second.xlsx"
    first.write_bytes(write_xlsx(onec_workbook()))
    second.write_bytes(write_xlsx([onec_income()]))
    code, stdout, terminal = _stderr_on_a_pty("parse", str(first), str(second))
    assert code == 0, terminal
    assert terminal.endswith("\r\x1b[2K")
    assert "чтение книги XLSX" not in stdout
    assert stdout.splitlines()[-1] == "итого файлов: 2 — готово: 2"


def _read_until(master: int, text: str, timeout: float = 10.0) -> str:
    """What the terminal shows until `text` has appeared (or, for "", until it is quiet)."""
    seen = ""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if not ready:
            if not text:
                return seen
            continue
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the terminal's other side is closed, nothing more will come
            break
        seen += chunk.decode(errors="replace")
        if text and text in seen:
            return seen
    assert not text, f"{text!r} never appeared on the terminal: {seen!r}"
    return seen


def test_no_progress_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    """stderr on a pipe (CI, a log file): not a byte of progress."""
    path = tmp_path / "income.xlsx"
    path.write_bytes(write_xlsx([onec_income()]))
    run = arm_ka("parse", str(path))
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""


def test_a_line_printed_while_the_progress_runs_starts_on_a_cleared_line() -> None:
    """A batch prints each file's line while the others run: `above()` erases the progress
    line first, so the printed line never follows its text on the terminal, and the progress
    is drawn again after it."""
    master, slave = pty.openpty()
    files = [
        Planned(Path("first.xlsx"), None, "XLSX", "tabular-parser"),
        Planned(Path("second.xlsx"), None, "XLSX", "tabular-parser"),
    ]
    with os.fdopen(slave, "w", encoding="utf-8") as terminal, ProgressLine(terminal, files) as line:
        line("start", files[0])
        line("start", files[1])
        seen = _read_until(master, "second.xlsx: чтение книги XLSX")
        line("done", files[0])
        with line.above():
            terminal.write("done         first.xlsx (XLSX): INCOME\n")
            terminal.flush()
        seen += _read_until(master, "[готово 1 из 2] second.xlsx")
        line("done", files[1])
    os.close(master)
    printed = seen.index("done         first.xlsx")
    assert seen[:printed].endswith("\r\x1b[2K")
    assert "[готово 1 из 2] second.xlsx" in seen[printed:]
