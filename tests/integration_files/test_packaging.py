"""The production install carries only what runs: the services import nothing the lock file
(what the image installs) lacks, the lock pins every run-time dependency of pyproject and no
dev-only one, and the Dockerfile installs the lock without extras. No Docker engine here: the
files are read and cross-checked, and the services' modules are imported for real."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "requirements.lock"
DOCKERFILE = ROOT / "Dockerfile"
PROJECT = "arm-ka-recognition"

# What the image runs (compose.yaml, Dockerfile), each module's app built as its runner does.
_ENTRY_POINTS = {
    "arm-core": "services.arm_core.app",
    "tabular-parser": "services.tabular_parser.app",
    "scan-gateway": "services.scan_gateway.app",
}
# Modules the worker processes and the migration step import on top of the app module.
_ALSO = {
    "arm-core": ["services.arm_core.__main__", "services.arm_core.db.migrate"],
    "tabular-parser": ["services.tabular_parser.recognizer"],
    "scan-gateway": ["services.scan_gateway.recognizer", "services.scan_gateway.local"],
}
_PROBE = """
import importlib, importlib.abc, json, sys

blocked = set(json.loads(sys.argv[1]))


class _Absent(importlib.abc.MetaPathFinder):
    # As in the image, where these are not installed: an optional import falls back.
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in blocked:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, _Absent())
module = importlib.import_module(sys.argv[2])
module.create_app()
for extra in sys.argv[3:]:
    importlib.import_module(extra)
print(json.dumps({"modules": sorted(sys.modules)}))
"""
_PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[^\s;\\]+)", re.MULTILINE)


def _project() -> dict[str, Any]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert isinstance(project, dict)
    return project


def _locked() -> dict[str, set[Version]]:
    """Distribution name → the versions the lock pins (one per Python-version fork)."""
    pins: dict[str, set[Version]] = {}
    for match in _PIN.finditer(LOCK.read_text(encoding="utf-8")):
        pins.setdefault(canonicalize_name(match["name"]), set()).add(Version(match["version"]))
    return pins


def _extras_only() -> set[str]:
    """Distributions named only by the extras (dev, devstack), never by the dependencies."""
    project = _project()
    runtime = {str(canonicalize_name(Requirement(r).name)) for r in project["dependencies"]}
    extras = {
        str(canonicalize_name(Requirement(r).name))
        for group in project["optional-dependencies"].values()
        for r in group
    }
    return extras - runtime - {PROJECT}


def _modules_of(dists: set[str]) -> set[str]:
    return {
        module
        for module, owners in packages_distributions().items()
        if any(canonicalize_name(d) in dists for d in owners)
    }


def _absent_in_image() -> set[str]:
    """Top-level modules installed here whose distribution the lock does not pin (the extras
    and what they pull in); pip and setuptools come with the base image."""
    installed = {str(canonicalize_name(d)) for ds in packages_distributions().values() for d in ds}
    return _modules_of(installed - set(_locked()) - {PROJECT, "pip", "setuptools", "wheel"})


def _imported(service: str) -> list[str]:
    """sys.modules of a fresh interpreter that built `service`'s app with every module the
    image lacks made absent (an optional import falls back, a needed one fails the build)."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _PROBE,
            json.dumps(sorted(_absent_in_image())),
            _ENTRY_POINTS[service],
            *_ALSO[service],
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    return [str(m) for m in report["modules"]]


@pytest.mark.parametrize("service", sorted(_ENTRY_POINTS))
def test_service_runs_on_the_locked_packages_alone(service: str) -> None:
    """With every module of a package the lock does not pin made absent, as in the image (moto,
    xlsxwriter, reportlab, pytest, … among them), the service's app, its workers' and its
    migration's modules still build, and nothing of the devstack or the tests is imported."""
    absent = _absent_in_image()
    assert {"moto", "xlsxwriter", "xlwt", "reportlab", "pytest", "yaml"} <= absent
    assert _modules_of(_extras_only()) <= absent
    modules = _imported(service)
    assert _ENTRY_POINTS[service] in modules  # the probe did import the app
    ours = [m for m in modules if m == "tests" or m.startswith(("tests.", "services.devstack"))]
    assert ours == []
    assert {m.split(".")[0] for m in modules} & absent == set()


def test_lock_satisfies_every_runtime_dependency() -> None:
    """Every dependency of pyproject is pinned in the lock at a version its specifier allows,
    with the distributions its extras pull in (faststream[nats] → nats-py)."""
    locked = _locked()
    for line in _project()["dependencies"]:
        requirement = Requirement(line)
        name = canonicalize_name(requirement.name)
        assert name in locked, f"{name} is not in requirements.lock (run `make lock`)"
        for version in locked[name]:
            assert requirement.specifier.contains(version, prereleases=True), (name, version)
    assert "nats-py" in locked
    assert "greenlet" in locked  # sqlalchemy[asyncio]


def test_lock_has_no_dev_only_package() -> None:
    """Nothing that only the extras name (test servers, sample writers, linters) is locked."""
    assert _extras_only() & set(_locked()) == set()


def test_lock_pins_with_hashes() -> None:
    """Every pin carries sha256 hashes, so pip's --require-hashes installs the same files."""
    text = LOCK.read_text(encoding="utf-8")
    blocks = re.split(r"\n(?=[A-Za-z0-9])", text.split("\n", 2)[-1])
    pinned = [b for b in blocks if _PIN.match(b)]
    assert len(pinned) == sum(len(v) for v in _locked().values()) > 30
    for block in pinned:
        assert "--hash=sha256:" in block, block.splitlines()[0]


def _run_lines() -> list[str]:
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text(encoding="utf-8"))
    return [
        " ".join(line.split()[1:])
        for line in text.splitlines()
        if line.strip().upper().startswith("RUN ")
    ]


def test_dockerfile_installs_the_lock_and_no_extra() -> None:
    """The image installs requirements.lock with hashes required before the project, then the
    project itself with --no-deps and without any extra (no `[dev]`, no `[devstack]`)."""
    pips = [line for line in _run_lines() if "pip install" in line]
    lock_step = next(i for i, line in enumerate(pips) if "requirements.lock" in line)
    assert "--require-hashes" in pips[lock_step]
    project_step = next(i for i, line in enumerate(pips) if "/wheels/" in line)
    assert lock_step < project_step
    assert "--no-deps" in pips[project_step]
    # No extra in what pip is given (a shell test `[ -s … ]` before it is no extra).
    assert not any("[" in line.split("pip install", 1)[1] for line in pips)
    copied = DOCKERFILE.read_text(encoding="utf-8")
    assert re.search(r"^COPY requirements\.lock ", copied, re.MULTILINE)
