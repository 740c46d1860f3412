"""Reading a guarded workbook into the plain `Workbook` model.

Values come from python-calamine; what it does not expose (outline levels, bold rows, formula
cells without a cached value, XLSB merges) comes from cheap streaming passes per format that
also measure each sheet's real extent, so the caps hold *before* calamine allocates its dense
grid. Every error of calamine and of the container libraries — including PyO3's
`PanicException`, a `BaseException` — becomes `UnreadableWorkbook` here and nowhere else.

calamine releases the GIL while it parses, so for XLSX (the format of large 1C exports) the
streaming passes run on a second thread beside it: the guard pass while calamine opens the
workbook (shared strings, styles), each sheet's describe pass while calamine parses that
sheet. The order that keeps hostile files safe holds: container checks, then every sheet's
guard, then sheet parsing. XLS and XLSB are read in that order without overlap: calamine may
parse their sheets when it opens the file. An XLSX or XLSB sheet refused by an extent cap only
because of a few stray cells far past its table is read without them (`_strays`).
"""

from __future__ import annotations

import datetime as dt
import io
import zipfile
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from itertools import islice
from typing import TypeVar, cast

import python_calamine

from services.contract.filetypes import ole_workbook_stream

from ._meta import SheetMeta
from ._strays import strip_xlsb_strays, strip_xlsx_strays
from ._xls_scan import scan_xls
from ._xlsb_scan import scan_xlsb
from ._xlsx_scan import Describe, scan_xlsx
from .exceptions import ExcelError, LimitExceeded, UnreadableWorkbook
from .guards import check_extent, check_file_size, check_xml_prologs, check_zip_members
from .limits import DEFAULT_LIMITS, Limits
from .model import CellRange, CellValue, Sheet, Workbook
from .signature import ExcelFormat

__all__ = ["read_workbook"]

_T = TypeVar("_T")
_PASS_THROUGH = (KeyboardInterrupt, SystemExit, GeneratorExit, MemoryError)


def read_workbook(data: bytes, fmt: ExcelFormat, limits: Limits = DEFAULT_LIMITS) -> Workbook:
    """Guard, scan and read `data` already identified as `fmt` (see `detect_format`)."""
    check_file_size(data, limits, fmt)
    return _guarded(fmt, lambda: _read(data, fmt, limits))


def _guarded(fmt: str, action: Callable[[], _T]) -> _T:
    """The one translation boundary for third-party failures."""
    try:
        return action()
    except ExcelError:
        raise
    except _PASS_THROUGH:
        raise
    except BaseException as exc:  # PyO3 PanicException is a BaseException
        reason = f"{type(exc).__name__}: {exc}"[:500]
        raise UnreadableWorkbook(reason, fmt=fmt) from exc


_EXTENT_CAPS = frozenset({"max_rows", "max_cols", "max_cells"})
_STRIP_STRAYS = {"XLSX": strip_xlsx_strays, "XLSB": strip_xlsb_strays}


def _read(data: bytes, fmt: ExcelFormat, limits: Limits) -> Workbook:
    """An XLSX or XLSB refused by an extent cap is read again without its stray cells, if it
    has strays whose removal fits it in the caps (`_strays`); otherwise the refusal stands."""
    try:
        return _read_format(data, fmt, limits)
    except LimitExceeded as refused:
        strip = _STRIP_STRAYS.get(fmt)
        stripped = strip(data, limits) if strip and refused.limit in _EXTENT_CAPS else None
        if stripped is None:
            raise
    cleaned, ignored = stripped
    book = _read_format(cleaned, fmt, limits)
    for sheet in book.sheets:
        sheet.ignored_cells = ignored.get(sheet.name, [])
    return book


def _read_format(data: bytes, fmt: ExcelFormat, limits: Limits) -> Workbook:
    return _read_xlsx(data, limits) if fmt == "XLSX" else _read_binary(data, fmt, limits)


def _read_binary(data: bytes, fmt: ExcelFormat, limits: Limits) -> Workbook:
    metas = _scan(data, fmt, limits)
    describes: dict[str, Describe] = {name: partial(_known, meta) for name, meta in metas.items()}
    with _open(data) as book:
        return _read_sheets(book, describes, None, fmt, limits)


def _read_xlsx(data: bytes, limits: Limits) -> Workbook:
    fmt: ExcelFormat = "XLSX"
    # The scanner is shut down (waiting for its pass) before the archive it reads is closed.
    with (
        zipfile.ZipFile(io.BytesIO(data)) as archive,
        ThreadPoolExecutor(1, thread_name_prefix="xlsx-scan") as scanner,
    ):
        check_zip_members(archive, limits, fmt)
        check_xml_prologs(archive, limits, fmt)
        guarding = scanner.submit(scan_xlsx, archive, limits)
        try:
            book = _open(data)
        except BaseException:
            guarding.result()  # a cap the file broke explains it better than calamine's error
            raise
        with book:
            return _read_sheets(book, guarding.result(), scanner, fmt, limits)


def _scan(data: bytes, fmt: ExcelFormat, limits: Limits) -> dict[str, SheetMeta]:
    if fmt == "XLS":
        stream = ole_workbook_stream(data)
        if stream is None:
            raise UnreadableWorkbook("no Workbook stream", fmt=fmt)
        return scan_xls(stream, limits)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        check_zip_members(archive, limits, fmt)
        check_xml_prologs(archive, limits, fmt)
        return scan_xlsb(archive, limits)


def _known(meta: SheetMeta) -> SheetMeta:
    return meta


def _open(data: bytes) -> python_calamine.CalamineWorkbook:
    return python_calamine.CalamineWorkbook.from_filelike(io.BytesIO(data))


def _read_sheets(
    book: python_calamine.CalamineWorkbook,
    describes: Mapping[str, Describe],
    scanner: ThreadPoolExecutor | None,
    fmt: ExcelFormat,
    limits: Limits,
) -> Workbook:
    """Each worksheet parsed by calamine, its describe pass on `scanner` meanwhile if given.

    calamine stays on this thread: its large allocations then come from the main malloc
    arena, which the recognition after it reuses (from a second arena they would add to the
    worker's peak RSS).
    """
    sheets: list[Sheet] = []
    for info in book.sheets_metadata:
        if info.typ != python_calamine.SheetTypeEnum.WorkSheet:
            continue
        describe = describes.get(info.name, SheetMeta)
        if scanner is None:
            source, meta = book.get_sheet_by_name(info.name), describe()
        else:
            describing = scanner.submit(describe)
            source = book.get_sheet_by_name(info.name)
            meta = describing.result()
        hidden = meta.hidden or info.visible != python_calamine.SheetVisibleEnum.Visible
        sheets.append(_read_sheet(source, meta, hidden, fmt, limits))
    return Workbook(format=fmt, sheets=sheets)


def _read_sheet(
    source: python_calamine.CalamineSheet,
    meta: SheetMeta,
    hidden: bool,
    fmt: ExcelFormat,
    limits: Limits,
) -> Sheet:
    merged = meta.merged or [
        CellRange(top, left, bottom, right)
        for (top, left), (bottom, right) in (source.merged_cell_ranges or [])
    ]
    sheet = Sheet(
        name=source.name,
        rows=[],
        merged=merged,
        outline_levels=meta.outline_levels,
        bold_rows=meta.bold_rows,
        formula_cells=meta.formula_cells,
        hidden=hidden,
    )
    start, end = source.start, source.end
    if start is None or end is None:
        return sheet
    # The scan already capped the extent; this re-check costs nothing and holds the cap even
    # where the scan could not see (cells without references).
    check_extent(start[0], start[1], end[0], end[1], 0, limits, fmt)
    sheet.rows = _absolute_rows(source, end, limits, fmt)
    for row, col in meta.formula_cells:
        if row < len(sheet.rows) and col < len(sheet.rows[row]):
            sheet.rows[row][col] = ""
    _restore_numbers(sheet.rows, meta.numbers)
    return sheet


_TEMPORAL = (dt.datetime, dt.date, dt.time, dt.timedelta)


def _restore_numbers(rows: list[list[CellValue]], numbers: Mapping[tuple[int, int], float]) -> None:
    """The stored number where calamine guessed a date or a time from a trap format (`numfmt`)."""
    for (row, col), number in numbers.items():
        if row < len(rows) and col < len(rows[row]) and isinstance(rows[row][col], _TEMPORAL):
            rows[row][col] = number


def _absolute_rows(
    source: python_calamine.CalamineSheet,
    end: tuple[int, int],
    limits: Limits,
    fmt: ExcelFormat,
) -> list[list[CellValue]]:
    """Rows from Excel row 1 / column A, calamine's lists as they are (empty cells ""),
    trailing empties trimmed.

    python-calamine's `iter_rows` pads leading empty rows but starts each row at the first
    used column; both offsets are derived from the end corner so either behaviour is right.
    """
    rows: list[list[CellValue]] = []
    append = rows.append
    used_rows, width = end[0] + 1, end[1] + 1
    # calamine's row lists become the sheet's rows, not copies (see `Sheet`); one row more
    # than the used range is taken, to notice a longer iteration without following it.
    lines = cast("Iterator[list[CellValue]]", source.iter_rows())
    for line in islice(lines, used_rows + 1):
        pad = width - len(line)
        while line and line[-1] == "":
            line.pop()
        if line and pad > 0:
            line[:0] = [""] * pad
        append(line)
    if len(rows) > used_rows:
        raise UnreadableWorkbook("more rows than the used range", fmt=fmt)
    missing = used_rows - len(rows)
    if missing > 0:
        rows[:0] = [[] for _ in range(missing)]
    cells = sum(map(len, rows))
    if cells > limits.max_cells:
        raise LimitExceeded("max_cells", cells, limits.max_cells, fmt=fmt)
    return rows
