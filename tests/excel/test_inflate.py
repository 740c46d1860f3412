"""The sheet parts inflated by ISA-L (`services.excel._inflate`) are zipfile's bytes, checked as
zipfile checks them, and never more than the member declares."""

from __future__ import annotations

import io
import os
import struct
import zipfile
import zlib
from pathlib import Path

import pytest

from benchmarks._osv_workbook import osv_spec
from services.excel import UnreadableWorkbook, load_workbook
from services.excel._inflate import member_blocks, read_member
from tests.builders import write_xlsb, write_xlsx


def _zip(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", method) as archive:
        for name, body in members.items():
            archive.writestr(name, body)
    return out.getvalue()


def _archive(data: bytes) -> zipfile.ZipFile:
    return zipfile.ZipFile(io.BytesIO(data))


@pytest.mark.parametrize("writer", [write_xlsx, write_xlsb])
@pytest.mark.parametrize("block", [1, 7, 1000, 1 << 20])
def test_every_member_of_a_workbook_reads_as_zipfile_reads_it(writer: object, block: int) -> None:
    """In pieces of at most `block` bytes, none empty, that join to zipfile's bytes."""
    archive = _archive(writer([osv_spec(300 if block > 1 else 20)]))  # type: ignore[operator]
    for info in archive.infolist():
        pieces = list(member_blocks(archive, info.filename, block))
        assert b"".join(pieces) == archive.read(info.filename)
        assert all(0 < len(piece) <= block for piece in pieces)
        assert read_member(archive, info.filename) == archive.read(info.filename)


def test_a_stored_member_and_an_archive_on_disk_are_read_by_zipfile(tmp_path: Path) -> None:
    body = os.urandom(5000)
    stored = _archive(_zip({"a.bin": body}, zipfile.ZIP_STORED))
    assert read_member(stored, "a.bin") == body
    path = tmp_path / "book.zip"
    path.write_bytes(_zip({"a.bin": body}))
    with zipfile.ZipFile(path) as on_disk:
        assert read_member(on_disk, "a.bin") == body


def _central_crc_changed(data: bytes) -> bytes:
    """The archive with the CRC-32 its central directory gives the first member changed."""
    at = data.index(b"PK\x01\x02")
    crc = struct.unpack_from("<L", data, at + 16)[0]
    return data[: at + 16] + struct.pack("<L", crc ^ 1) + data[at + 20 :]


def test_a_wrong_crc_is_refused_as_zipfile_refuses_it() -> None:
    data = _central_crc_changed(_zip({"a.bin": b"x" * 10_000}))
    with pytest.raises(zipfile.BadZipFile, match="CRC-32"):
        _archive(data).read("a.bin")
    with pytest.raises(zipfile.BadZipFile, match="CRC-32"):
        read_member(_archive(data), "a.bin")


def test_a_member_that_inflates_past_its_declared_size_yields_no_more_than_declared() -> None:
    """A deflate stream of 1 MB under a central directory that says 1,000 bytes: at most 1,000
    bytes come out, then the CRC (of the whole stream) refuses it."""
    body = b"A" * (1 << 20)
    data = _zip({"a.bin": body})
    at = data.index(b"PK\x01\x02")
    lying = data[: at + 24] + struct.pack("<L", 1000) + data[at + 28 :]  # uncompressed size
    archive = _archive(lying)
    assert archive.getinfo("a.bin").file_size == 1000
    produced = 0
    with pytest.raises(zipfile.BadZipFile, match="CRC-32"):
        for piece in member_blocks(archive, "a.bin", 1 << 16):
            produced += len(piece)
    assert produced == 1000


def test_a_stream_cut_short_is_refused() -> None:
    """The central directory's size kept, the deflate bytes cut in half: an error, not a short
    member taken for whole."""
    body = os.urandom(1 << 16)
    data = _zip({"a.bin": body})
    archive = _archive(data)
    info = archive.getinfo("a.bin")
    start = info.header_offset + 30 + len(info.filename)
    half = info.compress_size // 2
    cut = (
        data[: start + half] + bytes(info.compress_size - half) + data[start + info.compress_size :]
    )
    with pytest.raises(zlib.error):
        _archive(cut).read("a.bin")
    with pytest.raises(zipfile.BadZipFile, match="damaged"):
        read_member(_archive(cut), "a.bin")


def test_a_local_header_that_names_another_member_is_refused() -> None:
    data = _zip({"a.bin": b"y" * 100})
    name_at = data.index(b"a.bin")  # the local header's name comes first
    spoofed = data[:name_at] + b"b.bin" + data[name_at + 5 :]
    with pytest.raises(zipfile.BadZipFile, match="differ"):
        read_member(_archive(spoofed), "a.bin")


def test_a_damaged_sheet_part_is_an_unreadable_workbook() -> None:
    """Through the reader: the deflate bytes of the sheet part overwritten with noise."""
    data = write_xlsx([osv_spec(200)])
    info = _archive(data).getinfo("xl/worksheets/sheet1.xml")
    start = info.header_offset + 30 + len(info.filename)
    noise = bytes((i * 37 + 11) % 256 for i in range(info.compress_size // 2))
    damaged = data[: start + 10] + noise + data[start + 10 + len(noise) :]
    with pytest.raises(UnreadableWorkbook):
        load_workbook(damaged)
