"""Pre-checks that run before any parser touches an untrusted workbook.

Each check raises one project exception (`LimitExceeded` or `UnreadableWorkbook`) naming what
was refused. The container checks (size, members, declared sizes, ratios, paths, DOCTYPE) run
before calamine opens the file; the extent checks (`check_dimension`, `check_extent`) run from
the sheet's `<dimension>` and again from what the streaming pass actually sees, because a
bomb can lie in its dimension.
"""

from __future__ import annotations

import re
import zipfile

from .exceptions import LimitExceeded, UnreadableWorkbook
from .limits import Limits

__all__ = [
    "check_dimension",
    "check_extent",
    "check_file_size",
    "check_xml_prologs",
    "check_zip_members",
    "parse_cell_ref",
]

_XML_SUFFIXES = (".xml", ".rels", ".vml")
_FORBIDDEN_DECLS = (b"<!DOCTYPE", b"<!ENTITY")
# The root element is the first `<` followed by a name character (not `?`, `!` or `/`).
_ROOT_START = re.compile(rb"<[A-Za-z_:]")
_CELL_REF = re.compile(r"\$?([A-Za-z]{1,3})\$?([0-9]{1,7})")


def check_file_size(data: bytes, limits: Limits, fmt: str | None = None) -> None:
    if len(data) > limits.max_file_bytes:
        raise LimitExceeded("max_file_bytes", len(data), limits.max_file_bytes, fmt=fmt)


def check_zip_members(archive: zipfile.ZipFile, limits: Limits, fmt: str) -> None:
    """Member count, path safety, declared uncompressed total and per-member ratio."""
    infos = archive.infolist()
    if len(infos) > limits.max_zip_members:
        raise LimitExceeded("max_zip_members", len(infos), limits.max_zip_members, fmt=fmt)
    total = 0
    for info in infos:
        _check_member_name(info.filename, fmt)
        if info.flag_bits & 0x1:
            raise UnreadableWorkbook(f"member {info.filename!r} is encrypted", fmt=fmt)
        total += info.file_size
        if info.file_size > limits.ratio_floor_bytes:
            ratio = info.file_size // max(info.compress_size, 1)
            if ratio > limits.max_compression_ratio:
                raise LimitExceeded(
                    "max_compression_ratio", ratio, limits.max_compression_ratio, fmt=fmt
                )
    if total > limits.max_uncompressed_bytes:
        raise LimitExceeded("max_uncompressed_bytes", total, limits.max_uncompressed_bytes, fmt=fmt)


def _check_member_name(name: str, fmt: str) -> None:
    normalised = name.replace("\\", "/")
    parts = normalised.split("/")
    unsafe = (
        normalised.startswith("/")
        or ".." in parts
        or (len(normalised) > 1 and normalised[1] == ":")
        or "\x00" in normalised
    )
    if unsafe:
        raise UnreadableWorkbook(f"unsafe member path {name!r}", fmt=fmt)


def check_xml_prologs(archive: zipfile.ZipFile, limits: Limits, fmt: str) -> None:
    """Refuse DOCTYPE/ENTITY declarations (billion laughs, XXE) in every XML part.

    A DOCTYPE may only appear before the root element, so only each part's head is read
    (decompressing a few KiB, not the sheet); a prolog longer than the limit is refused.
    """
    for info in archive.infolist():
        if not info.filename.lower().endswith(_XML_SUFFIXES) or info.file_size == 0:
            continue
        with archive.open(info) as part:
            head = part.read(limits.max_xml_prolog_bytes)
        check_xml_head(head, info.filename, limits, fmt)


def check_xml_head(head: bytes, name: str, limits: Limits, fmt: str) -> None:
    root = _ROOT_START.search(head)
    prolog = head if root is None else head[: root.start()]
    if any(decl in prolog for decl in _FORBIDDEN_DECLS):
        raise UnreadableWorkbook(f"part {name!r} declares a DOCTYPE or ENTITY", fmt=fmt)
    if root is None and len(head) >= limits.max_xml_prolog_bytes:
        raise UnreadableWorkbook(f"part {name!r} has no root element in its head", fmt=fmt)


def parse_cell_ref(ref: str) -> tuple[int, int] | None:
    """ "B3" → (2, 1) (0-based row, col); None when it is not a cell reference."""
    found = _CELL_REF.fullmatch(ref.strip())
    if found is None:
        return None
    col = 0
    for ch in found.group(1).upper():
        col = col * 26 + ord(ch) - 64
    return int(found.group(2)) - 1, col - 1


def check_dimension(ref: str, limits: Limits, fmt: str) -> None:
    """Refuse a sheet whose declared `<dimension ref="A1:XFD1048576">` is over the caps."""
    corners = [parse_cell_ref(part) for part in ref.split(":")]
    points = [point for point in corners if point is not None]
    if not points:
        return
    first, last = points[0], points[-1]
    check_extent(first[0], first[1], last[0], last[1], 0, limits, fmt)


def check_extent(
    first_row: int,
    first_col: int,
    last_row: int,
    last_col: int,
    cells: int,
    limits: Limits,
    fmt: str,
) -> None:
    """The used rectangle (0-based, inclusive) and the cell count against the caps."""
    if last_row + 1 > limits.max_rows:
        raise LimitExceeded("max_rows", last_row + 1, limits.max_rows, fmt=fmt)
    if last_col + 1 > limits.max_cols:
        raise LimitExceeded("max_cols", last_col + 1, limits.max_cols, fmt=fmt)
    area = (last_row - first_row + 1) * (last_col - first_col + 1)
    if area > limits.max_cells:
        raise LimitExceeded("max_cells", area, limits.max_cells, fmt=fmt)
    if cells > limits.max_cells:
        raise LimitExceeded("max_cells", cells, limits.max_cells, fmt=fmt)
