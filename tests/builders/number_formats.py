"""Workbooks whose number cells carry custom number formats, as 1C writes them, in each format.

`write_formatted("XLS", rows, formats)`: `rows` as in `SheetSpec`, `formats` maps a 0-based
(row, col) to a number format code. 1C numbers its own formats from 50, an id Excel reserves
for East Asian dates, and that id is what makes python-calamine read them as dates: the
builders number them the same way (`first_id`; 164 is where Excel and the writers start). XLS
goes through xlwt, XLSX through xlsxwriter with its styles part renumbered; XLSB takes the
devstack writer's file and swaps in a styles part whose cell XF 1 (the one a bold row's cells
carry) has the format, so every cell of a row in `formats` gets the row's one format.
"""

from __future__ import annotations

import io
import re
import struct
import zipfile
from collections.abc import Mapping, Sequence
from typing import Literal

import xlsxwriter
import xlwt
import xlwt.Style

from .hostile import replace_member
from .spec import CellInput, SheetSpec
from .xlsb import record, write_xlsb

__all__ = ["write_formatted"]

_ONE_C_FIRST_ID = 50
_XLSXWRITER_FIRST_ID = 164
_NUM_FMT_ID = re.compile(rb'numFmtId="(\d+)"')


def write_formatted(
    fmt: Literal["XLS", "XLSX", "XLSB"],
    rows: Sequence[Sequence[CellInput]],
    formats: Mapping[tuple[int, int], str],
    sheet: str = "TDSheet",
    first_id: int = _ONE_C_FIRST_ID,
) -> bytes:
    """One sheet of `rows`, the cells in `formats` formatted with their codes."""
    if fmt == "XLS":
        return _xls(rows, formats, sheet, first_id)
    if fmt == "XLSX":
        return _renumber_xlsx(_xlsx(rows, formats, sheet), first_id)
    return _xlsb(rows, formats, sheet, first_id)


def _xls(
    rows: Sequence[Sequence[CellInput]],
    formats: Mapping[tuple[int, int], str],
    name: str,
    first_id: int,
) -> bytes:
    # xlwt numbers user formats from this module constant, read when a style is added and
    # when the FORMAT records are written.
    saved = xlwt.Style.FIRST_USER_DEFINED_NUM_FORMAT_IDX
    xlwt.Style.FIRST_USER_DEFINED_NUM_FORMAT_IDX = first_id  # type: ignore[attr-defined]
    try:
        book = xlwt.Workbook(encoding="utf-8")
        sheet = book.add_sheet(name)
        styles = {code: xlwt.easyxf(num_format_str=code) for code in set(formats.values())}
        plain = xlwt.XFStyle()
        for row_index, row in enumerate(rows):
            for col_index, value in enumerate(row):
                if value is not None:
                    code = formats.get((row_index, col_index))
                    style = plain if code is None else styles[code]
                    sheet.write(row_index, col_index, value, style)
        out = io.BytesIO()
        book.save(out)
        return out.getvalue()
    finally:
        xlwt.Style.FIRST_USER_DEFINED_NUM_FORMAT_IDX = saved  # type: ignore[attr-defined]


def _renumber_xlsx(data: bytes, first_id: int) -> bytes:
    """xlsxwriter's custom formats (164, 165 …) renumbered from `first_id` in xl/styles.xml."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        styles = archive.read("xl/styles.xml")

    def renumber(found: re.Match[bytes]) -> bytes:
        number = int(found.group(1))
        if number >= _XLSXWRITER_FIRST_ID:
            number += first_id - _XLSXWRITER_FIRST_ID
        return b'numFmtId="%d"' % number

    return replace_member(data, "xl/styles.xml", _NUM_FMT_ID.sub(renumber, styles))


def _xlsx(
    rows: Sequence[Sequence[CellInput]], formats: Mapping[tuple[int, int], str], name: str
) -> bytes:
    out = io.BytesIO()
    book = xlsxwriter.Workbook(out, {"in_memory": True})
    sheet = book.add_worksheet(name)
    styles = {code: book.add_format({"num_format": code}) for code in set(formats.values())}
    for row_index, row in enumerate(rows):
        for col_index, value in enumerate(row):
            if value is not None:
                code = formats.get((row_index, col_index))
                sheet.write(row_index, col_index, value, None if code is None else styles[code])
    book.close()
    return out.getvalue()


def _xlsb(
    rows: Sequence[Sequence[CellInput]],
    formats: Mapping[tuple[int, int], str],
    name: str,
    first_id: int,
) -> bytes:
    codes = set(formats.values())
    if len(codes) > 1:
        raise ValueError("the XLSB builder gives one format to all formatted rows")
    rows_with_format = {row for row, _ in formats}
    data = write_xlsb([SheetSpec(name, [list(row) for row in rows], bold_rows=rows_with_format)])
    return replace_member(
        data, "xl/styles.bin", _xlsb_styles(next(iter(codes), "General"), first_id)
    )


def _wide(text: str) -> bytes:
    return struct.pack("<I", len(text)) + text.encode("utf-16-le")


def _xlsb_styles(code: str, format_id: int) -> bytes:
    """One format (`format_id` = `code`), one font, cell XFs 0 (General) and 1 (`code`)."""
    color = struct.pack("<BBhBBBB", 0, 0, 0, 0, 0, 0, 0xFF)
    font = record(
        43,
        struct.pack("<HHHHBBBB", 220, 0, 400, 0, 0, 2, 204, 0)
        + color
        + struct.pack("<B", 2)
        + _wide("Calibri"),
    )

    def xf(number_format: int, parent: int = 0) -> bytes:
        return record(47, struct.pack("<HHHHHBBHH", parent, number_format, 0, 0, 0, 0, 0, 0, 0))

    fill = struct.pack("<I", 0) + color * 2 + struct.pack("<I5dI", 0, *[0.0] * 5, 0)
    return b"".join(
        [
            record(278),  # BrtBeginStyleSheet
            record(615, struct.pack("<I", 1)),  # BrtBeginFmts
            record(44, struct.pack("<H", format_id) + _wide(code)),  # BrtFmt
            record(616),  # BrtEndFmts
            record(611, struct.pack("<I", 1)),  # BrtBeginFonts
            font,
            record(612),
            record(603, struct.pack("<I", 1)),  # BrtBeginFills
            record(45, fill),
            record(604),
            record(613, struct.pack("<I", 1)),  # BrtBeginBorders
            record(46, b"\x00" + (b"\x00\x00" + color) * 5),
            record(614),
            record(626, struct.pack("<I", 1)),  # BrtBeginCellStyleXFs
            xf(0, parent=0xFFFF),
            record(627),
            record(617, struct.pack("<I", 2)),  # BrtBeginCellXFs
            xf(0),
            xf(format_id),
            record(618),
            record(279),  # BrtEndStyleSheet
        ]
    )
