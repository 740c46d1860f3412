"""Which Excel format a file is, by its content only (never by its name).

A ZIP is a workbook when its parts say so: `xl/workbook.xml` (+ `[Content_Types].xml`) is XLSX,
`xl/workbook.bin` is XLSB; names compare case-insensitively (1C writes odd capitals). An OLE2
compound document is XLS when it holds a `Workbook` or `Book` stream. When the container is
too damaged to list, the raw part names still betray a workbook: such a file is reported as
its format so the reader answers UNREADABLE rather than UNSUPPORTED_FORMAT.
"""

from __future__ import annotations

import io
import re
import zipfile
from typing import Literal

from ._ole import OLE_MAGIC, workbook_stream

__all__ = ["ExcelFormat", "detect_format"]

ExcelFormat = Literal["XLS", "XLSX", "XLSB"]

_ZIP_MAGIC = b"PK\x03\x04"
_RAW_PART = re.compile(rb"xl/workbook\.(xml|bin)", re.IGNORECASE)
_RAW_OLE_MARKS = (
    "Workbook".encode("utf-16-le"),  # a directory entry
    "Book\x00".encode("utf-16-le"),
    b"\x09\x08\x10\x00\x00\x06\x05\x00",  # BIFF8 BOF record of workbook globals
    b"\x09\x08\x08\x00\x00\x05\x05\x00",  # BIFF5 BOF record of workbook globals
)


def detect_format(data: bytes) -> ExcelFormat | None:
    """ "XLS", "XLSX", "XLSB", or None for anything that is not an Excel workbook."""
    if data.startswith(_ZIP_MAGIC):
        return _zip_format(data)
    if data.startswith(OLE_MAGIC):
        return _ole_format(data)
    return None


def _zip_format(data: bytes) -> ExcelFormat | None:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = {name.lower() for name in archive.namelist()}
    except Exception:  # a damaged central directory: fall back to the local headers
        found = _RAW_PART.search(data)
        if found is None:
            return None
        return "XLSB" if found.group(1).lower() == b"bin" else "XLSX"
    if "xl/workbook.bin" in names:
        return "XLSB"
    if "xl/workbook.xml" in names and "[content_types].xml" in names:
        return "XLSX"
    return None


def _ole_format(data: bytes) -> ExcelFormat | None:
    try:
        stream = workbook_stream(data)
    except Exception:  # damaged compound document: look for its directory or BIFF records
        return "XLS" if any(mark in data for mark in _RAW_OLE_MARKS) else None
    return "XLS" if stream is not None else None
