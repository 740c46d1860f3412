"""Real .xlsb (BIFF12) files from a minimal writer of our own.

pyxlsbwriter 0.1.0 writes neither merges nor outline levels, so this writes the records
itself (MS-XLSB): BrtRowHdr with iOutLevel, BrtCellReal / BrtCellRk / BrtCellSt / BrtCellBool,
BrtMergeCell, and a styles part of two fonts (regular, bold: `bls` 700) and two cell XFs, so a
bold row's cells carry style 1 as Excel writes them.
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
_PLAIN_XF, _BOLD_XF = 0, 1


def write_xlsb(sheets: Sequence[SheetSpec]) -> bytes:
    """One BIFF12 workbook with a worksheet per spec, in order."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", _content_types(len(sheets)))
        archive.writestr("_rels/.rels", _ROOT_RELS)
        archive.writestr("xl/workbook.bin", _workbook(sheets))
        archive.writestr("xl/_rels/workbook.bin.rels", _workbook_rels(len(sheets)))
        archive.writestr("xl/styles.bin", _styles())
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


def _styles() -> bytes:
    """Fonts 0 (regular) and 1 (bold) and cell XFs 0 and 1 over them, as Excel lays them out."""
    fonts = [_font(400), _font(700)]
    xfs = [_xf(font) for font in range(len(fonts))]
    return b"".join(
        [
            record(278),  # BrtBeginStyleSheet
            record(611, struct.pack("<I", len(fonts))),  # BrtBeginFonts
            *fonts,
            record(612),  # BrtEndFonts
            record(603, struct.pack("<I", 2)),  # BrtBeginFills: none, gray125
            _fill(0),
            _fill(17),
            record(604),  # BrtEndFills
            record(613, struct.pack("<I", 1)),  # BrtBeginBorders
            record(46, b"\x00" + (b"\x00\x00" + _AUTO_COLOR) * 5),  # BrtBorder: none
            record(614),  # BrtEndBorders
            record(626, struct.pack("<I", 1)),  # BrtBeginCellStyleXFs
            _xf(0, parent=0xFFFF),
            record(627),  # BrtEndCellStyleXFs
            record(617, struct.pack("<I", len(xfs))),  # BrtBeginCellXFs
            *xfs,
            record(618),  # BrtEndCellXFs
            record(619, struct.pack("<I", 1)),  # BrtBeginStyles
            record(48, struct.pack("<IHBB", 0, 1, 0, 0xFF) + _wide("Normal")),  # BrtStyle
            record(620),  # BrtEndStyles
            record(279),  # BrtEndStyleSheet
        ]
    )


_AUTO_COLOR = struct.pack("<BBhBBBB", 0, 0, 0, 0, 0, 0, 0xFF)  # BrtColor: automatic


def _font(weight: int) -> bytes:
    """BrtFont: 11 pt Calibri of weight `bls` (400 regular, 700 bold), Cyrillic charset."""
    head = struct.pack("<HHHHBBBB", 220, 0, weight, 0, 0, 2, 204, 0)  # dyHeight … unused
    return record(43, head + _AUTO_COLOR + struct.pack("<B", 2) + _wide("Calibri"))


def _fill(pattern: int) -> bytes:
    """BrtFill: pattern `fls`, automatic colours, no gradient."""
    return record(
        45, struct.pack("<I", pattern) + _AUTO_COLOR * 2 + struct.pack("<I5dI", 0, *[0.0] * 5, 0)
    )


def _xf(font: int, *, parent: int = 0) -> bytes:
    """BrtXF: general number format, font `font`, fill 0, border 0."""
    return record(47, struct.pack("<HHHHHBBHH", parent, 0, font, 0, 0, 0, 0, 0, 0))


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
        style = _BOLD_XF if row_index in spec.bold_rows else _PLAIN_XF
        for col_index, value in enumerate(row):
            if (row_index, col_index) in covered:
                continue
            cell = _cell(col_index, value, style)
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


def _cell(col: int, value: object, style: int) -> bytes:
    head = struct.pack("<II", col, style)  # Cell: column, then iStyleRef in the low 24 bits
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
        '<Override PartName="/xl/styles.bin" ContentType="application/vnd.ms-excel.styles"/>'
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
    styles = (
        f'<Relationship Id="rId{count + 1}" Type="http://schemas.openxmlformats.org/'
        'officeDocument/2006/relationships/styles" Target="styles.bin"/>'
    )
    return (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        f"{rels}{styles}</Relationships>"
    )
