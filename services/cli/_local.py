"""Local recognition: the services' recognisers, built as their apps build them, minus S3.

Excel goes to `TabularRecognizer`, PDF / PNG / JPG to the scan-gateway's local recogniser
(`LocalSource` + `ScanGatewayRecognizer` with no raw archive). Both run in a sandboxed worker
process with the limits the services use by default, and `recognize_local` shapes the answer
with the protocol's own `result_file`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from services.cli._filetype import EXCEL_TYPES, IMAGE_TYPES, file_type
from services.cli.exceptions import UsageError
from services.runtime.local import recognize_local
from services.runtime.protocol import ServiceInfo
from services.runtime.recognizer import Recognizer
from services.runtime.sandbox import Sandbox, SandboxSettings

__all__ = ["LocalParse", "Service", "parse_file", "read_file"]

Service = Literal["tabular-parser", "scan-gateway"]


@dataclass(frozen=True, slots=True)
class LocalParse:
    """What a local parse produced: the file's type, the service whose code ran, the body."""

    file_type: str
    service: str
    result: dict[str, Any]


def read_file(path: Path) -> bytes:
    """The bytes of `path`, or a `UsageError` that names it (missing, a folder, unreadable)."""
    if not path.exists():
        msg = f"file not found: {path}"
        raise UsageError(msg)
    if not path.is_file():
        msg = f"not a file: {path}"
        raise UsageError(msg)
    try:
        return path.read_bytes()
    except OSError as exc:
        msg = f"cannot read {path}: {exc.strerror or exc}"
        raise UsageError(msg) from None


def parse_file(path: Path, *, only: Service | None = None) -> LocalParse:
    """Recognise one local file with no NATS and no S3.

    `only` restricts the file to one service (the `python -m services.<service>` commands):
    a file of the other pipeline is a usage error there.
    """
    data = read_file(path)
    kind = file_type(path.name, data)
    if kind is None:
        msg = (
            f"{path.name}: not a supported file (XLS, XLSX, XLSB, PDF, PNG, JPG by content or "
            "extension)"
        )
        raise UsageError(msg)
    service: Service = "tabular-parser" if kind in EXCEL_TYPES else "scan-gateway"
    if only is not None and service != only:
        msg = f"{path.name} is {kind}: {only} handles {_types_of(only)}; use `arm-ka parse`"
        raise UsageError(msg)
    build = _tabular if service == "tabular-parser" else _scan_gateway
    result = asyncio.run(_recognise(build, data, name=path.name, kind=kind))
    return LocalParse(file_type=kind, service=service, result=result)


def _types_of(service: Service) -> str:
    return ", ".join(sorted(EXCEL_TYPES if service == "tabular-parser" else IMAGE_TYPES))


_Setup = tuple[SandboxSettings, Callable[[Sandbox], Recognizer], ServiceInfo, float]
"""Sandbox limits, the recogniser over a sandbox, the service identity, the time budget."""


async def _recognise(
    build: Callable[[], _Setup],
    data: bytes,
    *,
    name: str,
    kind: str,
) -> dict[str, Any]:
    settings, make, service, timeout = build()
    async with Sandbox(settings) as sandbox:
        return await recognize_local(
            make(sandbox), service, data, name=name, file_type=kind, timeout_seconds=timeout
        )


def _default(model: Any, field: str) -> Any:
    """A settings field's default: the CLI runs with the limits a service starts with."""
    return model.model_fields[field].default


def _tabular() -> _Setup:
    from services.tabular_parser.app import SERVICE_NAME, service_version
    from services.tabular_parser.recognizer import TabularRecognizer
    from services.tabular_parser.settings import TabularParserSettings as S

    timeout = float(_default(S, "parse_timeout_seconds"))
    settings = SandboxSettings(
        workers=1,
        memory_limit_bytes=int(_default(S, "parse_memory_mb")) * 1024 * 1024,
        timeout_seconds=timeout,
    )
    return settings, TabularRecognizer, ServiceInfo(SERVICE_NAME, service_version()), timeout


def _scan_gateway() -> _Setup:
    from services.scan_gateway.app import SERVICE_NAME, service_version
    from services.scan_gateway.recognizer import LocalSource, ScanGatewayRecognizer
    from services.scan_gateway.settings import ScanGatewaySettings as S

    timeout = float(_default(S, "ocr_timeout_seconds"))
    settings = SandboxSettings(
        workers=1,
        memory_limit_bytes=int(_default(S, "ocr_memory_mb")) * 1024 * 1024,
        timeout_seconds=timeout,
    )

    def make(sandbox: Sandbox) -> Recognizer:
        source = LocalSource(
            sandbox, tesseract_cmd=_default(S, "tesseract_cmd"), dpi=_default(S, "ocr_dpi")
        )
        # No raw archive: a local parse writes nothing anywhere.
        return ScanGatewayRecognizer(
            source, archive=None, max_seconds=float(_default(S, "scan_max_seconds"))
        )

    return settings, make, ServiceInfo(SERVICE_NAME, service_version()), timeout
