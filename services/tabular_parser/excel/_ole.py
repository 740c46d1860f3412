"""The BIFF `Workbook` stream out of an OLE2 compound document (xlrd's reader, quieted)."""

from __future__ import annotations

import io

from xlrd import compdoc

__all__ = ["OLE_MAGIC", "workbook_stream"]

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def workbook_stream(data: bytes) -> bytes | None:
    """The `Workbook` (BIFF8) or `Book` (BIFF5) stream, None when the document has neither.

    Raises whatever xlrd raises on a damaged container; callers translate.
    """
    doc = compdoc.CompDoc(data, logfile=io.StringIO())
    for name in ("Workbook", "Book"):
        mem, base, length = doc.locate_named_stream(name)
        if mem is not None:
            return bytes(mem[base : base + length])
    return None
