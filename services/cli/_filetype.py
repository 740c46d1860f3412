"""Which recogniser a local file goes to: its type by signature, else by its extension."""

from __future__ import annotations

from pathlib import PurePath
from typing import Literal

from services.tabular_parser.excel import detect_format

__all__ = ["EXCEL_TYPES", "IMAGE_TYPES", "FileType", "file_type"]

FileType = Literal["XLS", "XLSX", "XLSB", "PDF", "PNG", "JPG"]
EXCEL_TYPES: frozenset[str] = frozenset({"XLS", "XLSX", "XLSB"})
IMAGE_TYPES: frozenset[str] = frozenset({"PDF", "PNG", "JPG"})

_EXTENSIONS: dict[str, FileType] = {
    ".xls": "XLS",
    ".xlsx": "XLSX",
    ".xlsb": "XLSB",
    ".pdf": "PDF",
    ".png": "PNG",
    ".jpg": "JPG",
    ".jpeg": "JPG",
}


def file_type(name: str, data: bytes) -> FileType | None:
    """The content's type when its signature shows one of ours, else the extension's claim.

    The extension is only a fallback: a damaged file named .xlsx still reaches the tabular
    recogniser, which then says why it cannot read it.
    """
    excel = detect_format(data)
    if excel is not None:
        return excel
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "PNG"
    if data.startswith(b"\xff\xd8\xff"):
        return "JPG"
    if b"%PDF-" in data[:1024]:
        return "PDF"
    return _EXTENSIONS.get(PurePath(name).suffix.lower())
