"""One pass over the BIFF record stream of an XLS for what calamine does not expose.

Reads the globals (sheet list, fonts, XF styles) and each worksheet substream: ROW records
carry the outline level, cell records their row/column (the real extent, checked against the
caps before calamine allocates) and their XF (bold rows). Records are walked by header; a cell's
number is decoded only when its XF's format is a date trap (`numfmt`), so that the reader can
undo calamine's date guess.

The sheet walk runs in C (`_walk.walk_xls`) when it is built; `walk_xls_python` is its
reference and fallback (`_kernels`, docs/decisions/0040-speed-at-the-floor.md).
"""

from __future__ import annotations

import struct
from collections.abc import Callable

from ._kernels import native
from ._meta import SheetMeta
from .exceptions import UnreadableWorkbook
from .guards import check_extent
from .limits import Limits
from .numfmt import is_date_trap

__all__ = ["rk_number", "scan_xls"]

_FMT = "XLS"
_BOF, _EOF = 0x0809, 0x000A
_BOUNDSHEET, _FONT, _XF, _ROW, _FORMAT = 0x0085, 0x0031, 0x00E0, 0x0208, 0x041E
_MULRK, _MULBLANK = 0x00BD, 0x00BE
_NUMBER, _RK, _FORMULA = 0x0203, 0x027E, 0x0006
# NUMBER, LABELSST, RK, FORMULA, BLANK, BOOLERR, LABEL, RSTRING: row, col, xf at 0, 2, 4.
_CELLS = frozenset({0x0203, 0x00FD, 0x027E, 0x0006, 0x0201, 0x0205, 0x0204, 0x00D6})
_HEADER = struct.Struct("<HH")
_CELL = struct.Struct("<HHH")  # row, column, XF
_U16 = struct.Struct("<H")
_U32 = struct.Struct("<I")
_F64 = struct.Struct("<d")
_XF_RK = struct.Struct("<HI")
_BOLD_WEIGHT = 700
_NOT_A_NUMBER = b"\xff\xff"  # FORMULA: a result whose last two bytes are FFFF is no number


class _Styles:
    """The globals' XFs that are bold and those whose format is a date trap."""

    __slots__ = ("bold", "traps")

    def __init__(self, bold: frozenset[int], traps: frozenset[int]) -> None:
        self.bold = bold
        self.traps = traps


def scan_xls(stream: bytes, limits: Limits) -> dict[str, SheetMeta]:
    """Sheet name → what the pass found; raises `UnreadableWorkbook` / `LimitExceeded`."""
    try:
        sheets, styles = _globals(stream)
        return {
            name: _scan_sheet(stream, offset, hidden, styles, limits)
            for name, offset, hidden in sheets
        }
    except (struct.error, IndexError, UnicodeDecodeError) as exc:
        raise UnreadableWorkbook(f"damaged BIFF records: {exc}", fmt=_FMT) from exc


def _records(stream: bytes, pos: int) -> tuple[int, int, int]:
    code, size = _HEADER.unpack_from(stream, pos)
    return code, pos + 4, size


def _globals(stream: bytes) -> tuple[list[tuple[str, int, bool]], _Styles]:
    sheets: list[tuple[str, int, bool]] = []
    fonts: list[bool] = []
    xf_fonts: list[int] = []
    xf_formats: list[int] = []
    trap_formats: set[int] = set()
    pos, end = 0, len(stream)
    biff8 = True
    while pos + 4 <= end:
        code, body, size = _records(stream, pos)
        pos = body + size
        if code == _BOF:
            biff8 = _U16.unpack_from(stream, body)[0] == 0x0600
        elif code == _EOF:
            break
        elif code == _BOUNDSHEET:
            sheet = _boundsheet(stream[body : body + size], biff8)
            if sheet is not None:
                sheets.append(sheet)
        elif code == _FONT:
            fonts.append(_U16.unpack_from(stream, body + 6)[0] >= _BOLD_WEIGHT)
            if len(fonts) == 4:  # BIFF skips font index 4
                fonts.append(False)
        elif code == _XF:
            xf_fonts.append(_U16.unpack_from(stream, body)[0])
            xf_formats.append(_U16.unpack_from(stream, body + 2)[0])
        elif code == _FORMAT:
            index, text = _format(stream[body : body + size], biff8)
            if is_date_trap(text, index):
                trap_formats.add(index)
    bold = frozenset(
        index for index, font in enumerate(xf_fonts) if font < len(fonts) and fonts[font]
    )
    traps = frozenset(index for index, fmt in enumerate(xf_formats) if fmt in trap_formats)
    return sheets, _Styles(bold, traps)


def _format(body: bytes, biff8: bool) -> tuple[int, str]:
    """A FORMAT record: (format index, format code); a damaged text decodes with replacements."""
    index = _U16.unpack_from(body, 0)[0]
    if not biff8:
        return index, body[3 : 3 + body[2]].decode("cp1252", "replace")
    count = _U16.unpack_from(body, 2)[0]
    if body[4] & 0x01:
        return index, body[5 : 5 + 2 * count].decode("utf-16-le", "replace")
    return index, body[5 : 5 + count].decode("latin-1")


def rk_number(value: int) -> float:
    """An RK number (MS-XLS 2.5.217, MS-XLSB RkNumber): a 30-bit integer or the top of a
    double, maybe ÷100."""
    if value & 0x02:
        number = float((value >> 2) - (1 << 30) if value & 0x80000000 else value >> 2)
    else:
        number = _F64.unpack(b"\0\0\0\0" + _U32.pack(value & 0xFFFFFFFC))[0]
    return number / 100 if value & 0x01 else number


def _stored_number(stream: bytes, code: int, body: int) -> float | None:
    """The number a NUMBER, RK or FORMULA record holds (from offset 6 of its body)."""
    if code == _NUMBER:
        return float(_F64.unpack_from(stream, body + 6)[0])
    if code == _RK:
        return rk_number(_U32.unpack_from(stream, body + 6)[0])
    if code == _FORMULA and stream[body + 12 : body + 14] != _NOT_A_NUMBER:
        return float(_F64.unpack_from(stream, body + 6)[0])
    return None


def _boundsheet(body: bytes, biff8: bool) -> tuple[str, int, bool] | None:
    offset = _U32.unpack_from(body, 0)[0]
    hidden = (body[4] & 0x03) != 0
    if body[5] != 0:  # chart, macro or VB module: not a worksheet
        return None
    count = body[6]
    if not biff8:
        return body[7 : 7 + count].decode("cp1252", "replace"), offset, hidden
    wide = body[7] & 0x01
    raw = body[8 : 8 + count * (2 if wide else 1)]
    name = raw.decode("utf-16-le") if wide else raw.decode("latin-1")
    return name, offset, hidden


# What a sheet walk returns (the Python `walk_xls_python` and the C `_walk.walk_xls` alike):
# outline levels, bold rows, trap numbers, the extent (first row, first column, last row, last
# column, cells) and, when the walk met bytes it could not read, what they were.
XlsWalk = tuple[
    dict[int, int],
    set[int],
    dict[tuple[int, int], float],
    tuple[int, int, int, int, int],
    str | None,
]


def _scan_sheet(
    stream: bytes, offset: int, hidden: bool, styles: _Styles, limits: Limits
) -> SheetMeta:
    """The walk's findings: damaged records refuse the workbook, then the extent is checked."""
    levels, bold_rows, numbers, extent, damaged = walk_xls(
        stream, offset, styles.bold, styles.traps
    )
    if damaged is not None:
        raise UnreadableWorkbook(f"damaged BIFF records: {damaged}", fmt=_FMT)
    first_row, first_col, last_row, last_col, cells = extent
    if last_row >= 0:
        check_extent(first_row, first_col, last_row, last_col, cells, limits, _FMT)
    return SheetMeta(outline_levels=levels, bold_rows=bold_rows, numbers=numbers, hidden=hidden)


def walk_xls_python(
    stream: bytes, offset: int, bold_xfs: frozenset[int], traps: frozenset[int]
) -> XlsWalk:
    """The reference walk (`services/excel/_walk.c` is its C twin, held equal by the tests).

    Walks the records of the substream at `offset` inline, comparing instead of calling (a
    sheet holds up to millions of cells): the row bounds move only when the row changes, a
    cell's XF is looked up only when some XF is bold or a date trap. Reads go past a short
    record into the bytes that follow, bounded by the stream."""
    levels: dict[int, int] = {}
    bold_rows: set[int] = set()
    numbers: dict[tuple[int, int], float] = {}
    styled = bool(bold_xfs or traps)
    cell_codes = _CELLS
    first_row = first_col = 1 << 40
    last_row = last_col = -1
    seen_row = -1  # the row whose cells last moved the row bounds
    cells = 0
    depth = 0
    damaged: str | None = None
    pos, end = offset, len(stream)
    unpack_header = _HEADER.unpack_from
    unpack_cell = _CELL.unpack_from
    try:
        while pos + 4 <= end:
            code, size = unpack_header(stream, pos)
            body = pos + 4
            pos = body + size
            if code in cell_codes:
                row, col, xf = unpack_cell(stream, body)
                cells += 1
                if row != seen_row:
                    seen_row = row
                    if row > last_row:
                        last_row = row
                    if row < first_row:
                        first_row = row
                if col > last_col:
                    last_col = col
                if col < first_col:
                    first_col = col
                if styled:
                    if xf in bold_xfs:
                        bold_rows.add(row)
                    if xf in traps:
                        number = _stored_number(stream, code, body)
                        if number is not None:
                            numbers[row, col] = number
            elif code in (_MULRK, _MULBLANK):
                row, col = unpack_header(stream, body)
                last = _U16.unpack_from(stream, body + size - 2)[0]
                cells += max(last - col + 1, 0)
                last_row = max(last_row, row)
                first_row = min(first_row, row)
                last_col = max(last_col, last)
                first_col = min(first_col, col)
                if code == _MULRK and traps:
                    for index in range(max(last - col + 1, 0)):
                        xf, rk = _XF_RK.unpack_from(stream, body + 4 + 6 * index)
                        if xf in traps:
                            numbers[row, col + index] = rk_number(rk)
            elif code == _ROW:
                row = _U16.unpack_from(stream, body)[0]
                level = _U32.unpack_from(stream, body + 12)[0] & 0x07
                if level:
                    levels[row] = level
            elif code == _BOF:
                depth += 1
            elif code == _EOF:
                depth -= 1
                if depth <= 0:
                    break
    except (struct.error, IndexError) as exc:
        damaged = str(exc)
    return levels, bold_rows, numbers, (first_row, first_col, last_row, last_col, cells), damaged


walk_xls: Callable[[bytes, int, frozenset[int], frozenset[int]], XlsWalk] = native(
    "walk_xls", walk_xls_python
)
