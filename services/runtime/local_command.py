"""`python -m services.<service> FILE`: one service's recogniser on a local file, no NATS, no S3.

The shared body of both services' `__main__`: the file's type is the one its extension names
(as the service takes the type the request names; `arm-ka parse` routes by content), the
recogniser is the service's own `build_recognizer(settings)` with the settings from the
environment, and the output is the result file JSON the service would write to S3 (the error
body when nothing was recognised). Exit codes: 0 done / needs_check, 2 error, 64 usage,
78 invalid settings.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, NoReturn, TypeVar

import orjson

from services.runtime.exceptions import LocalFileError

if TYPE_CHECKING:  # the protocol's modules (NATS, S3 clients) load only when a file is read,
    # the settings' (pydantic) only when they are loaded: `arm-ka parse` imports this module
    from services.runtime.envelopes import ServiceInfo
    from services.runtime.local import LocalResult
    from services.runtime.settings import RecognitionServiceSettings
    from services.runtime.worker_pool import BuiltRecognizer

__all__ = [
    "EXIT_CONFIG",
    "EXIT_ERROR",
    "EXIT_OK",
    "EXIT_USAGE",
    "EXTENSION_TYPES",
    "LocalFileError",
    "exit_code_of",
    "read_local_file",
    "recognize_file",
    "service_command",
    "silence_stdout",
    "write_json",
]

EXIT_OK = 0
EXIT_ERROR = 2
EXIT_USAGE = 64
EXIT_CONFIG = 78

EXTENSION_TYPES: dict[str, str] = {
    ".xls": "XLS",
    ".xlsx": "XLSX",
    ".xlsb": "XLSB",
    ".pdf": "PDF",
    ".png": "PNG",
    ".jpg": "JPG",
    ".jpeg": "JPG",
}
"""The file type an extension names."""


def exit_code_of(status: str) -> int:
    """0 for a recognised file (done, needs_check), 2 for anything else that is final."""
    return EXIT_OK if status in ("done", "needs_check") else EXIT_ERROR


def read_local_file(path: Path) -> bytes:
    """The bytes of `path`, or a `LocalFileError` that names it."""
    if not path.exists():
        raise LocalFileError(f"файл не найден: {path}")
    if not path.is_file():
        raise LocalFileError(f"не файл: {path}")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise LocalFileError(f"не удалось прочитать {path}: {exc.strerror or exc}") from None


async def recognize_file(
    built: BuiltRecognizer,
    service: ServiceInfo,
    data: bytes,
    *,
    name: str,
    file_type: str,
    timeout_seconds: float,
) -> LocalResult:
    """One file through a built recogniser, its resources opened and closed around it."""
    from services.runtime.local import recognize_local

    for resource in built.resources:
        await resource.__aenter__()
    try:
        return await recognize_local(
            built.recognizer,
            service,
            data,
            name=name,
            file_type=file_type,
            timeout_seconds=timeout_seconds,
        )
    finally:
        for resource in reversed(built.resources):
            await resource.__aexit__(None, None, None)


def write_json(result: LocalResult, *, indent: bool) -> None:
    """The result as JSON on stdout: the pieces as built, one after another (the documents of
    a large result are neither joined to the rest nor copied to append the newline), or
    re-indented when asked."""
    parts = result.json_parts()
    if indent:
        parts = (orjson.dumps(orjson.loads(b"".join(parts)), option=orjson.OPT_INDENT_2),)
    sys.stdout.flush()
    for part in parts:
        sys.stdout.buffer.write(part)
    sys.stdout.buffer.write(b"\n")
    sys.stdout.buffer.flush()


S = TypeVar("S", bound="RecognitionServiceSettings")


class _Parser(argparse.ArgumentParser):
    """argparse with the usage exit code of sysexits (64), so 2 keeps meaning «error»."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def service_command(
    service: ServiceInfo,
    file_types: frozenset[str],
    settings_class: type[S],
    build: Callable[[S], BuiltRecognizer],
    argv: Sequence[str] | None = None,
) -> int:
    """`python -m services.<service> FILE [--indent]`."""
    from services.runtime.settings import SettingsError, load_settings

    module = service.name.replace("-", "_")
    parser = _Parser(
        prog=f"python -m services.{module}",
        description=f"Recognise a local file with {service.name}'s recogniser, without NATS or "
        "S3, and print the result file JSON (the document the service would write to S3). "
        "For a readable summary, several files or a file of either kind: `arm-ka parse`.",
        epilog="Exit codes: 0 done/needs_check, 2 error, 64 usage or missing file, "
        "78 invalid settings.\nThe service itself runs with:\n"
        f"  faststream run services.{module}.app:create_app --factory",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", type=Path, metavar="FILE")
    parser.add_argument("--indent", action="store_true", help="indent the JSON")
    args = parser.parse_args(argv)
    try:
        data = read_local_file(args.file)
        kind = EXTENSION_TYPES.get(PurePath(args.file.name).suffix.lower())
        if kind not in file_types:
            handles = ", ".join(sorted(file_types))
            named = f"is {kind}" if kind else "has no known extension"
            raise LocalFileError(
                f"{args.file.name} {named}: {service.name} handles {handles}; use `arm-ka parse`"
            )
        settings = load_settings(settings_class)
        result = asyncio.run(
            recognize_file(
                build(settings),
                service,
                data,
                name=args.file.name,
                file_type=kind,
                timeout_seconds=settings.pool.timeout_seconds,
            )
        )
    except LocalFileError as exc:
        print(f"{parser.prog}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except SettingsError as exc:
        print(f"{parser.prog}: invalid settings: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    except KeyboardInterrupt:
        return 130
    try:
        write_json(result, indent=args.indent)
    except BrokenPipeError:  # the exit code still says how recognition ended
        silence_stdout()
    return exit_code_of(result.status)


def silence_stdout() -> None:
    """The reader went away (`| head`): no second error when Python flushes at exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
