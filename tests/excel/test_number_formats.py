"""A number cell reads as its stored number, whatever literal number format 1C gave it."""

from __future__ import annotations

import datetime as dt
import io
import struct
from typing import Literal

import pytest
import python_calamine

from services.excel import CellValue, load_workbook, parse_amount
from services.excel._xls_scan import rk_number
from services.excel.numfmt import is_date_format, is_date_trap
from tests.builders import CellInput
from tests.builders.number_formats import write_formatted

Format = Literal["XLS", "XLSX", "XLSB"]
NEGATIVE = '[=-6690045.68]"(6\u00a0690\u00a0045,68)"'
SMALL_NEGATIVE = '[=-13102]"(13\u00a0102)"'
EMPTY_ZERO = '[=0]""'
ROWS: list[list[CellInput]] = [
    ["Наименование", "Код", "Пояснения", "За 2019 г."],
    ["Выручка", "2110", 0, 1234.5],
    ["Себестоимость", "2120", 0, -6690045.68],
    ["Прочие расходы", "2350", 3, -13102],
]
# 1C's shape: a format per negative amount, `[=0]""` over the notes column.
FORMATS = {
    (1, 2): EMPTY_ZERO,
    (2, 2): EMPTY_ZERO,
    (2, 3): NEGATIVE,
    (3, 3): SMALL_NEGATIVE,
}
# The XLSB builder gives one format to every formatted row.
XLSB_FORMATS = {(2, 2): NEGATIVE, (2, 3): NEGATIVE}


def _book(fmt: Format) -> bytes:
    return write_formatted(fmt, ROWS, XLSB_FORMATS if fmt == "XLSB" else FORMATS)


def _calamine_rows(data: bytes) -> list[list[CellValue]]:
    sheet = python_calamine.CalamineWorkbook.from_filelike(io.BytesIO(data)).get_sheet_by_index(0)
    return [list(row) for row in sheet.to_python(skip_empty_area=False)]


@pytest.mark.parametrize("fmt", ["XLS", "XLSB"])
def test_calamine_alone_still_reads_1c_literal_formats_as_times(fmt: Format) -> None:
    """The reason for the workaround: if this fails, calamine got fixed and `numfmt` may go."""
    assert isinstance(_calamine_rows(_book(fmt))[2][3], dt.time)


@pytest.mark.parametrize("fmt", ["XLS", "XLSX", "XLSB"])
def test_a_negative_with_a_literal_format_keeps_its_stored_number(fmt: Format) -> None:
    rows = load_workbook(_book(fmt)).sheets[0].rows
    assert parse_amount(rows[2][3]) == parse_amount(-6690045.68)
    assert rows[1][3] == 1234.5  # the General cells 1C numbers among its formats stay numbers


@pytest.mark.parametrize("fmt", ["XLS", "XLSX"])
def test_every_formatted_cell_is_a_number_not_a_time(fmt: Format) -> None:
    rows = load_workbook(_book(fmt)).sheets[0].rows
    assert [rows[r][c] for r, c in sorted(FORMATS)] == [0, 0, -6690045.68, -13102]
    assert not any(isinstance(v, dt.time | dt.date | dt.timedelta) for row in rows for v in row)


def test_a_real_date_format_still_reads_as_a_date() -> None:
    """Only traps are undone: a cell formatted `dd.mm.yyyy` stays the date calamine reads."""
    rows: list[list[CellInput]] = [["Дата", 43830.0]]
    data = write_formatted("XLS", rows, {(0, 1): "dd.mm.yyyy"}, first_id=164)
    assert load_workbook(data).sheets[0].rows[0][1] == dt.date(2019, 12, 31)


@pytest.mark.parametrize(
    ("code", "is_date"),
    [
        ("dd.mm.yyyy", True),
        ("[$-419]d mmm yyyy", True),
        ('yyyy"г."', True),
        ("h:mm;@", True),
        ("[h]:mm:ss", True),
        ("General", False),
        ("#,##0.00", False),
        (NEGATIVE, False),
        (EMPTY_ZERO, False),
        ('0.00" days"', False),
        ("[Red]#,##0.00", False),
        ("#,##0.00\\ _h", False),
    ],
)
def test_a_format_is_a_date_only_by_tokens_outside_literals(code: str, is_date: bool) -> None:
    assert is_date_format(code) is is_date


def test_a_trap_is_a_non_date_format_a_date_guess_may_misread() -> None:
    assert is_date_trap(NEGATIVE)
    assert is_date_trap(EMPTY_ZERO)
    assert is_date_trap("#,##0.00", 50)  # calamine takes id 50 for a date in XLS and XLSB
    assert not is_date_trap("#,##0.00", 164)  # an ordinary amount format: no raw read
    assert not is_date_trap("dd.mm.yyyy", 50)  # a real date is left to calamine


@pytest.mark.parametrize(
    ("text", "expected"),
    [("(6\u00a0690\u00a0045,68)", "-6690045.68"), ("(1 234,56)", "-1234.56")],
)
def test_a_bracketed_text_amount_is_negative(text: str, expected: str) -> None:
    assert str(parse_amount(text)) == expected


@pytest.mark.parametrize("text", ["-", "\u2014", " - "])
def test_a_dash_text_is_no_amount(text: str) -> None:
    assert parse_amount(text) is None


def _rk_of_double(number: float, *, hundredths: bool = False) -> int:
    high: int = struct.unpack("<Q", struct.pack("<d", number))[0] >> 32
    return (high & 0xFFFFFFFC) | (0x01 if hundredths else 0)


@pytest.mark.parametrize(
    ("rk", "expected"),
    [
        ((-13102 << 2 | 0x02) & 0xFFFFFFFF, -13102.0),  # a 30-bit integer
        ((-2489595 << 2 | 0x03) & 0xFFFFFFFF, -24895.95),  # an integer of hundredths
        (_rk_of_double(1234.5), 1234.5),  # the top 30 bits of a double
        (_rk_of_double(-24.0), -24.0),
    ],
)
def test_an_rk_number_decodes_as_biff_stores_it(rk: int, expected: float) -> None:
    """MULRK and RK cells of 1C's XLS hold their numbers this way (MS-XLS 2.5.217)."""
    assert rk_number(rk) == expected
