"""What an upload is: its type by content signature, cross-checked with its extension.

The extension alone is the client's word; the signature alone cannot tell XLSX from XLSB (both
ZIP). A file is accepted only when both agree, so a renamed PDF never reaches the tabular
parser. Only the ZIP central directory is read (no member is decompressed), and only to look
for the workbook part.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from typing import Literal

from services.arm_core.exceptions import UploadRejected
from services.arm_core.problem_types import (
    FILE_TYPE_MISMATCH,
    UNSUPPORTED_FILE_CONTENT,
    UNSUPPORTED_FILE_TYPE,
)

__all__ = [
    "FILE_TYPES",
    "DetectedType",
    "FileType",
    "detect_type",
    "sniff",
    "type_from_name",
]

FileType = Literal["XLS", "XLSX", "XLSB", "PDF", "PNG", "JPG"]


@dataclass(frozen=True, slots=True)
class DetectedType:
    """A supported file type and what follows from it."""

    file_type: FileType
    pipeline: Literal["tabular", "image"]
    content_type: str
    extension: str


FILE_TYPES: dict[FileType, DetectedType] = {
    "XLS": DetectedType("XLS", "tabular", "application/vnd.ms-excel", "xls"),
    "XLSX": DetectedType(
        "XLSX",
        "tabular",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "xlsx",
    ),
    "XLSB": DetectedType(
        "XLSB", "tabular", "application/vnd.ms-excel.sheet.binary.macroEnabled.12", "xlsb"
    ),
    "PDF": DetectedType("PDF", "image", "application/pdf", "pdf"),
    "PNG": DetectedType("PNG", "image", "image/png", "png"),
    "JPG": DetectedType("JPG", "image", "image/jpeg", "jpg"),
}

_EXTENSIONS: dict[str, FileType] = {
    "xls": "XLS",
    "xlsx": "XLSX",
    "xlsb": "XLSB",
    "pdf": "PDF",
    "png": "PNG",
    "jpg": "JPG",
    "jpeg": "JPG",
}

_OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ZIP = b"PK\x03\x04"
_PNG = b"\x89PNG\r\n\x1a\n"
_JPG = b"\xff\xd8\xff"
_PDF = b"%PDF-"
# The workbook stream of an OLE2 compound file is named in UTF-16LE in its directory.
_OLE_WORKBOOK = ("Workbook".encode("utf-16-le"), "Book".encode("utf-16-le"))


def type_from_name(name: str) -> FileType | None:
    """The type the file's extension claims, or None for an unsupported extension."""
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        return None
    return _EXTENSIONS.get(ext.lower())


def sniff(data: bytes) -> FileType | None:
    """The type the content's signature shows, or None when it is none of ours."""
    if data.startswith(_PNG):
        return "PNG"
    if data.startswith(_JPG):
        return "JPG"
    if _PDF in data[:1024]:
        return "PDF"
    if data.startswith(_OLE2):
        return "XLS" if any(marker in data for marker in _OLE_WORKBOOK) else None
    if data.startswith(_ZIP):
        return _sniff_zip(data)
    return None


def _sniff_zip(data: bytes) -> FileType | None:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = {name.lower() for name in archive.namelist()}
    except (zipfile.BadZipFile, ValueError, OSError):
        return None
    if "xl/workbook.xml" in names:
        return "XLSX"
    if "xl/workbook.bin" in names:
        return "XLSB"
    return None


def detect_type(name: str, data: bytes) -> DetectedType:
    """The agreed type of an upload, or `UploadRejected` saying why not."""
    claimed = type_from_name(name)
    if claimed is None:
        supported = ", ".join(sorted({f".{ext}" for ext in _EXTENSIONS}))
        raise UploadRejected(
            UNSUPPORTED_FILE_TYPE,
            f"the file extension is not supported; use one of {supported}",
        )
    actual = sniff(data)
    if actual is None:
        raise UploadRejected(
            UNSUPPORTED_FILE_CONTENT,
            f"the file is named as {claimed}, but its content is not a supported file type",
        )
    if actual != claimed:
        raise UploadRejected(
            FILE_TYPE_MISMATCH,
            f"the file is named as {claimed}, but its content is {actual}",
        )
    return FILE_TYPES[actual]
