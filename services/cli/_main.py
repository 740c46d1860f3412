"""`arm-ka`: recognise a local file, or send one to a running core and follow its job.

    arm-ka parse FILE [--json | --summary]     no servers: the services' recognisers, locally
    arm-ka recognize FILE [--core URL] [--timeout S] [--json]
    arm-ka job JOB_ID [--core URL] [--follow] [--timeout S] [--json]

Exit codes: 0 recognised (done or needs_check), 2 recognition ended in error (or the job in
error / timeout / dlq), 64 usage (bad arguments, missing file), 65 the core refused the file,
69 the core is unreachable, 75 the job was not final within --timeout, 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

from services.cli._core import CoreClient
from services.cli._local import Service, parse_file, read_file
from services.cli._summary import summarise_job, summarise_result
from services.cli.exceptions import EXIT_ERROR, EXIT_OK, CliError
from services.runtime.version import package_version

__all__ = [
    "CORE_URL_ENV",
    "DEFAULT_CORE_URL",
    "build_parser",
    "exit_code_of",
    "main",
    "service_parse_main",
]

DEFAULT_CORE_URL = "http://127.0.0.1:8000"
CORE_URL_ENV = "ARM_KA_CORE_URL"
_OK_STATUSES = frozenset({"done", "needs_check"})
EXIT_USAGE = 64
EXIT_INTERRUPTED = 130


def exit_code_of(status: str) -> int:
    """0 for a recognised file (done, needs_check), 2 for anything else that is final."""
    return EXIT_OK if status in _OK_STATUSES else EXIT_ERROR


class _Parser(argparse.ArgumentParser):
    """argparse with the usage exit code of sysexits (64), so 2 keeps meaning «error»."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="arm-ka",
        description="АРМ КА recognition: parse a file locally, or send it to a running arm-core.",
        epilog="Exit codes: 0 done/needs_check, 2 error, 64 usage or missing file, "
        "65 refused by the core, 69 core unreachable, 75 not final within --timeout.",
    )
    parser.add_argument("--version", action="version", version=f"arm-ka {package_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    parse = commands.add_parser(
        "parse",
        help="recognise a local file with no servers (Excel, PDF, PNG, JPG)",
        description="Recognise a local file without NATS, S3 or the core, through the same "
        "recognisers the services run: Excel (XLS/XLSX/XLSB) by the tabular parser, PDF/PNG/JPG "
        "by the scan-gateway's local recogniser. The type is taken from the content's signature, "
        "else from the extension.",
    )
    parse.add_argument("file", type=Path, metavar="FILE")
    shape = parse.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true", help="print the result file as JSON")
    shape.add_argument(
        "--summary", action="store_true", help="print a readable summary (the default)"
    )

    core_help = f"arm-core base URL (default ${CORE_URL_ENV} or {DEFAULT_CORE_URL})"
    recognize = commands.add_parser(
        "recognize",
        help="upload a file to a running arm-core and follow its job",
        description="Upload FILE to arm-core (POST /api/v1/files), show the job's status "
        "transitions on stderr until it is final, then print a summary of its documents.",
    )
    recognize.add_argument("file", type=Path, metavar="FILE")
    recognize.add_argument("--core", default=None, metavar="URL", help=core_help)
    recognize.add_argument(
        "--timeout", type=float, default=300.0, metavar="S", help="seconds to wait (300)"
    )
    recognize.add_argument(
        "--json", action="store_true", help="print {job, documents} as JSON instead"
    )

    job = commands.add_parser(
        "job",
        aliases=["jobs"],
        help="show one job of arm-core and its documents",
        description="Show a job of arm-core (GET /api/v1/jobs/JOB_ID) and its documents.",
    )
    job.add_argument("job_id", metavar="JOB_ID")
    job.add_argument("--core", default=None, metavar="URL", help=core_help)
    job.add_argument("--follow", action="store_true", help="wait until the job is final")
    job.add_argument(
        "--timeout", type=float, default=300.0, metavar="S", help="with --follow (300)"
    )
    job.add_argument("--json", action="store_true", help="print {job, documents} as JSON")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The `arm-ka` console script."""
    args = build_parser().parse_args(argv)
    try:
        if args.command == "parse":
            return _parse(args.file, as_json=args.json, out=sys.stdout)
        if args.command == "recognize":
            return _recognize(args)
        return _job(args)
    except CliError as exc:
        print(f"arm-ka: {exc.message}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("arm-ka: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return _closed_stdout()


def service_parse_main(service: Service, argv: Sequence[str] | None = None) -> int:
    """`python -m services.<service> FILE [--summary]`: a local parse by one service's code."""
    module = service.replace("-", "_")
    parser = _Parser(
        prog=f"python -m services.{module}",
        description=f"Recognise a local file with {service}'s recogniser, without NATS or S3, "
        "and print the result file JSON (the document the service would write to S3).",
        epilog="Exit codes: 0 done/needs_check, 2 error, 64 usage or missing file.\n"
        "The service itself runs with:\n"
        f"  faststream run services.{module}.app:create_app --factory",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", type=Path, metavar="FILE")
    parser.add_argument("--summary", action="store_true", help="a readable summary, not JSON")
    args = parser.parse_args(argv)
    try:
        return _parse(args.file, as_json=not args.summary, out=sys.stdout, only=service)
    except CliError as exc:
        print(f"{parser.prog}: {exc.message}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return _closed_stdout()


def _closed_stdout() -> int:
    """The reader went away (`| head`): stop quietly, as Unix tools do."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return EXIT_OK


# -- commands ----------------------------------------------------------------------------------


def _parse(path: Path, *, as_json: bool, out: TextIO, only: Service | None = None) -> int:
    parsed = parse_file(path, only=only)
    if as_json:
        _print_json(parsed.result, out)
    else:
        print(summarise_result(parsed.result, name=path.name, file_type=parsed.file_type), file=out)
    return exit_code_of(str(parsed.result.get("status")))


def _core_url(option: str | None) -> str:
    return option or os.environ.get(CORE_URL_ENV) or DEFAULT_CORE_URL


def _recognize(args: argparse.Namespace) -> int:
    path: Path = args.file
    data = read_file(path)
    with CoreClient(_core_url(args.core)) as core:
        upload = core.upload(path.name, data)
        job_id, file_id = str(upload["job_id"]), str(upload["file_id"])
        print(
            f"uploaded {path.name} as {upload.get('file_type')}: file {file_id}, job {job_id}",
            file=sys.stderr,
        )
        job = core.follow(job_id, timeout=args.timeout, on_status=_progress(time.monotonic()))
        documents = core.documents(file_id, job_id)
    _print_job(job, documents, name=path.name, as_json=args.json)
    return exit_code_of(str(job.get("status")))


def _job(args: argparse.Namespace) -> int:
    with CoreClient(_core_url(args.core)) as core:
        if args.follow:
            job = core.follow(
                args.job_id, timeout=args.timeout, on_status=_progress(time.monotonic())
            )
        else:
            job = core.job(args.job_id)
        documents = core.documents(str(job["file_id"]), str(job["job_id"]))
    _print_job(job, documents, name=None, as_json=args.json)
    status = str(job.get("status"))
    return exit_code_of(status) if status not in ("queued", "published", "processing") else 0


def _progress(started: float) -> Any:
    def show(status: str, job: dict[str, Any]) -> None:
        print(f"  {time.monotonic() - started:6.1f}s  {status}", file=sys.stderr, flush=True)

    return show


def _print_job(
    job: dict[str, Any], documents: list[dict[str, Any]] | None, *, name: str | None, as_json: bool
) -> None:
    if as_json:
        _print_json({"job": job, "documents": documents}, sys.stdout)
    else:
        print(summarise_job(job, documents, name=name))


def _print_json(body: Any, out: TextIO) -> None:
    json.dump(body, out, ensure_ascii=False, indent=2)
    out.write("\n")
