"""A large zip member's bytes, inflated by ISA-L instead of zlib.

The sheet passes read each sheet part before calamine does (XLSX: the guard, then the describe
pass; XLSB: the record walk): 28–34 MB of deflate for a 100k-row sheet, and the guard's share
is on the critical path of every read. python-isal's inflate (Intel ISA-L) gives the same bytes
about three times as fast as zlib's, and its CRC-32 is faster too.

The member's compressed bytes are taken from the archive's own buffer and checked as zipfile
checks them: the local header's signature and name, the output bounded by the declared size
(no call returns more than one block), the stream's end, the CRC-32; damaged deflate bytes are
`zipfile.BadZipFile`, as the other faults are. A member that is not
deflated, or an archive not read from memory, is read by zipfile as before.
"""

from __future__ import annotations

import io
import struct
import zipfile
from collections.abc import Iterator
from typing import cast

from isal import isal_zlib

__all__ = ["member_blocks", "read_member"]

_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")  # zipfile.structFileHeader
_SIGNATURE = b"PK\x03\x04"
_UTF8_NAME = 0x800
_RAW_DEFLATE = -15
_FEED = 1 << 18  # compressed bytes handed to the inflater at a time
_DAMAGED = cast("type[Exception]", isal_zlib.error)  # its stub types it as an instance


def member_blocks(archive: zipfile.ZipFile, name: str, block: int) -> Iterator[bytes]:
    """The member's bytes in pieces of at most `block` bytes (none of them empty)."""
    info = archive.getinfo(name)
    buffer = archive.fp
    if info.compress_type != zipfile.ZIP_DEFLATED or not isinstance(buffer, io.BytesIO):
        yield from _zipfile_blocks(archive, info, block)
        return
    with buffer.getbuffer() as whole, _compressed(whole, info) as raw:
        inflater = isal_zlib.decompressobj(_RAW_DEFLATE)
        crc, left, fed = 0, info.file_size, 0
        while left > 0:
            if inflater.unconsumed_tail:
                given: bytes | memoryview = inflater.unconsumed_tail
            elif fed < len(raw):
                given = raw[fed : fed + _FEED]
                fed += _FEED
            else:  # all fed: what the inflater still holds
                given = b""
            try:
                piece = inflater.decompress(given, min(block, left))
            except _DAMAGED as exc:
                msg = f"member {info.filename!r} is damaged: {exc}"
                raise zipfile.BadZipFile(msg) from exc
            if not piece and not given:  # the stream ended (or its bytes did) before the size
                msg = f"member {info.filename!r} ended before its declared size"
                raise zipfile.BadZipFile(msg)
            if piece:
                left -= len(piece)
                crc = isal_zlib.crc32(piece, crc)
                yield piece
        if crc != info.CRC:
            raise zipfile.BadZipFile(f"Bad CRC-32 for file {info.filename!r}")


def read_member(archive: zipfile.ZipFile, name: str) -> bytes:
    """The member's bytes in one piece (`member_blocks`' checks)."""
    size = archive.getinfo(name).file_size
    return b"".join(member_blocks(archive, name, max(size, 1)))


def _compressed(whole: memoryview, info: zipfile.ZipInfo) -> memoryview:
    """The member's deflate bytes within the archive, after a local header zipfile would accept."""
    start = info.header_offset
    header = whole[start : start + _LOCAL_HEADER.size]
    if len(header) != _LOCAL_HEADER.size:
        raise zipfile.BadZipFile("Truncated file header")
    fields = _LOCAL_HEADER.unpack(header)
    if fields[0] != _SIGNATURE:
        raise zipfile.BadZipFile("Bad magic number for file header")
    name_length, extra_length = fields[10], fields[11]
    name_start = start + _LOCAL_HEADER.size
    raw_name = bytes(whole[name_start : name_start + name_length])
    shown = raw_name.decode("utf-8" if fields[3] & _UTF8_NAME else "cp437", "replace")
    if shown != info.orig_filename:
        msg = f"File name in directory {info.orig_filename!r} and header {raw_name!r} differ."
        raise zipfile.BadZipFile(msg)
    data_start = name_start + name_length + extra_length
    return whole[data_start : data_start + info.compress_size]


def _zipfile_blocks(archive: zipfile.ZipFile, info: zipfile.ZipInfo, block: int) -> Iterator[bytes]:
    with archive.open(info) as part:
        while piece := part.read(block):
            yield piece
