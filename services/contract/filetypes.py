"""The contract's file types by content: the one sniffer the core and the services agree on.

arm-core decides at upload which pipeline a file goes to, tabular-parser whether a request is a
workbook, the CLI which recogniser a local file needs; each asks `sniff`, so a file the core
accepts as XLSX is XLSX to the parser too. Rules:

- a ZIP is XLSB when it lists `xl/workbook.bin`, XLSX when it lists `xl/workbook.xml` and
  `[Content_Types].xml` (an OPC package needs both); part names compare case-insensitively
  (1C writes odd capitals). No member is decompressed;
- an OLE2 compound document is XLS when it holds a `Workbook` (BIFF8) or `Book` (BIFF5) stream;
- a container too damaged to list still betrays a workbook by its raw part names or BIFF
  records: it is reported as that format, so the reader answers UNREADABLE (with a reason)
  rather than UNSUPPORTED_FORMAT;
- PNG and JPEG by their magic numbers, PDF by `%PDF-` in the first KiB (as readers allow).
"""

from __future__ import annotations

import io
import re
import zipfile
from typing import Final, Literal

__all__ = [
    "EXCEL_TYPES",
    "EXTENSIONS",
    "IMAGE_TYPES",
    "OLE_MAGIC",
    "UPLOAD_MAX_BYTES",
    "FileType",
    "ole_workbook_stream",
    "sniff",
    "type_from_name",
]

UPLOAD_MAX_BYTES: Final = 100 * 1024 * 1024
"""The largest upload arm-core accepts by default (its UPLOAD_MAX_BYTES), and the largest PDF
`arm-ka parse` makes of a TIFF scan: what the core would store, the CLI reads."""

FileType = Literal["XLS", "XLSX", "XLSB", "PDF", "PNG", "JPG"]
EXCEL_TYPES: Final[frozenset[FileType]] = frozenset({"XLS", "XLSX", "XLSB"})
IMAGE_TYPES: Final[frozenset[FileType]] = frozenset({"PDF", "PNG", "JPG"})
# Lower-case extension without the dot → the type it claims.
EXTENSIONS: Final[dict[str, FileType]] = {
    "xls": "XLS",
    "xlsx": "XLSX",
    "xlsb": "XLSB",
    "pdf": "PDF",
    "png": "PNG",
    "jpg": "JPG",
    "jpeg": "JPG",
}

OLE_MAGIC: Final = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ZIP_MAGIC = b"PK\x03\x04"
_PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
_JPG_MAGIC = b"\xff\xd8\xff"
_PDF_MAGIC = b"%PDF-"
_RAW_PART = re.compile(rb"xl/workbook\.(xml|bin)", re.IGNORECASE)
_RAW_OLE_MARKS = (
    "Workbook".encode("utf-16-le"),  # a directory entry
    "Book\x00".encode("utf-16-le"),
    b"\x09\x08\x10\x00\x00\x06\x05\x00",  # BIFF8 BOF record of workbook globals
    b"\x09\x08\x08\x00\x00\x05\x05\x00",  # BIFF5 BOF record of workbook globals
)


def type_from_name(name: str) -> FileType | None:
    """The type a file name's last extension claims; None for another one or no stem."""
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        return None
    return EXTENSIONS.get(ext.lower())


def sniff(data: bytes) -> FileType | None:
    """The type the content shows, or None when it is none of the contract's."""
    if data.startswith(_ZIP_MAGIC):
        return _zip_type(data)
    if data.startswith(OLE_MAGIC):
        return _ole_type(data)
    if data.startswith(_PNG_MAGIC):
        return "PNG"
    if data.startswith(_JPG_MAGIC):
        return "JPG"
    if _PDF_MAGIC in data[:1024]:
        return "PDF"
    return None


def ole_workbook_stream(data: bytes) -> bytes | None:
    """The `Workbook` (BIFF8) or `Book` (BIFF5) stream of an OLE2 document, None when it has
    neither. Raises whatever xlrd raises on a damaged container; callers translate."""
    from xlrd import compdoc  # only for OLE2 input

    doc = compdoc.CompDoc(data, logfile=io.StringIO())
    for name in ("Workbook", "Book"):
        mem, base, length = doc.locate_named_stream(name)
        if mem is not None:
            return bytes(mem[base : base + length])
    return None


def _zip_type(data: bytes) -> FileType | None:
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


def _ole_type(data: bytes) -> FileType | None:
    """XLS when the root storage lists a `Workbook` or `Book` stream: only the directory is
    read (the stream, 13 MB for a large sheet, is assembled by the reader, not copied here to
    be thrown away); a stream the reader then cannot assemble is its UNREADABLE."""
    try:
        kinds = _root_entries(data)
    except Exception:  # damaged compound document: look for its directory or BIFF records
        return "XLS" if any(mark in data for mark in _RAW_OLE_MARKS) else None
    found = next((kinds[name] for name in ("workbook", "book") if name in kinds), None)
    if found is None:
        return None
    if found != _OLE_STREAM:  # a storage of that name, as `ole_workbook_stream` refuses it
        return "XLS" if any(mark in data for mark in _RAW_OLE_MARKS) else None
    return "XLS"


_OLE_STREAM = 2  # a directory entry's type: 1 storage, 2 stream, 5 root


def _root_entries(data: bytes) -> dict[str, int]:
    """The root storage's entries of an OLE2 document: lower-cased name → entry type (the
    first of a name, as xlrd's lookup takes it)."""
    from xlrd import compdoc  # only for OLE2 input

    entries = compdoc.CompDoc(data, logfile=io.StringIO()).dirlist
    kinds: dict[str, int] = {}
    for child in entries[0].children:
        kinds.setdefault(entries[child].name.lower(), entries[child].etype)
    return kinds
