"""Start nats-server, an S3 endpoint and the three services as real processes on loopback.

The services run exactly as in production (`uvicorn … --factory`, `faststream run … --factory`),
configured only through the environment names of the contract, so the local stack exercises the
same code paths a deployment does.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from services.runtime.embedded import (
    NatsServer,
    S3Server,
    free_port,
    start_nats_server,
    start_s3_server,
)

__all__ = ["LocalStack", "ServiceSpec", "StackError"]

LOOPBACK = "127.0.0.1"


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

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"


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

    def env(self) -> dict[str, str]:
        """The environment every service gets: the contract's names, loopback endpoints."""
        if self.nats is None or self.s3 is None:
            msg = "start nats-server and S3 before asking for the services' environment"
            raise StackError(msg)
        db = self.data_dir / "arm-core.sqlite3"
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

    def start(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.nats = start_nats_server()
        self.s3 = start_s3_server()
        env = self.env()
        for spec in self.services:
            if not spec.available():
                continue
            port = free_port()
            log_path = self.data_dir / f"{spec.name}.log"
            with log_path.open("ab") as log:
                proc = subprocess.Popen(
                    spec.argv(port),
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            self.running.append(_Running(spec, port, proc, log_path))
        for svc in self.running:
            self._wait_healthy(svc)

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
        for server in (self.s3, self.nats):
            if server is not None:
                server.stop()
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
        lines.append("AsyncAPI site: asyncapi/index.html (open in a browser; works offline)")
        return "\n".join(lines)
