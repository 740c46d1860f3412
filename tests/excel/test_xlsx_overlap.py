"""The XLSX reader runs its streaming passes beside calamine without giving up the guard order.

calamine parses a sheet on the reader's thread while the describe pass runs on a second one,
and opens the workbook while the guard pass runs. These tests pin what the overlap must keep:
calamine never parses a sheet whose guard failed, a guard failure names the cause even when
calamine fails too, a cap of the describe pass still holds though it runs beside calamine, and
the block reader both passes share never splits a row.
"""

from __future__ import annotations

import io
import threading
import zipfile
from typing import Any

import pytest
import python_calamine

from services.excel import (
    LimitExceeded,
    Limits,
    UnreadableWorkbook,
    _xlsx_scan,
    load_workbook,
    reader,
)
from tests.builders import CellInput, SheetSpec, far_cell_xlsx, replace_member, write_xlsx

_SHEET = "xl/worksheets/sheet1.xml"


class _RecordingBook:
    """A calamine workbook that records which sheets were parsed, and when a parse ended."""

    def __init__(self, book: python_calamine.CalamineWorkbook) -> None:
        self._book = book
        self.parsed: list[str] = []
        self.parse_finished = threading.Event()
        self.closed_while_parsing = False
        self._parsing = False

    @property
    def sheets_metadata(self) -> Any:
        return self._book.sheets_metadata

    def get_sheet_by_name(self, name: str) -> python_calamine.CalamineSheet:
        self.parsed.append(name)
        self._parsing = True
        try:
            return self._book.get_sheet_by_name(name)
        finally:
            self._parsing = False
            self.parse_finished.set()

    def __enter__(self) -> _RecordingBook:
        return self

    def __exit__(self, *exc: object) -> None:
        self.closed_while_parsing = self._parsing
        self._book.close()


@pytest.fixture
def books(monkeypatch: pytest.MonkeyPatch) -> list[_RecordingBook]:
    opened: list[_RecordingBook] = []
    real_open = reader._open

    def recording_open(data: bytes) -> Any:
        book = _RecordingBook(real_open(data))
        opened.append(book)
        return book

    monkeypatch.setattr(reader, "_open", recording_open)
    return opened


def _with_empty_row_tags(count: int) -> bytes:
    """One real cell, then `count` empty `<row>` tags: nothing for the guard, rows for describe."""
    empty = b"".join(b'<row r="%d" ht="15" customHeight="1"/>' % n for n in range(2, count + 2))
    sheet = (
        b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
        b'<sheetData><row r="1"><c r="A1"><v>1</v></c></row>' + empty + b"</sheetData></worksheet>"
    )
    return replace_member(write_xlsx([SheetSpec("Sheet1", rows=[[1]])]), _SHEET, sheet)


def test_calamine_never_parses_a_sheet_whose_guard_failed(books: list[_RecordingBook]) -> None:
    with pytest.raises(LimitExceeded) as caught:
        load_workbook(far_cell_xlsx("XFD900000"))
    assert caught.value.limit == "max_cells"
    assert all(book.parsed == [] for book in books)


def test_a_guard_failure_is_reported_even_when_calamine_cannot_open(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken_open(data: bytes) -> python_calamine.CalamineWorkbook:
        raise RuntimeError("calamine could not open the workbook")

    monkeypatch.setattr(reader, "_open", broken_open)
    with pytest.raises(LimitExceeded) as caught:
        load_workbook(far_cell_xlsx("XFD900000"))
    assert caught.value.limit == "max_cells"
    with pytest.raises(UnreadableWorkbook, match="RuntimeError: calamine could not open"):
        load_workbook(write_xlsx([SheetSpec("Sheet1", rows=[["fine", 1]])]))


def test_the_row_tag_cap_holds_in_the_describe_pass_beside_calamine(
    books: list[_RecordingBook],
) -> None:
    """Empty row tags pass the guard (no cells) and trip the cap in the describe pass, while
    calamine parses the sheet; calamine's parse ends before its book is closed."""
    with pytest.raises(LimitExceeded) as caught:
        load_workbook(_with_empty_row_tags(5_000), Limits(max_rows=1_000))
    assert caught.value.limit == "max_rows"
    (book,) = books
    assert book.parsed == ["Sheet1"]
    assert book.parse_finished.is_set()
    assert not book.closed_while_parsing


def test_the_overlapped_read_keeps_what_the_describe_pass_found() -> None:
    lines: list[list[CellInput]] = [[f"60.{i}", i * 1.5, i] for i in range(1, 300)]
    spec = SheetSpec(
        "ОСВ",
        rows=[["Счёт", "Дебет", "Кредит"], *lines],
        outline_levels={i: 1 + i % 3 for i in range(1, 300)},
        bold_rows={0, 7},
    )
    (sheet,) = load_workbook(write_xlsx([spec])).sheets
    assert sheet.outline_levels == spec.outline_levels
    assert sheet.bold_rows == {0, 7}
    assert sheet.rows[299] == ["60.299", 448.5, 299]


@pytest.mark.parametrize("block", [7, 64, 1000, 1 << 20])
def test_blocks_end_after_a_row_and_make_up_the_part(
    monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    rows: list[list[CellInput]] = [[f"строка {i}", i, i / 4] for i in range(500)]
    archive = zipfile.ZipFile(io.BytesIO(write_xlsx([SheetSpec("S", rows=rows)])))
    monkeypatch.setattr(_xlsx_scan, "_BLOCK", block)
    blocks = list(_xlsx_scan.row_blocks(archive, _SHEET))
    assert b"".join(blocks) == archive.read(_SHEET)
    assert all(part.endswith(b"</row>") for part in blocks[:-1])
    assert all(part.count(b"<row ") == part.count(b"</row>") for part in blocks[:-1])
