"""What an upload is: its type by content signature, cross-checked with its extension.

The extension alone is the client's word; the signature alone cannot tell XLSX from XLSB (both
ZIP). A file is accepted only when both agree, so a renamed PDF never reaches the tabular
parser (a TIFF scan, which the contract lacks, is made a PDF before: `documents_io.tiff`). The signature is the contract's one sniffer (`services.contract.filetypes`), the one
tabular-parser and the CLI ask too, so what the core accepts as XLSX is XLSX to the parser.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from services.arm_core.exceptions import (
    FileTypeMismatch,
    UnsupportedFileContent,
    UnsupportedFileType,
)
from services.contract.filetypes import EXTENSIONS, FileType, sniff, type_from_name
from services.documents_io.tiff import TIFF_EXTENSIONS

__all__ = [
    "FILE_TYPES",
    "DetectedType",
    "FileType",
    "detect_type",
]


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


def detect_type(name: str, data: bytes) -> DetectedType:
    """The agreed type of an upload, or `UploadRejected` saying why not."""
    claimed = type_from_name(name)
    if claimed is None:
        supported = ", ".join(sorted({f".{ext}" for ext in (*EXTENSIONS, *TIFF_EXTENSIONS)}))
        raise UnsupportedFileType(
            f"the file extension is not supported; use one of {supported}",
        )
    actual = sniff(data)
    if actual is None:
        raise UnsupportedFileContent(
            f"the file is named as {claimed}, but its content is not a supported file type",
        )
    if actual != claimed:
        raise FileTypeMismatch(
            f"the file is named as {claimed}, but its content is {actual}",
        )
    return FILE_TYPES[actual]
