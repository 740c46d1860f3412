"""Stray cells far past a sheet's table (XLSX, XLSB): dropped before calamine, so one cannot sink
a file.

A space typed at A1000500 under a 40-row statement makes the used range a million rows long:
the row cap refuses the file, and without the cap calamine would allocate the whole rectangle.
When a sheet is refused by an extent cap (rows, columns, the used rectangle), this pass counts
its cells precisely, row by row and column by column. The trailing rows (columns) past a gap of
more than `_ROW_GAP` (`_COL_GAP`) empty ones that together hold at most `_MAX_STRAYS` cells are
strays — if what stays is a table (at least two rows and two columns) within the caps. Then the
sheet part is rewritten without them, the reader reads the rewritten file, and the sheet names
the cells it ignored (the file warning CELLS_IGNORED). Otherwise the original refusal stands:
a sparse bomb (A1 and XFD1048576) is no table with a stray, and a real oversize sheet has no
gap. The rewrite runs only on this refusal path; a sheet within the caps is never touched.
"""

from __future__ import annotations

import io
import re
import struct
import zipfile
from collections import Counter
from collections.abc import Iterable

from . import _xlsb_scan as xlsb
from ._xlsx_scan import col_index, row_blocks, sheet_parts
from .exceptions import ExcelError
from .guards import check_extent
from .limits import Limits
from .model import a1

__all__ = ["strip_xlsb_strays", "strip_xlsx_strays"]

_ROW_GAP = 1_000
_COL_GAP = 100
_MAX_STRAYS = 16
_CELL = re.compile(rb'<c\b[^>]*?\br="([A-Z]{1,3})([0-9]{1,7})"[^>]*?(?:/>|>.*?</c>)', re.DOTALL)
_CELL_OPEN = re.compile(rb"<c[\s/>]")
_EMPTY_ROW = re.compile(rb"<row\b[^>]*>\s*</row>")
_DIMENSION = re.compile(rb"<dimension\b[^>]*?/>")
_U32 = struct.Struct("<I")
_RFX = struct.Struct("<IIII")


def strip_xlsx_strays(data: bytes, limits: Limits) -> tuple[bytes, dict[str, list[str]]] | None:
    """The workbook rewritten without the stray cells of its sheets, and sheet name → the A1
    refs ignored; None when no sheet has strays whose removal brings it within the caps."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = {name.lower(): name for name in archive.namelist()}
        ignored: dict[str, list[str]] = {}
        strays: dict[str, tuple[str, set[int], set[int]]] = {}  # part → sheet, rows, columns
        for sheet, part, _hidden in sheet_parts(archive, members, limits):
            path = members.get(part.lower())
            found = None if path is None else _sheet_strays(archive, path, limits)
            if path is not None and found is not None:
                strays[path] = (sheet, *found)
        if not strays:
            return None
        out = io.BytesIO()  # the other members are copied as they are
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as rewritten:
            for info in archive.infolist():
                if info.filename not in strays:
                    rewritten.writestr(info, archive.read(info))
                    continue
                sheet, rows, cols = strays[info.filename]
                refs = ignored.setdefault(sheet, [])
                body = _without(row_blocks(archive, info.filename), rows, cols, refs)
                rewritten.writestr(info.filename, body)
    return out.getvalue(), ignored


def _sheet_strays(
    archive: zipfile.ZipFile, path: str, limits: Limits
) -> tuple[set[int], set[int]] | None:
    """(stray rows, stray columns), 0-based, or None when the sheet has none that help."""
    rows: Counter[int] = Counter()
    cols: Counter[int] = Counter()
    total = 0
    for block in row_blocks(archive, path):
        found = _CELL.findall(block)
        if len(found) != len(_CELL_OPEN.findall(block)):
            return None  # a cell without a reference: its position is not known here
        total += len(found)
        if total > limits.max_cells:
            return None  # many real cells: the refusal is right
        for letters, number in found:
            rows[int(number) - 1] += 1
            cols[col_index(letters)] += 1
    return _decide(rows, cols, total, limits, "XLSX")


def _decide(
    rows: Counter[int], cols: Counter[int], total: int, limits: Limits, fmt: str
) -> tuple[set[int], set[int]] | None:
    """The strays of cells counted by row and column, if dropping them leaves a table within
    the caps."""
    stray_rows = _trailing(rows, _ROW_GAP)
    stray_cols = _trailing(cols, _COL_GAP)
    if not stray_rows and not stray_cols:
        return None
    core_rows = [row for row in rows if row not in stray_rows]
    core_cols = [col for col in cols if col not in stray_cols]
    if len(core_rows) < 2 or len(core_cols) < 2:
        return None
    try:
        check_extent(
            min(core_rows), min(core_cols), max(core_rows), max(core_cols), total, limits, fmt
        )
    except ExcelError:
        return None
    return stray_rows, stray_cols


def _trailing(counts: Counter[int], gap: int) -> set[int]:
    """The lines past the innermost gap wider than `gap` whose cells number at most
    `_MAX_STRAYS` in all."""
    lines = sorted(counts)
    tail = 0
    cut: int | None = None
    for index in range(len(lines) - 1, 0, -1):
        tail += counts[lines[index]]
        if tail > _MAX_STRAYS:
            break
        if lines[index] - lines[index - 1] > gap:
            cut = index
    return set() if cut is None else set(lines[cut:])


def _without(blocks: Iterable[bytes], rows: set[int], cols: set[int], ignored: list[str]) -> bytes:
    """The part's XML with the stray cells, the rows they leave empty and `<dimension>` removed
    (calamine measures the used range from the cells)."""

    def keep(found: re.Match[bytes]) -> bytes:
        row, col = int(found.group(2)) - 1, col_index(found.group(1))
        if row in rows or col in cols:
            ignored.append(a1(row, col))
            return b""
        return found.group(0)

    parts: list[bytes] = []
    for index, block in enumerate(blocks):
        cleaned = _CELL.sub(keep, block)
        if index == 0:
            cleaned = _DIMENSION.sub(b"", cleaned, count=1)
        parts.append(_EMPTY_ROW.sub(b"", cleaned))
    return b"".join(parts)


def strip_xlsb_strays(data: bytes, limits: Limits) -> tuple[bytes, dict[str, list[str]]] | None:
    """`strip_xlsx_strays` for XLSB: the sheet parts' cell records (and the row headers of the
    stray rows) left out, BrtWsDim set to the table's extent."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = {name.lower(): name for name in archive.namelist()}
        rewritten_parts: dict[str, bytes] = {}
        ignored: dict[str, list[str]] = {}
        for sheet, part, _hidden in xlsb.sheet_parts(archive, members, limits):
            path = members.get(part.lower())
            if path is None:
                continue
            body = xlsb.read_part(archive, path, limits)
            found = _xlsb_strays(body, limits)
            if found is not None:
                refs = ignored.setdefault(sheet, [])
                rewritten_parts[path] = _xlsb_without(body, *found, refs)
        if not rewritten_parts:
            return None
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as rewritten:
            for info in archive.infolist():
                replaced = rewritten_parts.get(info.filename)
                if replaced is None:
                    rewritten.writestr(info, archive.read(info))
                else:
                    rewritten.writestr(info.filename, replaced)
    return out.getvalue(), ignored


def _xlsb_cells(body: bytes) -> Iterable[tuple[int, int, int, int, int]]:
    """(record type, start, end, row, column) of each record; row and column -1 where none."""
    row = 0
    start = 0
    for kind, pos, size in xlsb.iter_records(body):
        end = pos + size
        if kind == xlsb.ROW_HDR and size >= 4:
            row = _U32.unpack_from(body, pos)[0]
            yield kind, start, end, row, -1
        elif kind in xlsb.CELL_TYPES and size >= 4:
            yield kind, start, end, row, _U32.unpack_from(body, pos)[0]
        else:
            yield kind, start, end, -1, -1
        start = end


def _xlsb_strays(body: bytes, limits: Limits) -> tuple[set[int], set[int]] | None:
    rows: Counter[int] = Counter()
    cols: Counter[int] = Counter()
    total = 0
    for kind, _start, _end, row, col in _xlsb_cells(body):
        if kind in xlsb.CELL_TYPES and col >= 0:
            total += 1
            if total > limits.max_cells:
                return None
            rows[row] += 1
            cols[col] += 1
    return _decide(rows, cols, total, limits, "XLSB")


def _xlsb_without(body: bytes, rows: set[int], cols: set[int], ignored: list[str]) -> bytes:
    kept: list[bytes] = []
    core = [1 << 40, -1, 1 << 40, -1]  # top, bottom, left, right
    dimension: int | None = None
    for kind, start, end, row, col in _xlsb_cells(body):
        if kind in xlsb.CELL_TYPES and col >= 0:
            if row in rows or col in cols:
                ignored.append(a1(row, col))
                continue
            core = [min(core[0], row), max(core[1], row), min(core[2], col), max(core[3], col)]
        elif kind == xlsb.ROW_HDR and row in rows:
            continue
        elif kind == xlsb.WS_DIM:
            dimension = len(kept)
        kept.append(body[start:end])
    if dimension is not None and core[1] >= 0:
        head = kept[dimension]
        kept[dimension] = head[: len(head) - _RFX.size] + _RFX.pack(*core)
    return b"".join(kept)
