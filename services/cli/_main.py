"""`arm-ka`: recognise a local file, or send one to a running core and follow its job.

    arm-ka parse FILE|FOLDER… [--json [--indent] | --summary] [--jobs N] [--export OUT.xlsx]
                                               no servers: the services' recognisers, locally
    arm-ka recognize FILE [--core URL] [--token T] [--timeout S] [--json]
    arm-ka job JOB_ID [--core URL] [--token T] [--follow] [--timeout S] [--json]

A core with an identity provider needs a bearer token: --token, or better $ARM_KA_TOKEN (an
argument is visible to other users in the process list); it is never printed.

Exit codes: 0 recognised (done or needs_check), 2 recognition ended in error (or the job in
error / timeout / dlq), 64 usage (bad arguments, missing or empty file, a job id that is no
UUID), 65 the core refused the request (4xx, an unknown job too), 69 the core is unreachable,
75 the job was not final within --timeout, 78 an invalid environment setting, 130 interrupted.
The exit code says how the work ended even when stdout is closed early (`| head`).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import orjson

from services.cli._local import (
    LocalParse,
    Planned,
    expand_paths,
    parse_files,
    plan,
    prepare,
    read_file,
)
from services.cli._progress import ProgressLine, page_count
from services.cli._summary import file_line, summarise_job, summarise_result, total_line
from services.cli._words import seconds
from services.cli.exceptions import EXIT_ERROR, EXIT_OK, CliError, UsageError
from services.contract.words import STATUS_NAMES
from services.runtime.local_command import exit_code_of, silence_stdout, write_json
from services.runtime.version import package_version

if TYPE_CHECKING:
    from services.cli._core import CoreClient
    from services.cli._export import ExportedFile

__all__ = [
    "CORE_URL_ENV",
    "DEFAULT_CORE_URL",
    "build_parser",
    "exit_code_of",
    "main",
]

DEFAULT_CORE_URL = "http://127.0.0.1:8000"
CORE_URL_ENV = "ARM_KA_CORE_URL"
EXIT_USAGE = 64
EXIT_INTERRUPTED = 130


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
        "65 refused by the core, 69 core unreachable, 75 not final within --timeout, "
        "78 invalid settings.",
    )
    parser.add_argument("--version", action="version", version=f"arm-ka {package_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    parse = commands.add_parser(
        "parse",
        help="recognise local files with no servers (Excel, PDF, PNG, JPG, TIFF)",
        description="Recognise local files without NATS, S3 or the core, through the same "
        "recognisers the services run: Excel (XLS/XLSX/XLSB) by the tabular parser, PDF/PNG/JPG "
        "by the scan-gateway's local recogniser, a TIFF scan as the PDF arm-core makes of it. "
        "The type is taken from the content's signature, else from the extension. A folder stands for its supported files. One file gets a "
        "summary; several get a line each and a total.",
    )
    parse.add_argument("files", type=Path, nargs="+", metavar="FILE")
    shape = parse.add_mutually_exclusive_group()
    shape.add_argument(
        "--json",
        action="store_true",
        help="print the result file as JSON (several files: one per line)",
    )
    shape.add_argument(
        "--summary", action="store_true", help="print a readable summary (the default)"
    )
    parse.add_argument("--indent", action="store_true", help="with --json: indent the JSON")
    parse.add_argument(
        "--jobs",
        type=_positive,
        default=1,
        metavar="N",
        help="worker processes recognising files at once (1)",
    )
    parse.add_argument(
        "--export",
        type=Path,
        default=None,
        metavar="OUT.xlsx",
        help="also write every document to one workbook: an index sheet and a sheet each",
    )

    core_help = f"arm-core base URL (default ${CORE_URL_ENV} or {DEFAULT_CORE_URL})"
    token_help = (
        "bearer token for a core with an identity provider (default $ARM_KA_TOKEN, "
        "which, unlike an argument, other users cannot see in the process list)"
    )
    recognize = commands.add_parser(
        "recognize",
        help="upload a file to a running arm-core and follow its job",
        description="Upload FILE to arm-core (POST /api/v1/files), show the job's status "
        "transitions on stderr until it is final, then print a summary of its documents.",
    )
    recognize.add_argument("file", type=Path, metavar="FILE")
    recognize.add_argument("--core", default=None, metavar="URL", help=core_help)
    recognize.add_argument("--token", default=None, metavar="T", help=token_help)
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
    job.add_argument("job_id", type=_job_id, metavar="JOB_ID")
    job.add_argument("--core", default=None, metavar="URL", help=core_help)
    job.add_argument("--token", default=None, metavar="T", help=token_help)
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
            return _parse(args)
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


def _closed_stdout() -> int:
    """The reader went away before anything was known (`| head` on a usage error)."""
    silence_stdout()
    return EXIT_OK


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _job_id(text: str) -> str:
    """A job id is a UUID in its canonical form: anything else is refused here, not sent."""
    try:
        canonical = str(uuid.UUID(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a job id (a UUID): {text!r}") from None
    if canonical != text.lower():
        raise argparse.ArgumentTypeError(
            f"not a job id in the canonical UUID form (8-4-4-4-12): {text!r}"
        )
    return canonical


# -- commands ----------------------------------------------------------------------------------


def _parse(args: argparse.Namespace) -> int:
    """`arm-ka parse`; of one file, with no cyclic garbage collection in this process: it
    imports, reads and waits for its one worker, making next to no garbage cycles, and the
    collector's passes over every imported module's objects would only add to the fixed cost
    (issue 17.8). A batch collects as usual: it may run for hours over many files."""
    one_file = len(args.files) == 1 and not args.files[0].is_dir()
    collecting = gc.isenabled()
    if one_file:
        gc.disable()
    try:
        return _parse_files(args)
    finally:
        if collecting:
            gc.enable()


def _parse_files(args: argparse.Namespace) -> int:
    paths = expand_paths(args.files)
    batch = len(paths) > 1 or any(path.is_dir() for path in args.files)
    planned: list[Planned] = []
    skipped: list[str] = []
    for path in paths:
        try:
            planned.append(plan(path, keep=not batch))  # a batch reads each at its turn
        except UsageError as exc:
            if not batch:
                raise
            skipped.append(exc.message)
    recognisers = prepare(planned, jobs=args.jobs) if planned else None
    out = _Output(args, batch=batch, skipped=skipped)
    with ProgressLine(sys.stderr, planned) as progress:
        out.progress = progress
        if recognisers is None:
            return out.finish()
        return parse_files(
            planned,
            recognisers,
            out.digest,
            out.each,
            out.finish,
            jobs=args.jobs,
            progress=progress,
        )


@dataclass(slots=True)
class _Done:
    """What is kept of a parsed file until its line is out: the line (or the result itself
    for `--json` / one file's summary, with its body once decoded), its status, and what
    `--export` writes of it."""

    status: str
    line: str | None = None
    parsed: LocalParse | None = None
    body: dict[str, Any] | None = None
    export: ExportedFile | None = None


class _Output:
    """The output of `arm-ka parse`: a file's line as soon as it and every file before it are
    done (in the files' order), then the skipped files and the total, and the export."""

    def __init__(self, args: argparse.Namespace, *, batch: bool, skipped: list[str]) -> None:
        self._args = args
        self._batch = batch
        self._skipped = skipped
        self._statuses: list[str] = []
        self._exported: list[ExportedFile] = []
        self._closed = False
        self.progress: ProgressLine | None = None

    def digest(self, parsed: LocalParse) -> _Done:
        """Run as the file is done: a batch's summary line keeps only its text, the export
        only the fields it writes (`export_view`); `--json` and one file keep the result."""
        status = str(parsed.result.status)
        summed = self._batch and not self._args.json
        body = parsed.result.body() if summed or self._args.export is not None else None
        done = _Done(status, parsed=None if summed else parsed)
        if not summed and not self._args.json:
            done.body = body  # one file's summary: decoded once, for it and the export
        if summed and body is not None:
            done.line = file_line(body, name=str(parsed.path), file_type=parsed.file_type)
        if self._args.export is not None and body is not None:
            from services.cli._export import export_view  # openpyxl only when asked

            done.export = (str(parsed.path), parsed.file_type, export_view(body))
        return done

    def each(self, done: _Done) -> None:
        self._statuses.append(done.status)
        if done.export is not None:
            self._exported.append(done.export)
        self._print(lambda: self._show(done))

    def _show(self, done: _Done) -> None:
        if done.line is not None:
            print(done.line, flush=True)
        elif done.parsed is not None and self._args.json:
            write_json(done.parsed.result, indent=self._args.indent)
        elif done.parsed is not None:
            only = done.parsed
            body = done.body if done.body is not None else only.result.body()
            print(summarise_result(body, name=only.path.name, file_type=only.file_type))

    def finish(self) -> int:
        if self.progress is not None:
            self.progress.stop()
        code = EXIT_OK if all(exit_code_of(s) == EXIT_OK for s in self._statuses) else EXIT_ERROR
        if self._skipped:
            code = max(code, EXIT_ERROR)
        if self._args.export is not None:
            _export(self._args.export, self._exported)
        self._print(self._tail)
        return code

    def _tail(self) -> None:
        if self._args.json:
            for reason in self._skipped:
                print(f"arm-ka: skipped {reason}", file=sys.stderr)
        elif self._batch:
            for reason in self._skipped:
                print(f"{'skipped':<12} {reason}")
            print(total_line(self._statuses, skipped=len(self._skipped)))

    def _print(self, show: Callable[[], None]) -> None:
        """Print above the progress line; once the reader left (`| head`), print nothing more:
        the work goes on, and the exit code still says how it ended."""
        if self._closed:
            return
        try:
            if self.progress is None:
                show()
            else:
                with self.progress.above():
                    show()
        except BrokenPipeError:
            self._closed = True
            silence_stdout()


def _export(path: Path, files: list[ExportedFile]) -> None:
    from services.cli._export import export_workbook  # openpyxl only when asked

    try:
        sheets = export_workbook(path, files)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    print(f"выгружено документов: {sheets}, файлов: {len(files)} — в {path}", file=sys.stderr)


def _core_url(option: str | None) -> str:
    return option or os.environ.get(CORE_URL_ENV) or DEFAULT_CORE_URL


def _core(args: argparse.Namespace) -> CoreClient:
    """The client of the core the arguments name, with their token or $ARM_KA_TOKEN's."""
    from services.cli._core import TOKEN_ENV, CoreClient  # httpx only for the core's commands

    token = args.token or os.environ.get(TOKEN_ENV) or None
    return CoreClient(_core_url(args.core), token=token)


def _recognize(args: argparse.Namespace) -> int:
    path: Path = args.file
    data = read_file(path)
    with _core(args) as core:
        upload = core.upload(path.name, data)
        job_id, file_id = str(upload["job_id"]), str(upload["file_id"])
        file_type = str(upload.get("file_type"))
        pages = page_count(data, file_type)
        kind = f"{file_type}, страниц: {pages}" if pages else file_type
        print(f"загружен {path.name} ({kind}): файл {file_id}, задание {job_id}", file=sys.stderr)
        job = core.follow(
            job_id, timeout=args.timeout, on_status=_progress(time.monotonic(), pages)
        )
        documents = core.documents(file_id, job_id)
    return _print_job(
        job, documents, name=path.name, as_json=args.json, code=exit_code_of(str(job.get("status")))
    )


def _job(args: argparse.Namespace) -> int:
    with _core(args) as core:
        if args.follow:
            job = core.follow(
                args.job_id, timeout=args.timeout, on_status=_progress(time.monotonic())
            )
        else:
            job = core.job(args.job_id)
        documents = core.documents(str(job["file_id"]), str(job["job_id"]))
    status = str(job.get("status"))
    code = exit_code_of(status) if status not in ("queued", "published", "processing") else 0
    return _print_job(job, documents, name=None, as_json=args.json, code=code)


def _pages_done(job: dict[str, Any]) -> tuple[int, int] | None:
    """The job's (pages done, pages in all), when its `progress` says them."""
    progress = job.get("progress")
    if not isinstance(progress, dict):
        return None
    done, total = progress.get("pages_done"), progress.get("pages_total")
    if isinstance(done, int) and isinstance(total, int) and 0 <= done <= total:
        return done, total
    return None


def _progress(started: float, pages: int | None = None) -> Any:
    """Each status as it comes, with the seconds waited; while it runs, the pages of the scan:
    the pages done of all when the job tells them (scan-gateway's local recogniser), else the
    total counted here (decision 0037)."""
    from services.cli._core import ACTIVE_STATUSES  # httpx only for the core's commands

    def show(status: str, job: dict[str, Any]) -> None:
        shown = STATUS_NAMES.get(status, status)
        done = _pages_done(job)
        if done is not None and status in ACTIVE_STATUSES:
            shown += f", готово страниц: {done[0]} из {done[1]}"
        elif pages and status in ACTIVE_STATUSES:
            shown += f", страниц: {pages}"
        print(f"  {seconds(time.monotonic() - started):>9}  {shown}", file=sys.stderr, flush=True)

    return show


def _print_job(
    job: dict[str, Any],
    documents: list[dict[str, Any]] | None,
    *,
    name: str | None,
    as_json: bool,
    code: int,
) -> int:
    """Print the job; `code` is returned even when stdout is closed early (`| head`)."""
    try:
        if as_json:
            sys.stdout.flush()
            sys.stdout.buffer.write(
                orjson.dumps({"job": job, "documents": documents}, option=orjson.OPT_INDENT_2)
                + b"\n"
            )
            sys.stdout.flush()
        else:
            print(summarise_job(job, documents, name=name), flush=True)
    except BrokenPipeError:
        silence_stdout()
    return code
