"""One pass over the BIFF12 record stream of each XLSB sheet part.

calamine exposes neither outline levels, merged ranges nor fonts for XLSB, so they come from
here: BrtRowHdr carries the row and its outline level, BrtMergeCell a merged range, cell records
their column (the real extent, checked against the caps before calamine allocates) and their
cell XF (bold rows, with the bold XFs read from xl/styles.bin; the stored number of cells whose
format is a date trap, see `numfmt`). Styles are a hint: a styles part that is missing,
oversized or damaged gives no bold rows and no trap cells instead of failing the read.

The sheet walk runs in C (`_walk.walk_xlsb`) when it is built; `walk_xlsb_python` is its
reference and fallback (`_kernels`, docs/decisions/0040-speed-at-the-floor.md).
"""

from __future__ import annotations

import posixpath
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterator
from xml.etree import ElementTree

from ._inflate import read_member
from ._kernels import native
from ._meta import SheetMeta
from ._xls_scan import rk_number
from .exceptions import UnreadableWorkbook
from .guards import check_extent
from .limits import Limits
from .model import CellRange
from .numfmt import is_date_trap

__all__ = [
    "CELL_TYPES",
    "ROW_HDR",
    "WS_DIM",
    "iter_records",
    "read_part",
    "scan_xlsb",
    "sheet_parts",
]

_FMT = "XLSB"
ROW_HDR = 0
CELL_TYPES = frozenset(range(1, 14)) | {62}  # BrtCellBlank … BrtFmlaError, BrtCellRString
WS_DIM = 148
_MERGE_CELL = 176
_BUNDLE_SH = 156
_FONT = 43
_FMT_RECORD = 44
_XF = 47
_CELL_RK, _CELL_REAL, _FMLA_NUM = 2, 5, 9
_BEGIN_FONTS, _END_FONTS = 611, 612
_BEGIN_CELL_XFS, _END_CELL_XFS = 617, 618
_BOLD_WEIGHT = 700  # BrtFont.bls: 400 normal, 700 bold (800, 900 heavier still)
_STYLE_REF = 0xFFFFFF  # Cell.iStyleRef: the low 24 bits after the column
_U16 = struct.Struct("<H")
_U32 = struct.Struct("<I")
_CELL = struct.Struct("<II")
_RFX = struct.Struct("<IIII")
_F64 = struct.Struct("<d")
# What a damaged styles part can raise: reading the member (zip, zlib) or its records.
_STYLES_DAMAGE = (
    UnreadableWorkbook,
    struct.error,
    IndexError,
    zipfile.BadZipFile,
    zlib.error,
    EOFError,
    OSError,
    NotImplementedError,
    RuntimeError,
)


def iter_records(data: bytes) -> Iterator[tuple[int, int, int]]:
    """(record type, body offset, body size) for each record; raises on a truncated header."""
    pos, end = 0, len(data)
    while pos < end:
        kind, pos, size = _header(data, pos)
        if pos + size > end:
            msg = f"record {kind} overruns the part"
            raise UnreadableWorkbook(msg, fmt=_FMT)
        yield kind, pos, size
        pos += size


def _header(data: bytes, pos: int) -> tuple[int, int, int]:
    """(record type, body offset, body size) of the record at `pos`: two varints (MS-XLSB 2.1.4)."""
    kind = data[pos]
    pos += 1
    if kind & 0x80:
        kind = (kind & 0x7F) | ((data[pos] & 0x7F) << 7)
        pos += 1
    size = 0
    for shift in (0, 7, 14, 21):
        byte = data[pos]
        pos += 1
        size |= (byte & 0x7F) << shift
        if not byte & 0x80:
            break
    return kind, pos, size


def scan_xlsb(archive: zipfile.ZipFile, limits: Limits) -> dict[str, SheetMeta]:
    """Sheet name → what the pass found; raises `UnreadableWorkbook` / `LimitExceeded`."""
    members = {name.lower(): name for name in archive.namelist()}
    styles = _styles(archive, members, limits)
    try:
        return {
            name: _scan_sheet(
                read_part(archive, members[part.lower()], limits), hidden, styles, limits
            )
            for name, part, hidden in sheet_parts(archive, members, limits)
            if part.lower() in members
        }
    except (struct.error, IndexError, UnicodeDecodeError) as exc:
        raise UnreadableWorkbook(f"damaged BIFF12 records: {exc}", fmt=_FMT) from exc


def read_part(archive: zipfile.ZipFile, name: str, limits: Limits) -> bytes:
    info = archive.getinfo(name)
    if info.file_size > limits.max_uncompressed_bytes:
        msg = f"part {name!r} is {info.file_size} bytes"
        raise UnreadableWorkbook(msg, fmt=_FMT)
    return read_member(archive, name)


def _wide_string(data: bytes, pos: int) -> tuple[str, int]:
    count = _U32.unpack_from(data, pos)[0]
    pos += 4
    if count == 0xFFFFFFFF:
        return "", pos
    end = pos + 2 * count
    if end > len(data):
        raise IndexError("string overruns its record")
    return data[pos:end].decode("utf-16-le"), end


def sheet_parts(
    archive: zipfile.ZipFile, members: dict[str, str], limits: Limits
) -> list[tuple[str, str, bool]]:
    workbook = read_part(archive, members["xl/workbook.bin"], limits)
    rels_name = members.get("xl/_rels/workbook.bin.rels")
    targets: dict[str, str] = {}
    if rels_name is not None:
        try:
            root = ElementTree.fromstring(read_part(archive, rels_name, limits))
        except ElementTree.ParseError as exc:
            raise UnreadableWorkbook(f"workbook rels: {exc}", fmt=_FMT) from exc
        for rel in root.iter():
            if rel.tag.endswith("Relationship") and "Id" in rel.attrib:
                targets[rel.attrib["Id"]] = rel.attrib.get("Target", "")
    found: list[tuple[str, str, bool]] = []
    for kind, pos, _size in iter_records(workbook):
        if kind != _BUNDLE_SH:
            continue
        state = _U32.unpack_from(workbook, pos)[0]
        rel_id, after = _wide_string(workbook, pos + 8)
        name, _ = _wide_string(workbook, after)
        target = targets.get(rel_id, "")
        if target:
            path = target.lstrip("/") if target.startswith("/") else f"xl/{target}"
            found.append((name, posixpath.normpath(path), state != 0))
    return found


_NO_STYLES = (frozenset[int](), frozenset[int]())


def _styles(
    archive: zipfile.ZipFile, members: dict[str, str], limits: Limits
) -> tuple[frozenset[int], frozenset[int]]:
    """The cell XFs whose font is bold and those whose format is a date trap; empty if
    xl/styles.bin cannot tell."""
    name = members.get("xl/styles.bin")
    if name is None:
        return _NO_STYLES
    try:
        if archive.getinfo(name).file_size > limits.max_small_part_bytes:
            return _NO_STYLES
        return _parse_styles(archive.read(name))
    except _STYLES_DAMAGE:
        return _NO_STYLES


def _parse_styles(data: bytes) -> tuple[frozenset[int], frozenset[int]]:
    """Formats (BrtFmt), fonts (BrtFont.bls) and cell XFs (BrtXF.iFmt, iFont) up to
    BrtEndCellXFs; the rest is unread."""
    bold_fonts: list[bool] = []
    xf_fonts: list[int] = []
    xf_formats: list[int] = []
    trap_formats: set[int] = set()
    section = 0
    for kind, pos, size in iter_records(data):
        if kind == _FONT and section == _BEGIN_FONTS:
            bold_fonts.append(size >= 6 and _U16.unpack_from(data, pos + 4)[0] >= _BOLD_WEIGHT)
        elif kind == _FMT_RECORD and size >= 6:
            code, _ = _wide_string(data, pos + 2)
            format_id = _U16.unpack_from(data, pos)[0]
            if is_date_trap(code, format_id):
                trap_formats.add(format_id)
        elif kind == _XF and section == _BEGIN_CELL_XFS:
            xf_fonts.append(_U16.unpack_from(data, pos + 4)[0] if size >= 6 else -1)
            xf_formats.append(_U16.unpack_from(data, pos + 2)[0] if size >= 4 else -1)
        elif kind in (_BEGIN_FONTS, _BEGIN_CELL_XFS):
            section = kind
        elif kind == _END_FONTS:
            section = 0
        elif kind == _END_CELL_XFS:
            break
    bold = frozenset(
        index
        for index, font in enumerate(xf_fonts)
        if 0 <= font < len(bold_fonts) and bold_fonts[font]
    )
    traps = frozenset(index for index, fmt in enumerate(xf_formats) if fmt in trap_formats)
    return bold, traps


def _stored_number(data: bytes, kind: int, body: int, size: int) -> float | None:
    """The number of a BrtCellRk, BrtCellReal or BrtFmlaNum record (after column and style)."""
    if kind == _CELL_RK and size >= 12:
        return rk_number(_U32.unpack_from(data, body + 8)[0])
    if kind in (_CELL_REAL, _FMLA_NUM) and size >= 16:
        return float(_F64.unpack_from(data, body + 8)[0])
    return None


# What a sheet walk returns (the Python `walk_xlsb_python` and the C `_walk.walk_xlsb` alike):
# outline levels, bold rows, trap numbers, merges as (top, left, bottom, right), each BrtWsDim
# rectangle met (in order, before the walk stopped), the extent (first row, first column, last
# row, last column, cells) and why the walk stopped early, if it did: (OVERRUN, message) or
# (DAMAGED, what could not be read).
Rect = tuple[int, int, int, int]
XlsbWalk = tuple[
    dict[int, int],
    set[int],
    dict[tuple[int, int], float],
    list[Rect],
    list[Rect],
    tuple[int, int, int, int, int],
    tuple[str, str] | None,
]
OVERRUN, DAMAGED = "overrun", "damaged"


def _scan_sheet(
    data: bytes, hidden: bool, styles: tuple[frozenset[int], frozenset[int]], limits: Limits
) -> SheetMeta:
    """The walk's findings checked in the order the records gave them: each BrtWsDim as it was
    met, then why the walk stopped (a record overrunning the part, bytes that cannot be read),
    then the extent the cells cover."""
    levels, bold_rows, numbers, merged, dims, extent, stopped = walk_xlsb(data, *styles)
    for top, left, bottom, right in dims:
        check_extent(top, left, bottom, right, 0, limits, _FMT)
    if stopped is not None:
        case, detail = stopped
        msg = detail if case == OVERRUN else f"damaged BIFF12 records: {detail}"
        raise UnreadableWorkbook(msg, fmt=_FMT)
    first_row, first_col, last_row, last_col, cells = extent
    if last_row >= 0:
        check_extent(first_row, first_col, last_row, last_col, cells, limits, _FMT)
    return SheetMeta(
        outline_levels=levels,
        bold_rows=bold_rows,
        merged=[CellRange(*rect) for rect in merged],
        numbers=numbers,
        hidden=hidden,
    )


def walk_xlsb_python(data: bytes, bold_xfs: frozenset[int], traps: frozenset[int]) -> XlsbWalk:
    """The reference walk (`services/excel/_walk.c` is its C twin, held equal by the tests).

    Walks the records inline (no generator: a sheet holds millions of them), comparing
    instead of calling; a cell's style is looked up only when some XF is bold or a date trap.
    Reads go past a short record into the bytes that follow, bounded by the part."""
    levels: dict[int, int] = {}
    bold_rows: set[int] = set()
    numbers: dict[tuple[int, int], float] = {}
    merged: list[Rect] = []
    dims: list[Rect] = []
    styled = bool(bold_xfs or traps)
    cell_types = CELL_TYPES
    unpack_cell = _CELL.unpack_from
    unpack_u32 = _U32.unpack_from
    row = 0
    extent_row = -1  # the last row whose cells already widened the extent
    first_row = first_col = 1 << 40
    last_row = last_col = -1
    cells = 0
    stopped: tuple[str, str] | None = None
    pos, end = 0, len(data)
    try:
        while pos < end:
            kind = data[pos]
            size = data[pos + 1]
            if kind < 0x80 and size < 0x80:  # one-byte type and size: nearly every record
                body = pos + 2
            else:
                kind, body, size = _header(data, pos)
            pos = body + size
            if pos > end:
                stopped = (OVERRUN, f"record {kind} overruns the part")
                break
            if kind in cell_types and size >= 4:
                if size >= 8:
                    col, style = unpack_cell(data, body)
                    if styled:
                        style &= _STYLE_REF
                        if style in bold_xfs:
                            bold_rows.add(row)
                        if style in traps:
                            number = _stored_number(data, kind, body, size)
                            if number is not None:
                                numbers[row, col] = number
                else:
                    col = unpack_u32(data, body)[0]
                cells += 1
                if col > last_col:
                    last_col = col
                if col < first_col:
                    first_col = col
                if row != extent_row:
                    extent_row = row
                    if row > last_row:
                        last_row = row
                    if row < first_row:
                        first_row = row
            elif kind == ROW_HDR:
                row = unpack_u32(data, body)[0]
                level = (_U16.unpack_from(data, body + 10)[0] >> 8) & 0x07
                if level:
                    levels[row] = level
            elif kind == WS_DIM:
                top, bottom, left, right = _RFX.unpack_from(data, body)
                dims.append((top, left, bottom, right))
            elif kind == _MERGE_CELL:
                top, bottom, left, right = _RFX.unpack_from(data, body)
                merged.append((top, left, bottom, right))
    except (struct.error, IndexError) as exc:
        stopped = (DAMAGED, str(exc))
    extent = (first_row, first_col, last_row, last_col, cells)
    return levels, bold_rows, numbers, merged, dims, extent, stopped


walk_xlsb: Callable[[bytes, frozenset[int], frozenset[int]], XlsbWalk] = native(
    "walk_xlsb", walk_xlsb_python
)
