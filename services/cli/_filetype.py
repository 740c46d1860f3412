"""Which recogniser a local file goes to: its type by signature, else by its extension."""

from __future__ import annotations

from pathlib import PurePath

from services.contract.filetypes import EXCEL_TYPES, EXTENSIONS, IMAGE_TYPES, FileType, sniff

__all__ = ["EXCEL_TYPES", "IMAGE_TYPES", "FileType", "file_type"]


def file_type(name: str, data: bytes) -> FileType | None:
    """The content's type when its signature shows one of ours (the contract's sniffer, as the
    core and the services use), else the extension's claim.

    The extension is only a fallback: a damaged file named .xlsx still reaches the tabular
    recogniser, which then says why it cannot read it.
    """
    return sniff(data) or EXTENSIONS.get(PurePath(name).suffix.lower().removeprefix("."))
