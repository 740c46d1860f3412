"""Start nats-server, an S3 endpoint and the three services as real processes on loopback.

The services run exactly as in production (`uvicorn … --factory`, `faststream run … --factory`),
configured only through the environment names of the contract, so the local stack exercises the
same code paths a deployment does.

For the end-to-end and fault tests and the system benchmark the stack can also: give one
service its own environment (`service_env`), run several replicas of a service (`replicas`),
use a nats-server or S3 server the caller started (pass `nats=` / `s3=`; the caller stops
them), and kill, stop or start one service process while the rest keeps running.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from services.devstack.embedded import (
    NatsServer,
    S3Server,
    free_port,
    start_nats_server,
    start_s3_server,
)

__all__ = ["SQLITE_NAME", "LocalStack", "ServiceSpec", "StackError", "reset_local_state"]

LOOPBACK = "127.0.0.1"
SQLITE_NAME = "arm-core.sqlite3"


def reset_local_state(data_dir: Path) -> list[Path]:
    """Remove the embedded SQLite database (and its WAL files) from `data_dir`.

    moto's S3 server keeps objects in memory only, so a database surviving a restart would
    remember files whose objects are gone; the local stack therefore starts both fresh.
    Returns the files removed. Service logs are kept.
    """
    removed = []
    for suffix in ("", "-wal", "-shm", "-journal"):
        path = data_dir / f"{SQLITE_NAME}{suffix}"
        if path.exists():
            path.unlink()
            removed.append(path)
    return removed


def _check_free(what: str, port: int) -> None:
    """StackError when `port` is taken on loopback (a stale stack, another program)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((LOOPBACK, port))
        except OSError as exc:
            msg = f"port {port} for {what} on {LOOPBACK} is in use ({exc.strerror})"
            raise StackError(msg) from exc


class StackError(RuntimeError):
    """A part of the local stack did not come up."""


@dataclass(frozen=True, slots=True)
class ServiceSpec:
    """One service of the stack: how to run it and where its factory lives."""

    name: str
    module: str  # e.g. services.tabular_parser.app
    runner: str  # "uvicorn" | "faststream"

    def argv(self, port: int) -> list[str]:
        target = f"{self.module}:create_app"
        if self.runner == "uvicorn":
            return [
                sys.executable,
                "-m",
                "uvicorn",
                target,
                "--factory",
                "--host",
                LOOPBACK,
                "--port",
                str(port),
                "--log-level",
                "info",
            ]
        return [
            sys.executable,
            "-m",
            "faststream",
            "run",
            target,
            "--factory",
            "--host",
            LOOPBACK,
            "--port",
            str(port),
        ]

    def available(self) -> bool:
        return importlib.util.find_spec(self.module) is not None


SERVICES = (
    ServiceSpec("arm-core", "services.arm_core.app", "uvicorn"),
    ServiceSpec("tabular-parser", "services.tabular_parser.app", "faststream"),
    ServiceSpec("scan-gateway", "services.scan_gateway.app", "faststream"),
)


@dataclass
class _Running:
    spec: ServiceSpec
    port: int
    proc: subprocess.Popen[bytes]
    log_path: Path
    replica: int = 0

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None


@dataclass
class LocalStack:
    """The whole system on loopback. Use as a context manager; everything stops on exit."""

    data_dir: Path
    bucket: str = "arm-ka-uploads"
    extra_env: dict[str, str] = field(default_factory=dict)
    services: tuple[ServiceSpec, ...] = SERVICES
    startup_timeout: float = 60.0
    nats: NatsServer | None = None
    s3: S3Server | None = None
    running: list[_Running] = field(default_factory=list)
    # Extra environment of one service (by ServiceSpec.name), on top of `extra_env`.
    service_env: dict[str, dict[str, str]] = field(default_factory=dict)
    # How many processes of a service to run (by name; default 1). Replicas share the queue group.
    replicas: dict[str, int] = field(default_factory=dict)
    # Fixed ports (by ServiceSpec.name, and for the servers the stack starts); absent or 0:
    # any free port. Extra replicas always take a free port.
    ports: dict[str, int] = field(default_factory=dict)
    nats_port: int = 0
    s3_port: int = 0
    _owned: set[str] = field(default_factory=set, repr=False)

    def __enter__(self) -> LocalStack:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def core_url(self) -> str:
        for svc in self.running:
            if svc.spec.name == "arm-core":
                return svc.url
        msg = "arm-core is not running"
        raise StackError(msg)

    @property
    def core_urls(self) -> list[str]:
        """The API base URL of every arm-core replica."""
        return [svc.url for svc in self.processes("arm-core")]

    def processes(self, name: str) -> list[_Running]:
        """The started processes of one service (alive or not), in replica order."""
        return [svc for svc in self.running if svc.spec.name == name]

    def process(self, name: str, replica: int = 0) -> _Running:
        """One replica of a service."""
        for svc in self.processes(name):
            if svc.replica == replica:
                return svc
        msg = f"{name} replica {replica} was not started"
        raise StackError(msg)

    def env(self) -> dict[str, str]:
        """The environment every service gets: the contract's names, loopback endpoints."""
        if self.nats is None or self.s3 is None:
            msg = "start nats-server and S3 before asking for the services' environment"
            raise StackError(msg)
        db = self.data_dir / SQLITE_NAME
        env = {
            **os.environ,
            "OPENBAO__NATS__NATS_URL": self.nats.url,
            "OPENBAO__S3__S3_ENDPOINT_URL": self.s3.endpoint_url,
            "OPENBAO__S3__S3_REGION": "us-east-1",
            "OPENBAO__S3__S3_ACCESS_KEY": "local-access-key",
            "OPENBAO__S3__S3_SECRET_KEY": "local-secret-key",
            "OPENBAO__S3__S3_BUCKET": self.bucket,
            "OPENBAO__DB__DB_URL": f"sqlite+aiosqlite:///{db}",
            "FASTSTREAM_SUPERVISOR_DISABLED": "1",
            "PYTHONUNBUFFERED": "1",
        }
        env.update(self.extra_env)
        return env

    def service_environment(self, name: str) -> dict[str, str]:
        """The environment of one service: `env()` plus its `service_env` entry."""
        return {**self.env(), **self.service_env.get(name, {})}

    def start(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        services = [spec for spec in self.services if spec.available()]
        fixed = {spec.name: self.ports.get(spec.name, 0) for spec in services}
        if self.nats is None:
            fixed["nats-server"] = self.nats_port
        if self.s3 is None:
            fixed["S3"] = self.s3_port
        for what, port in fixed.items():
            if port:
                _check_free(what, port)
        if self.nats is None:
            self.nats = start_nats_server(port=self.nats_port or None)
            self._owned.add("nats")
        if self.s3 is None:
            self.s3 = start_s3_server(port=self.s3_port or None)
            self._owned.add("s3")
        for spec in services:
            for replica in range(max(1, self.replicas.get(spec.name, 1))):
                port = (fixed[spec.name] if replica == 0 else 0) or free_port()
                self.running.append(self._spawn(spec, port, replica))
        for svc in self.running:
            self._wait_healthy(svc)

    def _spawn(self, spec: ServiceSpec, port: int, replica: int) -> _Running:
        suffix = f"-{replica}" if replica else ""
        log_path = self.data_dir / f"{spec.name}{suffix}.log"
        with log_path.open("ab") as log:
            proc = subprocess.Popen(
                spec.argv(port),
                env=self.service_environment(spec.name),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        return _Running(spec, port, proc, log_path, replica)

    def kill_service(self, name: str, replica: int = 0, sig: int = signal.SIGKILL) -> None:
        """Send `sig` (SIGKILL: no goodbye) to one replica's whole process group and reap it.

        The group includes the service's worker processes, as a crashed container would lose
        them too.
        """
        svc = self.process(name, replica)
        if svc.alive:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(svc.proc.pid, sig)
        try:
            svc.proc.wait(20)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(svc.proc.pid, signal.SIGKILL)
            svc.proc.wait()

    def stop_service(self, name: str, replica: int = 0) -> None:
        """Stop one replica gracefully (SIGTERM), killing it after 20 s."""
        self.kill_service(name, replica, signal.SIGTERM)

    def start_service(self, name: str, replica: int = 0) -> None:
        """Start a stopped or killed replica again, on its port and with its environment,
        and wait for its /healthcheck. A replica still alive is left as it is."""
        svc = self.process(name, replica)
        if svc.alive:
            return
        fresh = self._spawn(svc.spec, svc.port, replica)
        self.running[self.running.index(svc)] = fresh
        self._wait_healthy(fresh)

    def _wait_healthy(self, svc: _Running) -> None:
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if svc.proc.poll() is not None:
                tail = svc.log_path.read_text(errors="replace")[-3000:]
                msg = f"{svc.spec.name} exited with {svc.proc.returncode}:\n{tail}"
                raise StackError(msg)
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{svc.url}/healthcheck", timeout=1.0).status_code == 200:
                    return
            time.sleep(0.2)
        msg = f"{svc.spec.name} did not answer /healthcheck within {self.startup_timeout:.0f} s"
        raise StackError(msg)

    def stop(self) -> None:
        for svc in reversed(self.running):
            if svc.proc.poll() is None:
                svc.proc.send_signal(signal.SIGTERM)
        for svc in reversed(self.running):
            try:
                svc.proc.wait(20)
            except subprocess.TimeoutExpired:
                svc.proc.kill()
                svc.proc.wait()
        self.running.clear()
        if "s3" in self._owned and self.s3 is not None:
            self.s3.stop()
        if "nats" in self._owned and self.nats is not None:
            self.nats.stop()
        self._owned.clear()
        self.s3 = self.nats = None

    def describe(self) -> str:
        lines = [
            f"nats-server   {self.nats.url if self.nats else '-'}",
            f"S3 (moto)     {self.s3.endpoint_url if self.s3 else '-'}",
        ]
        for svc in self.running:
            lines.append(f"{svc.spec.name:<13} {svc.url}/healthcheck   (log: {svc.log_path})")
            if svc.spec.name == "arm-core":
                lines.append(f"{'':<13} API {svc.url}/api/v1   OpenAPI {svc.url}/docs")
                lines.append(f"{'':<13} review pages {svc.url}/ui/files")
        lines.append("AsyncAPI site: asyncapi/index.html (open in a browser; works offline)")
        return "\n".join(lines)
