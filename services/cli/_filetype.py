"""Which recogniser a local file goes to: its type by signature, else by its extension; a TIFF
scan made the PDF arm-core makes of it (`services.documents_io.tiff`, the room both import: the
CLI imports nothing of arm-core)."""

from __future__ import annotations

from pathlib import PurePath

from services.contract.filetypes import (
    EXCEL_TYPES,
    EXTENSIONS,
    IMAGE_TYPES,
    UPLOAD_MAX_BYTES,
    FileType,
    sniff,
)

__all__ = [
    "EXCEL_TYPES",
    "IMAGE_TYPES",
    "TIFF_SUFFIXES",
    "FileType",
    "file_type",
    "is_tiff",
    "tiff_as_pdf",
]

TIFF_SUFFIXES = frozenset({".tif", ".tiff"})
"""The extensions of a TIFF scan (`documents_io.tiff.TIFF_EXTENSIONS`, as a file name's
suffix)."""


def file_type(name: str, data: bytes) -> FileType | None:
    """The content's type when its signature shows one of ours (the contract's sniffer, as the
    core and the services use), else the extension's claim.

    The extension is only a fallback: a damaged file named .xlsx still reaches the tabular
    recogniser, which then says why it cannot read it.
    """
    return sniff(data) or EXTENSIONS.get(PurePath(name).suffix.lower().removeprefix("."))


def is_tiff(data: bytes) -> bool:
    """True when the content is a TIFF (the core's test), not yet converted; the TIFF module
    (and Pillow) is imported only when the bytes start with a TIFF byte order."""
    if data[:2] not in (b"II", b"MM"):
        return False
    from services.documents_io.tiff import is_tiff as tiff_is_tiff

    return tiff_is_tiff(data)


def tiff_as_pdf(name: str, data: bytes) -> bytes | None:
    """The PDF arm-core stores for a TIFF scan (`services.documents_io.tiff.tiff_to_pdf`: one
    lossless page per TIFF page, within the core's default upload limit), so that a local
    parse reads the document the core's pipeline reads; None when `data` is no TIFF and `name`
    no .tif / .tiff.

    A file named TIFF whose content is not one, or a TIFF that cannot be converted, is the
    core's refusal as a `ValueError` with its reason. The TIFF module (and Pillow) is imported
    only when a file may be a TIFF: the other files pay nothing for it.
    """
    if data[:2] not in (b"II", b"MM") and PurePath(name).suffix.lower() not in TIFF_SUFFIXES:
        return None  # no TIFF byte order, no TIFF name: not worth loading Pillow to ask
    from services.documents_io.exceptions import DocumentError
    from services.documents_io.tiff import is_tiff as tiff_is_tiff
    from services.documents_io.tiff import is_tiff_name, tiff_to_pdf

    if not (tiff_is_tiff(data) or is_tiff_name(name)):
        return None
    try:
        return tiff_to_pdf(data, UPLOAD_MAX_BYTES)
    except DocumentError as exc:
        raise ValueError(exc.detail) from None
