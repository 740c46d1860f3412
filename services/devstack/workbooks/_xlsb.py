"""Real .xlsb (BIFF12) files from a minimal writer of our own.

pyxlsbwriter 0.1.0 writes neither merges nor outline levels, so this writes the records
itself (MS-XLSB): BrtRowHdr with iOutLevel, BrtCellReal / BrtCellRk / BrtCellSt / BrtCellBool,
BrtMergeCell. No styles part: bold rows are not represented in XLSB files built here.
"""

from __future__ import annotations

import datetime as dt
import io
import struct
import zipfile
from collections.abc import Sequence
from decimal import Decimal

from services.devstack.workbooks._spec import SheetSpec, hidden_by_merges, merge_bounds

__all__ = ["record", "write_xlsb"]

_EPOCH = dt.datetime(1899, 12, 30)


def write_xlsb(sheets: Sequence[SheetSpec]) -> bytes:
    """One BIFF12 workbook with a worksheet per spec, in order (no styles part)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", _content_types(len(sheets)))
        archive.writestr("_rels/.rels", _ROOT_RELS)
        archive.writestr("xl/workbook.bin", _workbook(sheets))
        archive.writestr("xl/_rels/workbook.bin.rels", _workbook_rels(len(sheets)))
        for index, spec in enumerate(sheets, start=1):
            archive.writestr(f"xl/worksheets/sheet{index}.bin", _sheet(spec))
    return out.getvalue()


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def record(kind: int, body: bytes = b"") -> bytes:
    """One BIFF12 record: varint type, varint size, body."""
    return _varint(kind) + _varint(len(body)) + body


def _wide(text: str) -> bytes:
    return struct.pack("<I", len(text)) + text.encode("utf-16-le")


def _workbook(sheets: Sequence[SheetSpec]) -> bytes:
    body = [record(131), record(143)]  # BrtBeginBook, BrtBeginBundleShs
    for index, spec in enumerate(sheets, start=1):
        state = 1 if spec.hidden else 0
        body.append(
            record(156, struct.pack("<II", state, index) + _wide(f"rId{index}") + _wide(spec.name))
        )
    body += [record(144), record(132)]  # BrtEndBundleShs, BrtEndBook
    return b"".join(body)


def _sheet(spec: SheetSpec) -> bytes:
    rows = list(spec.rows)
    covered = hidden_by_merges(spec)
    width = max((len(row) for row in rows), default=1)
    last_row = max([len(rows) - 1, *spec.outline_levels.keys(), 0])
    parts = [
        record(129),  # BrtBeginSheet
        record(148, struct.pack("<IIII", 0, last_row, 0, max(width - 1, 0))),  # BrtWsDim
        record(145),  # BrtBeginSheetData
    ]
    for row_index in range(last_row + 1):
        row = rows[row_index] if row_index < len(rows) else []
        level = spec.outline_levels.get(row_index, 0)
        if not row and not level:
            continue
        flags = (level & 0x07) << 8
        parts.append(
            record(
                0, struct.pack("<IIHHBIII", row_index, 0, 300, flags, 0, 1, 0, max(len(row) - 1, 0))
            )
        )
        for col_index, value in enumerate(row):
            if (row_index, col_index) in covered:
                continue
            cell = _cell(col_index, value)
            if cell:
                parts.append(cell)
    parts.append(record(146))  # BrtEndSheetData
    if spec.merged:
        parts.append(record(177, struct.pack("<I", len(spec.merged))))
        for merge in spec.merged:
            top, left, bottom, right = merge_bounds(merge)
            parts.append(record(176, struct.pack("<IIII", top, bottom, left, right)))
        parts.append(record(178))
    parts.append(record(130))  # BrtEndSheet
    return b"".join(parts)


def _cell(col: int, value: object) -> bytes:
    head = struct.pack("<II", col, 0)
    if value is None:
        return b""
    if isinstance(value, bool):
        return record(4, head + struct.pack("<B", int(value)))
    if isinstance(value, int) and -(1 << 29) <= value < (1 << 29):
        return record(2, head + struct.pack("<i", (value << 2) | 0x02))
    if isinstance(value, int | float | Decimal):
        return record(5, head + struct.pack("<d", float(value)))
    if isinstance(value, dt.datetime | dt.date):
        moment = value if isinstance(value, dt.datetime) else dt.datetime.combine(value, dt.time())
        return record(5, head + struct.pack("<d", (moment - _EPOCH).total_seconds() / 86400))
    return record(6, head + _wide(str(value)))


def _content_types(count: int) -> str:
    sheets = "".join(
        f'<Override PartName="/xl/worksheets/sheet{i}.bin" '
        'ContentType="application/vnd.ms-excel.worksheet"/>'
        for i in range(1, count + 1)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/xl/workbook.bin" ContentType="application/vnd.ms-excel.sheet.binary.macroEnabled.main"/>'
        f"{sheets}</Types>"
    )


_ROOT_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/officeDocument" Target="xl/workbook.bin"/></Relationships>'
)


def _workbook_rels(count: int) -> str:
    rels = "".join(
        f'<Relationship Id="rId{i}" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
        f'relationships/worksheet" Target="worksheets/sheet{i}.bin"/>'
        for i in range(1, count + 1)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        f"{rels}</Relationships>"
    )
