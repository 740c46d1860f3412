"""Local recognition: each service's own `build_recognizer(settings)`, minus S3.

Excel goes to tabular-parser's recogniser, PDF / PNG / JPG to scan-gateway's local recogniser
(no raw archive, never the scanning system). The settings are the services' own, read from the
environment (`PARSE_TIMEOUT_SECONDS`, `OCR_MEMORY_MB`…); the pools have `jobs` workers, at the
user's CPU priority (no PARSE_NICE / OCR_NICE: they protect a service's acks, and there are none). Several
files are recognised `jobs` at a time; `runtime.local.recognize_local` shapes each answer as
the protocol does. A batch is planned without the files' bytes: each is read (a TIFF converted)
when a worker is free for it, so the parent holds about `jobs` files at once, not the folder.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeVar

from services.cli._filetype import (
    EXCEL_TYPES,
    IMAGE_TYPES,
    TIFF_SUFFIXES,
    file_type,
    is_tiff,
    tiff_as_pdf,
)
from services.cli.exceptions import ConfigError, UsageError
from services.runtime.local_command import LocalFileError, read_local_file

if TYPE_CHECKING:
    from services.runtime.envelopes import ServiceInfo
    from services.runtime.local import LocalResult
    from services.runtime.settings import RecognitionServiceSettings
    from services.runtime.worker_pool import BuiltRecognizer

__all__ = [
    "LocalParse",
    "Planned",
    "Recognisers",
    "Service",
    "expand_paths",
    "load",
    "parse_files",
    "plan",
    "prepare",
    "read_file",
]

Service = Literal["tabular-parser", "scan-gateway"]
_SUFFIXES = frozenset({".xls", ".xlsx", ".xlsb", ".pdf", ".png", ".jpg", ".jpeg", *TIFF_SUFFIXES})
_WORKER_MODULES: dict[Service, tuple[str, ...]] = {
    # the statements recogniser is imported by the recogniser only when a sheet needs it
    "tabular-parser": ("services.tabular_parser.recognizer", "services.tabular_parser.statements"),
    "scan-gateway": ("services.scan_gateway.local",),
}
"""The modules of each service's worker-process entry (what a worker imports for its jobs)."""


@dataclass(frozen=True, slots=True)
class Planned:
    """A file routed: its type, the service whose recogniser reads it, and its bytes once read.

    A TIFF scan is the PDF arm-core makes of it: `data` and `file_type` are that PDF's, what
    the recogniser reads; `source_type` says it was a TIFF. `data` is None for a file planned
    without its bytes (a batch): `load` reads it when its turn comes.
    """

    path: Path
    data: bytes | None
    file_type: str
    service: Service
    source_type: str | None = None

    @property
    def shown_type(self) -> str:
        """The type the user gave (TIFF for a scan read as its PDF)."""
        return self.source_type or self.file_type


@dataclass(frozen=True, slots=True)
class LocalParse:
    """What a local parse produced for one file."""

    path: Path
    file_type: str
    service: str
    result: LocalResult


T = TypeVar("T")
D = TypeVar("D")
Progress = Callable[[str, Planned | None], None]
"""Told `("start", file)`, `("done", file)`, and `("stage", None)` with a stage name."""


def read_file(path: Path) -> bytes:
    """The bytes of `path`, or a `UsageError` that names it (missing, a folder, unreadable)."""
    try:
        return read_local_file(path)
    except LocalFileError as exc:
        raise UsageError(str(exc)) from None


def expand_paths(paths: Sequence[Path]) -> list[Path]:
    """The files named, a folder standing for its supported files (recursively, sorted)."""
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(
                p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in _SUFFIXES
            )
            if not found:
                raise UsageError(f"в {path} нет файлов XLS, XLSX, XLSB, PDF, PNG, JPG или TIFF")
            out.extend(found)
        else:
            out.append(path)
    return out


def plan(path: Path, *, only: Service | None = None, keep: bool = True) -> Planned:
    """Read `path` and choose its recogniser by the content's signature, else its extension.

    An empty file is refused as the core refuses its upload («empty file»). A TIFF scan (by
    content, or named .tif / .tiff) is converted as the core converts it at upload, and
    refused as the core refuses it: named TIFF but not one, or unreadable.

    `keep=False` (a batch) keeps no bytes: the file is read to be sniffed (a workbook's type is
    in its zip directory, at the end), a TIFF is only recognised as one, and `load` reads and
    converts it when its turn comes. A one-file parse keeps the bytes it read, reading once.
    """
    data = read_file(path)
    if not data:
        raise UsageError(f"{path.name}: пустой файл (0 байт)")
    kind = file_type(path.name, data)
    source: str | None = None
    if kind is None or path.suffix.lower() in TIFF_SUFFIXES:
        if not keep and is_tiff(data):
            kind, source = "PDF", "TIFF"  # converted by `load`, at its turn
        else:
            try:
                pdf = tiff_as_pdf(path.name, data)
            except ValueError as exc:
                raise UsageError(f"{path.name}: {exc}") from None
            if pdf is not None:
                data, kind, source = pdf, "PDF", "TIFF"
    if kind is None:
        msg = (
            f"{path.name}: файл не распознаётся (ни по содержимому, ни по расширению это не "
            "XLS, XLSX, XLSB, PDF, PNG, JPG или TIFF)"
        )
        raise UsageError(msg)
    service: Service = "tabular-parser" if kind in EXCEL_TYPES else "scan-gateway"
    if only is not None and service != only:
        handles = ", ".join(sorted(EXCEL_TYPES if only == "tabular-parser" else IMAGE_TYPES))
        raise UsageError(f"{path.name} is {kind}: {only} handles {handles}; use `arm-ka parse`")
    return Planned(path, data if keep else None, kind, service, source)


def load(file: Planned) -> Planned:
    """`file` with its bytes: read now (a TIFF converted) when it was planned without them.

    The file may have changed since it was planned: gone, emptied, or of another type than
    the one its recogniser was chosen for; each is a `UsageError` naming it, so that the file
    ends as a failure of its own and the batch goes on.
    """
    if file.data is not None:
        return file
    name = file.path.name
    data = read_file(file.path)
    if not data:
        raise UsageError(f"{name}: файл стал пустым (0 байт) за время работы")
    if file.source_type == "TIFF":
        try:
            pdf = tiff_as_pdf(name, data)
        except ValueError as exc:
            raise UsageError(f"{name}: {exc}") from None
        if pdf is None:
            raise UsageError(f"{name}: файл больше не TIFF (был TIFF в начале работы)")
        return replace(file, data=pdf)
    kind = file_type(name, data)
    if kind != file.file_type:
        now = kind or "нераспознаваемый файл"
        raise UsageError(f"{name}: теперь {now}, а в начале работы был {file.file_type}")
    return replace(file, data=data)


@dataclass(frozen=True, slots=True)
class Recognisers:
    """Each service's recogniser built for the files (`prepare`) and its time budget of one
    file."""

    setups: dict[Service, tuple[BuiltRecognizer, float]]


def prepare(files: Sequence[Planned], *, jobs: int = 1) -> Recognisers:
    """Load the services' settings and build their recognisers for `files` (nothing starts
    a thread here, so the caller starts its progress line after).

    Several files: the worker processes' fork server starts first, loading the recognisers'
    modules while this process loads its settings. One file: its recogniser's worker is
    forked from this process once the recogniser is built (`Sandbox.start_by_fork`), so it
    starts with every module already imported, and no fork server is started at all.
    """
    services = {file.service for file in files}
    one = len(files) == 1
    if not one:
        _start_forkserver(services)
    workers = min(max(1, jobs), len(files))
    setups = {service: _setup(service, workers=workers) for service in services}
    if one:
        ((built, _),) = setups.values()
        _fork_worker(built)
    return Recognisers(setups)


def parse_files(
    files: Sequence[Planned],
    recognisers: Recognisers,
    digest: Callable[[LocalParse], D],
    each: Callable[[D], None],
    then: Callable[[], T],
    *,
    jobs: int = 1,
    progress: Progress | None = None,
) -> T:
    """Recognise the files, `jobs` at a time, in their order; nothing goes to NATS or S3.

    `digest` turns a file's parse into what the caller keeps of it as soon as the file is
    done (so a large result is not held while others run), `each` gets those in the files'
    order as soon as a file and every file before it are done, and `then` runs after the last,
    before the worker processes are stopped, so the output is out while they wind down. A
    file read at its turn that is gone or changed is a FILE_READ_ERROR of its own.
    """
    return asyncio.run(
        _parse_all(files, recognisers, digest, each, then, jobs=max(1, jobs), progress=progress)
    )


async def _parse_all(
    files: Sequence[Planned],
    recognisers: Recognisers,
    digest: Callable[[LocalParse], D],
    each: Callable[[D], None],
    then: Callable[[], T],
    *,
    jobs: int,
    progress: Progress | None,
) -> T:
    setups = recognisers.setups
    from services.runtime.local import LocalResult, local_job, recognize_local
    from services.runtime.recognizer import ErrorCode, RecognitionFailed

    identity = {service: _identity(service) for service in setups}
    slots = asyncio.Semaphore(jobs)

    async def one(planned: Planned) -> D:
        built, timeout = setups[planned.service]
        info = identity[planned.service]
        name = planned.path.name
        async with slots:  # read, and the job's deadline started, when a worker is free
            try:
                file = load(planned)
            except UsageError as exc:
                job = local_job(name, planned.file_type, timeout_seconds=timeout)
                failure = RecognitionFailed(ErrorCode.FILE_READ_ERROR, exc.message)
                result = LocalResult(job, info, 0, failure=failure)
                if progress is not None:
                    progress("done", planned)
                return digest(LocalParse(planned.path, planned.shown_type, planned.service, result))
            if progress is not None:
                progress("start", file)
            assert file.data is not None  # `load` read it
            result = await recognize_local(
                built.recognizer,
                info,
                file.data,
                name=name,
                file_type=file.file_type,
                timeout_seconds=timeout,
            )
            del file  # its bytes go before the next file is read
            if progress is not None:
                progress("done", planned)
        return digest(LocalParse(planned.path, planned.shown_type, planned.service, result))

    opened = [resource for built, _ in setups.values() for resource in built.resources]
    for resource in opened:
        await resource.__aenter__()
    try:
        pending = deque(asyncio.ensure_future(one(file)) for file in files)
        try:
            while pending:
                each(await pending.popleft())  # the task, and what it kept, go with it
        finally:
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        return then()
    finally:
        for resource in reversed(opened):
            await resource.__aexit__(None, None, None)


def _fork_worker(built: BuiltRecognizer) -> None:
    """Start the one worker of a recogniser of one sandbox by forking this process."""
    from services.runtime.sandbox import Sandbox

    sandboxes = [resource for resource in built.resources if isinstance(resource, Sandbox)]
    if len(sandboxes) == 1 and sandboxes[0].settings.workers == 1:
        sandboxes[0].start_by_fork()


S = TypeVar("S", bound="RecognitionServiceSettings")


def _start_forkserver(services: set[Service]) -> None:
    """Start the worker processes' fork server now, importing the recognisers' modules there.

    The sandbox forks its workers from this server ("forkserver"): started here, it loads the
    worker's modules while this process is still loading its settings, and the worker forked
    from it has them already instead of importing them after it starts. `services.cli` is
    among them because a worker also runs the `arm-ka` script as its `__mp_main__` (which
    imports it) before its first job. A server already running (a second parse in one
    process) is kept as it is.
    """
    from multiprocessing import forkserver

    modules = sorted(module for service in services for module in _WORKER_MODULES[service])
    forkserver.set_forkserver_preload([__package__ or "services.cli", *modules])
    forkserver.ensure_running()


def _unniced(settings: S) -> S:
    """The settings with the pool at the user's own CPU priority: PARSE_NICE / OCR_NICE keep a
    service's event loop (acks) ahead of its workers; a local parse has no such loop, and its
    user waits for the workers alone."""
    return settings.model_copy(update={"pool": settings.pool.model_copy(update={"nice": 0})})


def _identity(service: Service) -> ServiceInfo:
    """The service's name and version, as its result files carry them: `Service` is the
    service's name (its app's SERVICE_NAME) and its version the package's (`service_version`),
    taken without importing the apps, which load FastStream, NATS and S3 clients."""
    from services.runtime.envelopes import ServiceInfo
    from services.runtime.version import package_version

    return ServiceInfo(service, package_version())


def _setup(service: Service, *, workers: int) -> tuple[BuiltRecognizer, float]:
    """The service's recogniser as its app builds it (`build_recognizer`) and the time budget
    of one file."""
    from services.runtime.settings import ScanSettings, SettingsError, load_settings

    try:
        if service == "tabular-parser":
            from services.tabular_parser.recognizer import build_recognizer as build_tabular
            from services.tabular_parser.settings import TabularParserSettings

            tabular_settings = _unniced(load_settings(TabularParserSettings))
            return (
                build_tabular(tabular_settings, workers=workers),
                tabular_settings.pool.timeout_seconds,
            )
        from services.scan_gateway.recognizer import build_recognizer as build_gateway
        from services.scan_gateway.settings import ScanGatewaySettings

        # Never the scanning system: a local parse talks to no server.
        scan_settings = _unniced(load_settings(ScanGatewaySettings, scan=ScanSettings()))
    except SettingsError as exc:
        raise ConfigError(f"invalid settings: {exc}") from None
    return build_gateway(scan_settings, workers=workers), scan_settings.pool.timeout_seconds
