"""The tabular recogniser: Excel bytes → `Recognition`, in a sandboxed worker process.

Steps, all in the child process (never on the event loop; calamine may abort a process on a
hostile file): signature (not XLS / XLSX / XLSB → UNSUPPORTED_FORMAT), open the workbook (an
Excel signature that cannot be read → UNREADABLE), then `analyse_workbook`. A child that dies,
runs out of memory or time makes that one job UNREADABLE; the service goes on.

`build_recognizer` is the one place it is built from settings, for the service app and for a
local parse alike.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from services.excel import Workbook, detect_format, load_workbook
from services.excel.exceptions import NotAWorkbook, UnreadableWorkbook
from services.excel.model import Sheet
from services.runtime.recognizer import (
    EncodedRecognition,
    ErrorCode,
    GroupSchema,
    Job,
    Recognition,
    RecognitionFailed,
)
from services.runtime.sandbox import release_later
from services.runtime.sandboxed import SandboxRunner, run_recognition
from services.tabular_parser.ledger import find_ledger_report
from services.tabular_parser.osv import read_osv_sheet

if TYPE_CHECKING:  # the worker process imports this module: it needs no settings
    from services.runtime.worker_pool import BuiltRecognizer
    from services.tabular_parser.settings import TabularParserSettings
    from services.tabular_parser.statements import StatementsResult

__all__ = [
    "TabularRecognizer",
    "analyse_workbook",
    "build_recognizer",
    "recognize_bytes",
    "recognize_encoded",
]


class TabularRecognizer:
    """The default recogniser of tabular-parser; recognition runs in `sandbox`."""

    def __init__(self, sandbox: SandboxRunner) -> None:
        self._sandbox = sandbox

    async def recognize(self, data: bytes, job: Job) -> EncodedRecognition:
        result = await run_recognition(self._sandbox, recognize_encoded, data, what="the workbook")
        if not isinstance(result, EncodedRecognition):
            msg = f"the worker returned {type(result).__name__}, not an EncodedRecognition"
            raise TypeError(msg)
        return result


def build_recognizer(
    settings: TabularParserSettings, *, workers: int | None = None
) -> BuiltRecognizer:
    """The service's recogniser over its own worker pool (`settings.pool`).

    `workers` sizes the pool (a local parse of N files at once); by default PARSE_WORKERS,
    capped by JOBS_IN_FLIGHT since no more workbooks than that are ever read at once.
    """
    from services.runtime.worker_pool import BuiltRecognizer, pool_for

    sandbox = pool_for(settings.pool, settings.jobs_in_flight, workers)
    return BuiltRecognizer(TabularRecognizer(sandbox), (sandbox,))


def recognize_encoded(data: bytes) -> EncodedRecognition:
    """The child-process entry: `recognize_bytes` with the documents encoded as JSON there, so
    the parent neither unpickles nor encodes a large result on its event loop."""
    with _gc_paused():
        recognition = recognize_bytes(data)
        encoded = recognition.encode()
        release_later(recognition)  # neither freeing nor collecting them delays the reply
    return encoded


@contextmanager
def _gc_paused() -> Iterator[None]:
    """No cyclic GC while a workbook is turned into millions of short-lived containers.

    The structures built here hold no reference cycles; the collector's repeated full passes
    over them cost a fifth of a large sheet's time. Collection resumes (and catches up) after.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def recognize_bytes(data: bytes) -> Recognition:
    """The child-process side: signature, open, analyse. Raises `RecognitionFailed`."""
    with _gc_paused():
        return _recognize_bytes(data)


def _recognize_bytes(data: bytes) -> Recognition:
    if detect_format(data) is None:
        raise RecognitionFailed(
            ErrorCode.UNSUPPORTED_FORMAT, "not an Excel workbook (no XLS, XLSX or XLSB signature)"
        )
    try:
        workbook = load_workbook(data)
    except NotAWorkbook as exc:
        raise RecognitionFailed(ErrorCode.UNSUPPORTED_FORMAT, str(exc)) from None
    except UnreadableWorkbook as exc:
        raise RecognitionFailed(ErrorCode.UNREADABLE, str(exc)) from None
    return analyse_workbook(workbook, release_rows=True)


def analyse_workbook(workbook: Workbook, *, release_rows: bool = False) -> Recognition:
    """The documents of an opened workbook: trial balances and statements, sheet by sheet.

    A sheet that is an ОСВ becomes one osvDocument per ОСВ table on it, in their order. A sheet
    that is another 1C ledger report («Анализ счета», «Карточка счета», a flat table of
    balances, a «Обороты счета» without its six sums…) is the file warning SHEET_OTHER saying
    what to export instead, and never reaches the statements recogniser (its amounts would be
    read as line codes). The other sheets go to the statements recogniser, which may join an
    актив and a пассив sheet into one BALANCE; a sheet that is none of them is its SHEET_OTHER
    saying what the sheet shows and what to export instead. A sheet whose recognition raised is TABLE_PARSE_FAILED while
    the others go on; so is one ОСВ table of a sheet whose other tables were read (located at
    its range; `osv.read_osv_sheet`). A sheet whose stray cells far past its table were
    dropped by the reader adds CELLS_IGNORED. A workbook with no document at all is the error
    RECOGNITION_FAILED naming, per sheet, what was found; it carries the file warnings.
    `release_rows` empties the rows of a sheet once its trial balances are read, so a large
    sheet's cells and its documents are not both held at the peak (for a caller that drops the
    workbook afterwards).
    """
    order = {sheet.name: index for index, sheet in enumerate(workbook.sheets)}
    placed: list[tuple[int, dict[str, Any]]] = []
    failed: list[dict[str, Any]] = []
    ledger: list[dict[str, Any]] = []
    rest: list[Sheet] = []
    for sheet in workbook.sheets:
        try:
            found = read_osv_sheet(sheet, release_rows=release_rows)
        except Exception as exc:  # one broken sheet must not stop the others
            from services.tabular_parser.statements import SheetFailure  # see `_statements_of`

            failed.append(SheetFailure(sheet.name, type(exc).__name__, str(exc)).warning())
            continue
        failed.extend(failure.warning() for failure in found.failures)
        if found.results:  # one document per ОСВ table, in their order (the sort is stable)
            placed.extend((order[sheet.name], result.document) for result in found.results)
        elif (report := find_ledger_report(sheet)) is not None:
            ledger.append(report.warning())
        else:
            rest.append(sheet)
    has_osv = bool(placed)
    statements = _statements_of(rest)
    read = statements.documents if statements is not None else []
    said = statements.file_warnings() if statements is not None else []
    placed.extend((_first_sheet_index(doc, order), doc) for doc in read)
    warnings = failed + ledger + said + _ignored_cells(workbook)
    documents = [doc for _, doc in sorted(placed, key=lambda item: item[0])]
    if not documents:
        raise RecognitionFailed(
            ErrorCode.RECOGNITION_FAILED, _nothing_found(workbook, warnings), warnings=warnings
        )
    version = statements.statements_version if statements is not None and read else None
    group: GroupSchema = "mixed" if has_osv and read else "osv" if has_osv else "rsbu"
    return Recognition(
        documents=documents,
        warnings=warnings,
        group_schema=group,
        statements_version=version,
    )


def _statements_of(sheets: list[Sheet]) -> StatementsResult | None:
    """The statements recogniser over the sheets that are neither a trial balance nor a ledger
    report; None when there are none. It is imported here, when first needed: a workbook of
    trial balances (the large ones) never loads it, nor the line catalogue, the relations and
    the document builder behind it (~25 ms of a one-file parse)."""
    if not sheets:
        return None
    from services.tabular_parser.statements import recognize_statements

    return recognize_statements(sheets)


def _ignored_cells(workbook: Workbook) -> list[dict[str, Any]]:
    """CELLS_IGNORED per sheet whose stray cells far past its table were not read."""
    return [
        {
            "code": "CELLS_IGNORED",
            "severity": "warning",
            "message": (
                f"Лист «{sheet.name}»: ячейки далеко за таблицей не прочитаны "
                f"({', '.join(sheet.ignored_cells[:10])}"
                f"{' …' if len(sheet.ignored_cells) > 10 else ''})"
            ),
            "locator": {"sheet": sheet.name, "range": sheet.ignored_cells[0]},
        }
        for sheet in workbook.sheets
        if sheet.ignored_cells
    ]


_NAMED_SHEETS = 10  # a RECOGNITION_FAILED message names at most this many sheets


def _nothing_found(workbook: Workbook, warnings: list[dict[str, Any]]) -> str:
    """«Не распознано …: лист «A» — <what its warning says>; лист «B» — …»."""
    said: dict[str, str] = {}
    for warning in warnings:
        locator = warning.get("locator")
        name = locator.get("sheet") if isinstance(locator, dict) else None
        if isinstance(name, str) and name not in said:
            said[name] = str(warning.get("message", ""))
    parts = [_sheet_said(sheet, said.get(sheet.name)) for sheet in workbook.sheets[:_NAMED_SHEETS]]
    if len(workbook.sheets) > _NAMED_SHEETS:
        parts.append(f"и ещё листов: {len(workbook.sheets) - _NAMED_SHEETS}")
    listed = "; ".join(parts) if parts else "в книге нет листов"
    return f"Не распознано ни оборотно-сальдовой ведомости, ни формы отчётности: {listed}"


def _sheet_said(sheet: Sheet, message: str | None) -> str:
    """One sheet in the RECOGNITION_FAILED message: its warning's text, else what it shows."""
    own = f"Лист «{sheet.name}»"
    if message and message.startswith(own):
        return "л" + message[1:]
    from services.tabular_parser.statements import describe_sheet  # see `_statements_of`

    return f"лист «{sheet.name}» — {message or describe_sheet(sheet)}"


def _first_sheet_index(document: dict[str, Any], order: dict[str, int]) -> int:
    locator = document.get("locator")
    first = locator[0] if isinstance(locator, list) and locator else locator
    sheet = first.get("sheet") if isinstance(first, dict) else None
    return order.get(sheet, len(order)) if isinstance(sheet, str) else len(order)
