"""Arrows point down (issue 14 item 2): one `build_recognizer(settings, …)` per service, used by
its app and by the CLI; the worker-pool knobs are one settings group read from the same
environment names as before; no service imports the CLI."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from services.devstack.embedded import free_port
from services.runtime.sandbox import Sandbox
from services.runtime.settings import ScanSettings, SettingsError
from services.scan_gateway.client import ScanClient
from services.scan_gateway.recognizer import HttpSource, LocalSource
from services.scan_gateway.recognizer import build_recognizer as build_gateway
from services.scan_gateway.settings import ScanGatewaySettings
from services.tabular_parser.recognizer import TabularRecognizer
from services.tabular_parser.recognizer import build_recognizer as build_tabular
from services.tabular_parser.settings import TabularParserSettings
from tests.builders import write_xlsx
from tests.cli._run import ARM_KA, ROOT, arm_ka
from tests.scan_gateway._forms import font_path, render_pdf
from tests.tabular_parser.statements._forms import onec_income

SERVICES = ROOT / "services"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
    return names


def test_no_service_imports_the_cli() -> None:
    """Nothing under services/ but the CLI and the dev stack imports `services.cli`, and the
    dev stack only its public face (no `services.cli._…` module)."""
    offenders = []
    for path in SERVICES.rglob("*.py"):
        package = path.relative_to(SERVICES).parts[0]
        if package == "cli":
            continue
        for name in _imports(path):
            if not name.startswith("services.cli"):
                continue
            if package != "devstack" or name != "services.cli":
                offenders.append(f"{path.relative_to(ROOT)}: {name}")
    assert offenders == []


def test_the_pool_keeps_its_environment_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """PARSE_* fill tabular-parser's `pool`, OCR_* scan-gateway's (names as before, any case);
    an explicit argument still wins over the environment."""
    monkeypatch.setenv("PARSE_WORKERS", "5")
    monkeypatch.setenv("PARSE_TIMEOUT_SECONDS", "7.5")
    monkeypatch.setenv("parse_memory_mb", "300")
    monkeypatch.setenv("PARSE_MAX_TASKS_PER_CHILD", "9")
    monkeypatch.setenv("PARSE_NICE", "3")
    monkeypatch.setenv("OCR_WORKERS", "4")
    monkeypatch.setenv("OCR_NICE", "2")
    tabular = TabularParserSettings()
    assert tabular.pool.model_dump() == {
        "workers": 5,
        "timeout_seconds": 7.5,
        "memory_mb": 300,
        "max_tasks_per_child": 9,
        "nice": 3,
    }
    gateway = ScanGatewaySettings()
    assert (gateway.pool.workers, gateway.pool.nice, gateway.pool.timeout_seconds) == (4, 2, 300.0)
    assert TabularParserSettings(pool={"workers": 1}).pool.workers == 1


def test_an_invalid_pool_setting_names_its_environment_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bad value in the group is reported under the variable the operator set."""
    monkeypatch.setenv("OCR_MEMORY_MB", "12")
    with pytest.raises(SettingsError) as raised:
        ScanGatewaySettings()
    assert raised.value.keys == ["OCR_MEMORY_MB"]


def test_build_recognizer_gives_the_pool_its_limits() -> None:
    """The sandbox a service runs on has the pool's limits; `workers` resizes it, by default
    the pool's size capped by JOBS_IN_FLIGHT."""
    settings = TabularParserSettings(
        pool={"workers": 6, "memory_mb": 512, "timeout_seconds": 30, "nice": 4},
        jobs_in_flight=3,
    )
    recognizer, resources = build_tabular(settings)
    assert isinstance(recognizer, TabularRecognizer)
    (sandbox,) = resources
    assert isinstance(sandbox, Sandbox)
    assert sandbox.settings.workers == 3
    assert sandbox.settings.memory_limit_bytes == 512 * 1024 * 1024
    assert (sandbox.settings.timeout_seconds, sandbox.settings.niceness) == (30, 4)
    (one,) = build_tabular(settings, workers=1).resources
    assert isinstance(one, Sandbox) and one.settings.workers == 1


def test_the_gateway_builds_the_scanning_system_or_the_local_recogniser() -> None:
    """SCAN_URL set: the scanning system's client is the resource; unset: the local
    recogniser over a sandbox with OCR_* limits; no archive store, no raw archive."""
    remote = ScanGatewaySettings(scan=ScanSettings(scan_url="http://scan.example"))
    recognizer, resources = build_gateway(remote)
    assert isinstance(resources[0], ScanClient)
    assert isinstance(recognizer._source, HttpSource)  # type: ignore[attr-defined]
    local, (sandbox,) = build_gateway(ScanGatewaySettings(pool={"memory_mb": 256}), workers=2)
    assert isinstance(local._source, LocalSource)  # type: ignore[attr-defined]
    assert local._archive is None  # type: ignore[attr-defined]
    assert isinstance(sandbox, Sandbox)
    assert (sandbox.settings.workers, sandbox.settings.memory_limit_bytes) == (2, 256 << 20)


def test_the_cli_runs_with_the_services_settings(tmp_path: Path) -> None:
    """`arm-ka parse` builds the recogniser from the service's own settings: a worker held to
    PARSE_TIMEOUT_SECONDS=0.001 cannot read the workbook (UNREADABLE, exit 2), and an invalid
    PARSE_WORKERS stops the command naming the key (exit 78, the value never shown)."""
    path = tmp_path / "income.xlsx"
    path.write_bytes(write_xlsx([onec_income()]))
    slow = arm_ka("parse", "--json", str(path), env={"PARSE_TIMEOUT_SECONDS": "0.001"})
    assert slow.returncode == 2, slow.stderr
    assert json.loads(slow.stdout)["error"]["code"] == "UNREADABLE"
    bad = arm_ka("parse", str(path), env={"PARSE_WORKERS": "0"})
    assert bad.returncode == 78
    assert "PARSE_WORKERS" in bad.stderr
    assert "Traceback" not in bad.stderr


@pytest.mark.skipif(font_path() is None, reason="no DejaVuSans font to draw the PDF")
def test_a_local_parse_never_calls_the_scanning_system(tmp_path: Path) -> None:
    """With OPENBAO__SCAN__SCAN_URL pointing at nothing, `arm-ka parse` and `python -m
    services.scan_gateway` still read the PDF with the local recogniser (no server is asked)."""
    path = tmp_path / "forms.pdf"
    path.write_bytes(render_pdf())
    env = {"OPENBAO__SCAN__SCAN_URL": f"http://127.0.0.1:{free_port()}"}
    for argv in (
        [str(ARM_KA), "parse", "--json", str(path)],
        [sys.executable, "-m", "services.scan_gateway", str(path)],
    ):
        run = subprocess.run(
            argv,
            cwd=ROOT,
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert run.returncode == 0, run.stderr
        body = json.loads(run.stdout)
        assert [d["document_type"] for d in body["documents"]] == ["BALANCE", "INCOME"]


_SERVICES = ("arm_core", "tabular_parser", "scan_gateway")


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(f"{package}.")


def test_no_service_imports_another_service_or_dev_tooling() -> None:
    """The three services stand on the shared packages only (runtime, contract, arm_statements,
    excel): none imports another service, the CLI or the dev stack (#14's "arrows point down")."""
    offenders = []
    for service in _SERVICES:
        others = [f"services.{o}" for o in (*_SERVICES, "cli", "devstack") if o != service]
        for path in (SERVICES / service).rglob("*.py"):
            offenders += [
                f"{path.relative_to(ROOT)}: {name}"
                for name in sorted(_imports(path))
                if any(_within(name, other) for other in others)
            ]
    assert offenders == []


def test_the_cli_imports_nothing_from_arm_core() -> None:
    """No module of the CLI names arm-core, and a process that imports the whole CLI and turns
    a TIFF into the core's PDF (`documents_io.tiff`, the room both share) has no module of
    arm-core loaded (#24: the CLI imports nothing from arm-core)."""
    offenders = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in (SERVICES / "cli").rglob("*.py")
        for name in sorted(_imports(path))
        if _within(name, "services.arm_core")
    ]
    assert offenders == []
    probe = (
        "import io, pkgutil, importlib, sys\n"
        "from PIL import Image\n"
        "import services.cli\n"
        "for info in pkgutil.walk_packages(services.cli.__path__, 'services.cli.'):\n"
        "    importlib.import_module(info.name)\n"
        "from services.cli._filetype import tiff_as_pdf\n"
        "out = io.BytesIO()\n"
        "Image.new('L', (40, 30), 255).save(out, format='TIFF')\n"
        "assert tiff_as_pdf('scan.tif', out.getvalue()).startswith(b'%PDF')\n"
        "print(sorted(m for m in sys.modules if m.startswith('services.')))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    loaded = run.stdout
    assert "services.cli._filetype" in loaded and "services.documents_io.tiff" in loaded
    assert "services.arm_core" not in loaded
