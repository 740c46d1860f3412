"""The local stack's fixed ports, the exact `arm-ka` command it prints, and its fresh state."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from services.devstack.__main__ import arm_ka_command
from services.devstack._stack import SQLITE_NAME, LocalStack, StackError, reset_local_state
from services.devstack.embedded import free_port

ROOT = Path(__file__).resolve().parents[2]


def _three_free_ports() -> int:
    """A port P with P+1 and P+2 free as well (the stack puts the parsers there)."""
    for _ in range(50):
        port = free_port()
        if port + 2 > 65535:
            continue
        try:
            with socket.socket() as a, socket.socket() as b:
                a.bind(("127.0.0.1", port + 1))
                b.bind(("127.0.0.1", port + 2))
        except OSError:
            continue
        return port
    pytest.skip("no three consecutive free ports")


def test_a_taken_port_stops_the_stack_before_anything_starts(tmp_path: Path) -> None:
    """A port held by another program is named in a StackError, and no server was started
    (a stale nats-server on the port would otherwise pass for ours)."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        stack = LocalStack(data_dir=tmp_path, ports={"arm-core": port})
        with pytest.raises(StackError, match=rf"port {port} for arm-core .* in use"):
            stack.start()
        assert stack.nats is None and stack.s3 is None and stack.running == []


def test_reset_removes_the_database_and_keeps_the_logs(tmp_path: Path) -> None:
    """A start is fresh: the SQLite file and its WAL files go, the service logs stay."""
    for name in (SQLITE_NAME, f"{SQLITE_NAME}-wal", f"{SQLITE_NAME}-shm", "arm-core.log"):
        (tmp_path / name).write_text("x")
    removed = reset_local_state(tmp_path)
    assert sorted(p.name for p in removed) == [
        SQLITE_NAME,
        f"{SQLITE_NAME}-shm",
        f"{SQLITE_NAME}-wal",
    ]
    assert [p.name for p in tmp_path.iterdir()] == ["arm-core.log"]
    assert reset_local_state(tmp_path) == []


def test_the_printed_command_names_the_venvs_arm_ka_and_the_core() -> None:
    """The command is runnable as printed: the arm-ka next to this interpreter, the core URL."""
    command = arm_ka_command("http://127.0.0.1:8123")
    binary, rest = command.split(" ", 1)
    assert Path(binary).name == "arm-ka"
    assert (Path.cwd() / binary).parent == Path(sys.executable).parent
    assert rest == "recognize FILE --core http://127.0.0.1:8123"


@pytest.mark.e2e
@pytest.mark.slow
def test_make_run_serves_the_core_on_the_chosen_port_and_says_so(tmp_path: Path) -> None:
    """`python -m services.devstack --port P`: the core answers on P, the parsers on P+1 and
    P+2; the output prints the exact arm-ka command for P and says the state is fresh, and
    every URL it prints answers 200; an old SQLite file in the data folder is gone."""
    (tmp_path / SQLITE_NAME).write_text("an old database")
    port = _three_free_ports()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "services.devstack",
            "--data-dir",
            str(tmp_path),
            "--port",
            str(port),
            "--nats-port",
            "0",
            "--s3-port",
            "0",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("Running.") or line.startswith("error:"):
                break
        out = "".join(lines)
        assert "Running." in out, out
        assert f"recognize FILE --core http://127.0.0.1:{port}\n" in out
        assert "Local state: fresh (removed the previous SQLite file;" in out
        for offset in (0, 1, 2):
            health = httpx.get(f"http://127.0.0.1:{port + offset}/healthcheck", timeout=5)
            assert health.status_code == 200
        assert httpx.get(f"http://127.0.0.1:{port}/api/v1/files").json()["total"] == 0
        # Every URL it prints answers (the API's root, the docs, the pages, S3, the probes).
        printed = set(re.findall(r"http://127\.0\.0\.1:\d+\S*", out))
        assert f"http://127.0.0.1:{port}/api/v1" in printed
        for url in sorted(printed):
            answer = httpx.get(url, timeout=5, follow_redirects=True)
            assert answer.status_code == 200, (url, answer.status_code)
    finally:
        proc.terminate()
        proc.wait(60)
