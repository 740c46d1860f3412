"""One pass over the BIFF12 record stream of each XLSB sheet part.

calamine exposes neither outline levels nor merged ranges for XLSB, so both come from here:
BrtRowHdr carries the row and its outline level, BrtMergeCell a merged range, cell records
their column (the real extent, checked against the caps before calamine allocates).
"""

from __future__ import annotations

import posixpath
import struct
import zipfile
from collections.abc import Iterator
from xml.etree import ElementTree

from ._meta import SheetMeta
from .errors import UnreadableWorkbook
from .guards import check_extent
from .limits import Limits
from .model import CellRange

__all__ = ["iter_records", "scan_xlsb"]

_FMT = "XLSB"
_ROW_HDR = 0
_CELL_TYPES = frozenset(range(1, 14)) | {62}  # BrtCellBlank … BrtFmlaError, BrtCellRString
_WS_DIM = 148
_MERGE_CELL = 176
_BUNDLE_SH = 156
_U16 = struct.Struct("<H")
_U32 = struct.Struct("<I")
_RFX = struct.Struct("<IIII")


def iter_records(data: bytes) -> Iterator[tuple[int, int, int]]:
    """(record type, body offset, body size) for each record; raises on a truncated header."""
    pos, end = 0, len(data)
    while pos < end:
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
        if pos + size > end:
            msg = f"record {kind} overruns the part"
            raise UnreadableWorkbook(msg, fmt=_FMT)
        yield kind, pos, size
        pos += size


def scan_xlsb(archive: zipfile.ZipFile, limits: Limits) -> dict[str, SheetMeta]:
    """Sheet name → what the pass found; raises `UnreadableWorkbook` / `LimitExceeded`."""
    members = {name.lower(): name for name in archive.namelist()}
    try:
        return {
            name: _scan_sheet(_read(archive, members[part.lower()], limits), hidden, limits)
            for name, part, hidden in _sheet_parts(archive, members, limits)
            if part.lower() in members
        }
    except (struct.error, IndexError, UnicodeDecodeError) as exc:
        raise UnreadableWorkbook(f"damaged BIFF12 records: {exc}", fmt=_FMT) from exc


def _read(archive: zipfile.ZipFile, name: str, limits: Limits) -> bytes:
    info = archive.getinfo(name)
    if info.file_size > limits.max_uncompressed_bytes:
        msg = f"part {name!r} is {info.file_size} bytes"
        raise UnreadableWorkbook(msg, fmt=_FMT)
    return archive.read(info)


def _wide_string(data: bytes, pos: int) -> tuple[str, int]:
    count = _U32.unpack_from(data, pos)[0]
    pos += 4
    if count == 0xFFFFFFFF:
        return "", pos
    end = pos + 2 * count
    if end > len(data):
        raise IndexError("string overruns its record")
    return data[pos:end].decode("utf-16-le"), end


def _sheet_parts(
    archive: zipfile.ZipFile, members: dict[str, str], limits: Limits
) -> list[tuple[str, str, bool]]:
    workbook = _read(archive, members["xl/workbook.bin"], limits)
    rels_name = members.get("xl/_rels/workbook.bin.rels")
    targets: dict[str, str] = {}
    if rels_name is not None:
        try:
            root = ElementTree.fromstring(_read(archive, rels_name, limits))
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


def _scan_sheet(data: bytes, hidden: bool, limits: Limits) -> SheetMeta:
    meta = SheetMeta(hidden=hidden)
    row = 0
    first_row = first_col = 1 << 40
    last_row = last_col = -1
    cells = 0
    for kind, pos, size in iter_records(data):
        if kind in _CELL_TYPES and size >= 4:
            col = _U32.unpack_from(data, pos)[0]
            cells += 1
            last_row = max(last_row, row)
            first_row = min(first_row, row)
            last_col = max(last_col, col)
            first_col = min(first_col, col)
        elif kind == _ROW_HDR:
            row = _U32.unpack_from(data, pos)[0]
            level = (_U16.unpack_from(data, pos + 10)[0] >> 8) & 0x07
            if level:
                meta.outline_levels[row] = level
        elif kind == _WS_DIM:
            top, bottom, left, right = _RFX.unpack_from(data, pos)
            check_extent(top, left, bottom, right, 0, limits, _FMT)
        elif kind == _MERGE_CELL:
            top, bottom, left, right = _RFX.unpack_from(data, pos)
            meta.merged.append(CellRange(top, left, bottom, right))
    if last_row >= 0:
        check_extent(first_row, first_col, last_row, last_col, cells, limits, _FMT)
    return meta
