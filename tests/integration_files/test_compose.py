"""compose.yaml and the Dockerfile agree with the code: no Docker engine runs here, so the files
are parsed and cross-checked against the modules, the settings classes and each other."""

from __future__ import annotations

import importlib
import inspect
import json
import os
import re
import shlex
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import AliasChoices, BaseModel

from services.runtime.settings import SUBJECT_KEYS, Settings, SettingsError, load_settings

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "compose.yaml"
DOCKERFILE = ROOT / "Dockerfile"

APP_SERVICES = {
    # compose service → (package, port)
    "arm-core": ("arm_core", 8000),
    "tabular-parser": ("tabular_parser", 8001),
    "scan-gateway": ("scan_gateway", 8002),
}
_SUBSTITUTION = re.compile(r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?::?-(?P<default>[^}]*))?\}")
_DB_USER = re.compile(r"^[^:]+://(?P<user>\$\{[^}]*\}|[^:@/]*)@")
_SECRET_KEYS = (
    "OPENBAO__NATS__NATS_JWT",
    "OPENBAO__NATS__NATS_SEED",
    "OPENBAO__S3__S3_ACCESS_KEY",
    "OPENBAO__S3__S3_SECRET_KEY",
    "OPENBAO__SCAN__SCAN_TOKEN",
    "OPENBAO__AUTH__AUTH_CLIENT_SECRET",
    "MINIO_ROOT_USER",
    "MINIO_ROOT_PASSWORD",
    "POSTGRES_PASSWORD",
    "OPENBAO__DB__DB_PASSWORD",
)


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    loaded = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def _service(compose: dict[str, Any], name: str) -> dict[str, Any]:
    service = compose["services"][name]
    assert isinstance(service, dict)
    return service


def _command(service: dict[str, Any]) -> list[str]:
    command = service["command"]
    return shlex.split(command) if isinstance(command, str) else [str(a) for a in command]


def _option(command: list[str], name: str) -> str:
    return command[command.index(name) + 1]


def _module_file(dotted: str) -> Path:
    path = ROOT.joinpath(*dotted.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def _env(service: dict[str, Any]) -> dict[str, str | None]:
    env = service.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) if "=" in item else (item, None) for item in env)
    return {str(k): None if v is None else str(v) for k, v in env.items()}


def _interpolate(value: str) -> str:
    """What compose makes of `value` with no variable set: every `${VAR:-default}` → default."""
    return _SUBSTITUTION.sub(lambda m: m["default"] or "", value)


def _settings_class(package: str) -> type[Settings]:
    """The service's settings class: the Settings subclass its settings module defines, else
    the shared base (a service without knobs of its own)."""
    if not _module_file(f"services.{package}.settings").exists():
        return Settings
    module = importlib.import_module(f"services.{package}.settings")
    own = [
        obj
        for obj in vars(module).values()
        if inspect.isclass(obj)
        and issubclass(obj, Settings)
        and obj is not Settings
        and obj.__module__ == module.__name__
    ]
    assert len(own) == 1, f"services.{package}.settings defines {own}"
    return own[0]


def _env_names(cls: type[Settings]) -> set[str]:
    """Every environment name `cls` reads: OPENBAO__<GROUP>__<FIELD> for the groups,
    the plain alias for the knobs, OPENBAO__<FIELD> for anything else."""
    names: set[str] = set()
    for field_name, info in cls.model_fields.items():
        annotation = info.annotation
        alias = info.validation_alias
        if inspect.isclass(annotation) and issubclass(annotation, BaseModel):
            for sub in annotation.model_fields:
                names.add(f"OPENBAO__{field_name.upper()}__{sub.upper()}")
        elif isinstance(alias, AliasChoices):
            names.update(a.upper() for a in alias.choices if isinstance(a, str))
        elif isinstance(alias, str):
            names.add(alias.upper())
        else:
            names.add(f"OPENBAO__{field_name.upper()}")
    return names


# --- commands ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(APP_SERVICES))
def test_command_names_an_existing_app_factory(compose: dict[str, Any], name: str) -> None:
    """Each service's command runs `<module>:create_app --factory`, and that module exists and
    defines `create_app`."""
    command = _command(_service(compose, name))
    package, _ = APP_SERVICES[name]
    target = next(arg for arg in command if ":" in arg and not arg.startswith("-"))
    module, factory = target.split(":")
    assert module == f"services.{package}.app"
    assert factory == "create_app"
    assert "--factory" in command
    source = _module_file(module)
    assert source.is_file(), f"{source} does not exist"
    assert re.search(r"^def create_app\(", source.read_text(encoding="utf-8"), re.MULTILINE)


def test_runners_match_the_contract(compose: dict[str, Any]) -> None:
    """arm-core runs under uvicorn (FastAPI), the recognition services under `faststream run`."""
    assert _command(_service(compose, "arm-core"))[0] == "uvicorn"
    for name in ("tabular-parser", "scan-gateway"):
        assert _command(_service(compose, name))[:2] == ["faststream", "run"]


@pytest.mark.parametrize("name", sorted(APP_SERVICES))
def test_port_of_command_matches_healthcheck_and_published_ports(
    compose: dict[str, Any], name: str
) -> None:
    """The port the command listens on is the one the healthcheck asks and the one published
    or exposed; the host is 0.0.0.0 so the port is reachable from other containers."""
    service = _service(compose, name)
    command = _command(service)
    port = int(_option(command, "--port"))
    assert port == APP_SERVICES[name][1]
    assert _option(command, "--host") == "0.0.0.0"

    probe = " ".join(str(part) for part in service["healthcheck"]["test"])
    assert f"127.0.0.1:{port}/healthcheck" in probe

    targets = [int(str(p).rsplit(":", 1)[-1]) for p in service.get("ports", [])]
    targets += [int(p) for p in service.get("expose", [])]
    assert targets, f"{name} neither publishes nor exposes its port"
    assert set(targets) == {port}


def test_core_is_migrated_first(compose: dict[str, Any]) -> None:
    """`python -m services.arm_core migrate` runs as a one-shot that arm-core waits for."""
    migrate = _service(compose, "arm-core-migrate")
    assert _command(migrate) == ["python", "-m", "services.arm_core", "migrate"]
    main = _module_file("services.arm_core.__main__")
    assert "migrate" in main.read_text(encoding="utf-8")
    core_deps = _service(compose, "arm-core")["depends_on"]
    assert core_deps["arm-core-migrate"]["condition"] == "service_completed_successfully"
    assert migrate["depends_on"]["postgres"]["condition"] == "service_healthy"


# --- dependencies and infrastructure -----------------------------------------------------------


def test_depends_on_conditions_are_satisfiable(compose: dict[str, Any]) -> None:
    """Every dependency names a service; `service_healthy` ones have a healthcheck,
    `service_completed_successfully` ones are one-shots that are not restarted."""
    services = compose["services"]
    for name, service in services.items():
        for dep, spec in (service.get("depends_on") or {}).items():
            assert dep in services, f"{name} depends on unknown {dep}"
            condition = spec["condition"]
            if condition == "service_healthy":
                assert "healthcheck" in services[dep], f"{dep} has no healthcheck"
            elif condition == "service_completed_successfully":
                assert services[dep].get("restart") == "no", f"{dep} is not a one-shot"
            else:
                assert condition == "service_started"


@pytest.mark.parametrize("name", sorted(APP_SERVICES))
def test_services_wait_for_nats_and_storage(compose: dict[str, Any], name: str) -> None:
    """Each service starts after NATS is healthy and the bucket exists; the core also after
    PostgreSQL."""
    deps = _service(compose, name)["depends_on"]
    assert deps["nats"]["condition"] == "service_healthy"
    assert deps["minio-init"]["condition"] == "service_completed_successfully"
    if name == "arm-core":
        assert deps["postgres"]["condition"] == "service_healthy"


def test_infrastructure_images(compose: dict[str, Any]) -> None:
    """NATS 2.10 as core NATS (no JetStream flag), PostgreSQL 16, MinIO with a bucket init;
    every third-party image pinned to a release (no floating `2.10` / `16` / `latest`)."""
    nats = _service(compose, "nats")
    assert re.fullmatch(r"nats:2\.10\.\d+-alpine", _interpolate(nats["image"]))
    assert not {"-js", "--jetstream"} & set(_command(nats))
    assert re.fullmatch(r"postgres:16\.\d+", _interpolate(_service(compose, "postgres")["image"]))
    for name in ("minio", "minio-init"):
        assert ":RELEASE." in _interpolate(_service(compose, name)["image"])
    init = _service(compose, "minio-init")
    assert "mc mb" in " ".join(_command(init))
    assert init["depends_on"]["minio"]["condition"] == "service_healthy"


def test_tabular_parser_scales_out(compose: dict[str, Any]) -> None:
    """tabular-parser runs replicas (its queue group spreads the load)."""
    assert _service(compose, "tabular-parser")["deploy"]["replicas"] >= 2


@pytest.mark.parametrize("name", ["tabular-parser", "scan-gateway"])
def test_a_recogniser_can_be_scaled(compose: dict[str, Any], name: str) -> None:
    """`--scale NAME=2` works: no fixed host port and no container name that replicas would
    fight over."""
    service = _service(compose, name)
    assert "ports" not in service
    assert "container_name" not in service


@pytest.mark.parametrize("name", sorted(APP_SERVICES))
def test_every_service_is_built_from_the_one_dockerfile(compose: dict[str, Any], name: str) -> None:
    """The three services share one image; only the command differs."""
    service = _service(compose, name)
    assert service["build"] == "."
    images = {_service(compose, n)["image"] for n in APP_SERVICES}
    assert images == {service["image"]}


# --- environment ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(APP_SERVICES))
def test_environment_names_are_real_settings(compose: dict[str, Any], name: str) -> None:
    """Every environment name given to a service is a field of its settings class (a typo
    would be silently ignored by pydantic-settings)."""
    cls = _settings_class(APP_SERVICES[name][0])
    known = _env_names(cls)
    assert "OPENBAO__NATS__NATS_RESULT_SUBJECT" in known  # the derivation itself works
    unknown = set(_env(_service(compose, name))) - known
    assert unknown == set()


@pytest.mark.parametrize("name", sorted(APP_SERVICES))
def test_environment_builds_valid_settings(
    compose: dict[str, Any], name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the local defaults interpolated, the environment of each service loads into its
    settings class: subjects pass the spec's rules, URLs point at the compose services."""
    cls = _settings_class(APP_SERVICES[name][0])
    env = _env(_service(compose, name))
    for key in list(os.environ):
        if key.startswith("OPENBAO__") or key.upper() in _env_names(cls):
            monkeypatch.delenv(key)
    for key, value in env.items():
        if value is not None:
            monkeypatch.setenv(key, _interpolate(value))
    try:
        settings = load_settings(cls)
    except SettingsError as exc:  # pragma: no cover - the failure message is the point
        pytest.fail(f"{name}: {exc}")
    assert settings.nats.servers == ["nats://nats:4222"]
    assert settings.s3.s3_endpoint_url == "http://minio:9000"
    if name == "arm-core":
        assert "@postgres:5432/" in settings.db.url
        assert settings.db.url.startswith("postgresql+asyncpg://")


def test_required_settings_are_given(compose: dict[str, Any]) -> None:
    """The spec's settings reach the services that use them."""
    common = {
        *SUBJECT_KEYS.values(),
        "OPENBAO__NATS__NATS_URL",
        "OPENBAO__NATS__NATS_JWT",
        "OPENBAO__NATS__NATS_SEED",
        "OPENBAO__S3__S3_ENDPOINT_URL",
        "OPENBAO__S3__S3_ACCESS_KEY",
        "OPENBAO__S3__S3_SECRET_KEY",
        "PUBLISH_RETRIES",
    }
    extra = {
        "arm-core": {
            "OPENBAO__DB__DB_URL",
            "OPENBAO__DB__DB_PASSWORD",
            "OPENBAO__S3__S3_BUCKET",
            "ACK_TIMEOUT_SECONDS",
            "OUTBOX_MAX_REPUBLISH",
        },
        "tabular-parser": set(),
        "scan-gateway": {"OPENBAO__SCAN__SCAN_URL", "OPENBAO__SCAN__SCAN_TOKEN"},
    }
    for name in APP_SERVICES:
        missing = (common | extra[name]) - set(_env(_service(compose, name)))
        assert missing == set(), f"{name} lacks {sorted(missing)}"


def test_all_services_share_identical_subject_settings(compose: dict[str, Any]) -> None:
    """The core and both services of one environment use the same three subjects (spec 001)."""
    seen = {
        name: {key: _env(_service(compose, name)).get(key) for key in SUBJECT_KEYS.values()}
        for name in APP_SERVICES
    }
    first = seen["arm-core"]
    assert all(value for value in first.values())
    assert all(subjects == first for subjects in seen.values()), seen


def test_no_literal_secrets(compose: dict[str, Any]) -> None:
    """Secret values come from the environment: each is a ${VAR} substitution (a local dev
    default is allowed inside it) or passed through unset; the DB password likewise."""
    for name, service in compose["services"].items():
        for key, value in _env(service).items():
            if key in _SECRET_KEYS:
                assert value is None or value.startswith("${"), f"{name}: {key} is literal"
            if key == "OPENBAO__DB__DB_URL":
                assert value is not None
                assert _DB_USER.match(value), f"{name}: DB URL with a password or no user"


# --- Dockerfile ------------------------------------------------------------------------------


def _dockerfile() -> list[tuple[str, str]]:
    """The instructions as (KEYWORD, arguments), continuation lines joined."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text(encoding="utf-8"))
    instructions = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            keyword, _, args = stripped.partition(" ")
            instructions.append((keyword.upper(), " ".join(args.split())))
    return instructions


def _all(keyword: str) -> list[str]:
    return [args for kw, args in _dockerfile() if kw == keyword]


def _stages() -> list[list[tuple[str, str]]]:
    """The instructions of each build stage, in order (a stage starts at its FROM)."""
    stages: list[list[tuple[str, str]]] = []
    for keyword, args in _dockerfile():
        if keyword == "FROM":
            stages.append([])
        if stages:
            stages[-1].append((keyword, args))
    return stages


def test_dockerfile_installs_the_project() -> None:
    """python:3.11-slim; pyproject, services/ and contracts/ copied; the project's wheel built
    in a `build` stage and installed in the image; Tesseract with Russian and English for the
    scan-gateway; a non-root user."""
    assert _all("FROM") == ["python:3.11-slim AS build", "python:3.11-slim"]
    copies = _all("COPY")
    copied = {src for args in copies for src in args.split()[:-1]}
    assert {"pyproject.toml", "README.md", "services", "contracts"} <= copied
    build, image = (" ".join(args for kw, args in stage if kw == "RUN") for stage in _stages())
    assert "pip wheel --no-deps --wheel-dir /wheels ." in build
    assert "pip install --no-deps /wheels/*.whl" in image
    assert "from=build,source=/wheels" in image
    for package in ("tesseract-ocr", "tesseract-ocr-rus", "tesseract-ocr-eng"):
        assert re.search(rf"(?<![\w-]){package}(?![\w-])", image), package
    users = _all("USER")
    assert users and users[-1] not in {"root", "0"}


def test_the_compiler_stays_in_the_build_stage() -> None:
    """gcc builds the C kernels (services/excel/_walk.c, _cells.c) in the build stage, which
    refuses a wheel without them; the image installs no compiler and loads the compiled modules
    from beside their sources (the working directory comes first on the import path)."""
    build, image = (" ".join(args for kw, args in stage if kw == "RUN") for stage in _stages())
    assert re.search(r"apt-get install [^&]*\bgcc\b", build)
    assert not re.search(r"\b(gcc|build-essential|python3-dev|libc6-dev)\b", image)
    for name in ("_walk", "_cells"):
        assert f"services/excel/{name}" in build, name
        assert f"services.excel.{name} as" in image, name


def test_dockerfile_points_the_registry_at_the_copied_contracts() -> None:
    """ARM_CONTRACTS_DIR names the folder contracts/ was copied to (the schema registry
    reads it; a pip-installed package has no contracts/ beside it)."""
    workdir = _all("WORKDIR")[-1]
    env = " ".join(_all("ENV"))
    match = re.search(r"ARM_CONTRACTS_DIR=(\S+)", env)
    assert match is not None
    copy = next(args.split() for args in _all("COPY") if args.split()[0] == "contracts")
    destination = Path(workdir) / copy[-1]
    assert Path(match[1]) == destination.resolve()


def test_dockerfile_cmd_is_consistent_with_compose(compose: dict[str, Any]) -> None:
    """The image's default CMD is one of the compose commands (tabular-parser's), its
    HEALTHCHECK asks that command's port, and every compose command starts with a program the
    project's dependencies install."""
    cmd = json.loads(_all("CMD")[-1])
    assert cmd == _command(_service(compose, "tabular-parser"))
    health = _all("HEALTHCHECK")[-1]
    assert "127.0.0.1:%s/healthcheck' % os.environ['ARM_KA_HEALTH_PORT']" in health
    env = " ".join(_all("ENV"))
    assert re.search(rf"ARM_KA_HEALTH_PORT={_option(cmd, '--port')}(\s|$)", env)

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    deps = " ".join(project["dependencies"])
    programs = {"python"} | {p for p in ("uvicorn", "faststream") if p in deps}
    for name in (*APP_SERVICES, "arm-core-migrate"):
        assert _command(_service(compose, name))[0] in programs, name


def test_every_service_without_http_disables_the_image_healthcheck(
    compose: dict[str, Any],
) -> None:
    """A service of the one image either asks its own port (above) or, like the one-shot
    migration that serves no /healthcheck, disables the probe it would inherit (the default
    CMD's port, 8001)."""
    for name, service in compose["services"].items():
        if service.get("build") != ".":
            continue
        check = service.get("healthcheck") or {}
        if name in APP_SERVICES:
            assert "test" in check, name
        else:
            assert check.get("disable") is True, f"{name} inherits the image's healthcheck"


def test_images_are_pinned(compose: dict[str, Any]) -> None:
    """Every third-party image, with the defaults interpolated, names a tag and not `latest`:
    two deployments of one compose file run the same MinIO and client."""
    for name, service in compose["services"].items():
        if "build" in service:
            continue
        image = _interpolate(str(service["image"]))
        repository, _, tag = image.rpartition(":")
        assert repository and tag and "/" not in tag, f"{name}: {image} has no tag"
        assert tag != "latest", f"{name}: {image}"
    for name in ("minio", "minio-init"):
        assert _interpolate(_service(compose, name)["image"]).split(":")[1].startswith("RELEASE.")


@pytest.mark.parametrize("password", ["p@ss:w/rd", "a:b@c/d?e#f%g", "@@::///"])
def test_db_password_with_url_characters_reaches_the_driver_intact(
    compose: dict[str, Any], password: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """POSTGRES_PASSWORD with `@ : /` (and `? # %`): the core's settings, loaded from the
    compose environment, give SQLAlchemy a URL whose password, host, port and database are
    exactly what was meant, and the password shows in no log form of the settings."""
    from sqlalchemy.engine import make_url

    from services.arm_core.db.engine import create_engine

    cls = _settings_class("arm_core")
    for key in list(os.environ):
        if key.startswith("OPENBAO__") or key.upper() in _env_names(cls):
            monkeypatch.delenv(key)
    monkeypatch.setenv("POSTGRES_PASSWORD", password)
    for key, value in _env(_service(compose, "arm-core")).items():
        if value is not None:
            expanded = _SUBSTITUTION.sub(
                lambda m: os.environ.get(m["name"]) or m["default"] or "", value
            )
            monkeypatch.setenv(key, expanded)
    settings = load_settings(cls)
    url = make_url(settings.db.url)
    assert (url.password, url.host, url.port, url.database, url.username) == (
        password,
        "postgres",
        5432,
        "arm_ka",
        "arm_ka",
    )
    engine = create_engine(settings.db.url)
    try:
        assert engine.url.password == password
        assert engine.url.host == "postgres"
    finally:
        engine.sync_engine.dispose()
    for text in (settings.db.safe_url, repr(settings), str(settings.db)):
        assert password not in text
    assert settings.db.url in set(settings.secret_values())  # the escaped form is redacted too
