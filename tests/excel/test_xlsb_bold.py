"""XLSB bold rows: read from xl/styles.bin and the cells' style index, a hint that never fails.

The same `SheetSpec` written as XLSX and as XLSB must report the same bold rows; a styles part
that is missing, oversized or damaged gives no bold rows while the values still read.
"""

from __future__ import annotations

import datetime as dt
import io
import random
import struct
import zipfile

import pytest

from services.excel import Limits, load_workbook
from services.excel._xlsb_scan import scan_xlsb
from services.excel.limits import DEFAULT_LIMITS
from tests.builders import CellInput, SheetSpec, mutants, replace_member, write_xlsb, write_xlsx
from tests.builders.xlsb import record

_STYLES = "xl/styles.bin"
_ROWS: list[list[CellInput]] = [["Счёт", "Дебет", "Кредит"], ["60", 1.5, None], ["Итого", 1.5, 0]]
_SPEC = SheetSpec("ОСВ", rows=_ROWS, bold_rows={0, 2})
_BOLD_WEIGHT, _REGULAR_WEIGHT = 700, 400


def _u32(value: int) -> bytes:
    return struct.pack("<I", value)


def _font(weight: int) -> bytes:
    """BrtFont: dyHeight, grbit, bls, then the rest of its fixed part zeroed, no name."""
    return record(43, struct.pack("<HHH", 220, 0, weight) + bytes(15) + _u32(0))


def _xf(font: int) -> bytes:
    """BrtXF: ixfeParent, iFmt, iFont, then fill, border and alignment zeroed."""
    return record(47, struct.pack("<HHH", 0, 0, font) + bytes(10))


def _styles(fonts: list[bytes], xfs: list[bytes]) -> bytes:
    return b"".join(
        [
            record(611, _u32(len(fonts))),
            *fonts,
            record(612),
            record(617, _u32(len(xfs))),
            *xfs,
            record(618),
        ]
    )


def _styles_part(data: bytes) -> bytes:
    return zipfile.ZipFile(io.BytesIO(data)).read(_STYLES)


def _without(data: bytes, member: str) -> bytes:
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for info in source.infolist():
            if info.filename != member:
                archive.writestr(info.filename, source.read(info))
    return out.getvalue()


def _scanned_bold_rows(data: bytes) -> set[int]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return scan_xlsb(archive, DEFAULT_LIMITS)[_SPEC.name].bold_rows


_PARITY_SPECS = [
    pytest.param(_SPEC, id="osv"),
    pytest.param(
        SheetSpec(
            "Merged",
            rows=[["Заголовок", None, None], [], [None, None, "C3"], ["A4", 4], [None, "B5"]],
            merged=["A1:C1", "A4:B4"],
            bold_rows={0, 1, 3, 4, 9},  # 1: empty row; 9: past the last row
        ),
        id="merges-and-empty-bold-rows",
    ),
    pytest.param(
        SheetSpec(
            "Types",
            rows=[[True, 7, -2.25], [dt.date(2024, 12, 31), "текст"], [10**12, False]],
            bold_rows={1, 2},
        ),
        id="every-cell-type",
    ),
    pytest.param(SheetSpec("Plain", rows=_ROWS), id="no-bold-rows"),
]


@pytest.mark.parametrize("spec", _PARITY_SPECS)
def test_xlsb_reports_the_bold_rows_xlsx_reports_for_the_same_spec(spec: SheetSpec) -> None:
    """Rows with a bold cell are the same set from XLSB as from XLSX, and the spec's rows."""
    from_xlsx = load_workbook(write_xlsx([spec])).sheets[0].bold_rows
    from_xlsb = load_workbook(write_xlsb([spec])).sheets[0].bold_rows
    written = {row for row in spec.bold_rows if row < len(spec.rows) and any(spec.rows[row])}
    assert from_xlsb == from_xlsx == written


def test_bold_comes_from_the_font_weight_not_the_style_index() -> None:
    """XF 1 over a regular font and XF 0 over a bold one: the rows of XF 0 are the bold ones."""
    swapped = _styles([_font(_BOLD_WEIGHT), _font(_REGULAR_WEIGHT)], [_xf(0), _xf(1)])
    data = replace_member(write_xlsb([_SPEC]), _STYLES, swapped)
    sheet = load_workbook(data).sheets[0]
    assert sheet.bold_rows == {1}
    assert sheet.rows == [["Счёт", "Дебет", "Кредит"], ["60", 1.5], ["Итого", 1.5, 0]]


def test_a_workbook_without_a_styles_part_reads_with_no_bold_rows() -> None:
    """No xl/styles.bin (pyxlsb-era writers): values read, bold_rows empty."""
    sheet = load_workbook(_without(write_xlsb([_SPEC]), _STYLES)).sheets[0]
    assert sheet.bold_rows == set()
    assert sheet.cell(2, 0) == "Итого"


def test_an_oversized_styles_part_is_not_read_and_gives_no_bold_rows() -> None:
    """A styles part over max_small_part_bytes is skipped, not refused: bold is a hint."""
    data = write_xlsb([_SPEC])
    small = Limits(max_small_part_bytes=len(_styles_part(data)) - 1)
    sheet = load_workbook(data, small).sheets[0]
    assert sheet.bold_rows == set()
    assert sheet.cell(2, 0) == "Итого"


@pytest.mark.parametrize(
    "styles",
    [
        pytest.param(
            _styles([record(43, b"\xbc\x02")], [_xf(0), _xf(0xFFFF)]),
            id="font-too-short-for-its-weight-and-xf-past-the-fonts",
        ),
        pytest.param(
            _styles([_font(_BOLD_WEIGHT)], [record(47, bytes(4)), record(47, bytes(4))]),
            id="xfs-too-short-for-their-font",
        ),
        pytest.param(_styles([], [_xf(0), _xf(1)]), id="xfs-without-fonts"),
    ],
)
def test_a_lying_styles_part_gives_no_bold_rows_and_the_values_still_read(styles: bytes) -> None:
    """Styles calamine accepts but whose fonts cannot be resolved: no bold rows, same values."""
    sheet = load_workbook(replace_member(write_xlsb([_SPEC]), _STYLES, styles)).sheets[0]
    assert sheet.bold_rows == set()
    assert sheet.rows == [["Счёт", "Дебет", "Кредит"], ["60", 1.5], ["Итого", 1.5, 0]]


def test_garbage_after_the_cell_xfs_leaves_bold_rows_intact() -> None:
    """Only the fonts and cell XFs are read: a damaged tail of the part does not matter."""
    data = write_xlsb([_SPEC])
    part = _styles_part(data)
    end = record(618)  # BrtEndCellXFs
    tail = random.Random(3).randbytes(400)
    damaged = replace_member(data, _STYLES, part[: part.index(end) + len(end)] + tail)
    assert load_workbook(damaged).sheets[0].bold_rows == {0, 2}


def test_random_bytes_as_styles_part_give_no_bold_rows_in_the_scan() -> None:
    """Random parts never raise from the scan and never make a row bold.

    (calamine itself refuses most of these when it reads the values, so this is the scan's
    own promise: its styles pass is never the reason a workbook is unreadable.)
    """
    data = write_xlsb([_SPEC])
    rng = random.Random(5)
    for size in (0, 1, 2, 7, 64, 4096):
        garbage = rng.randbytes(size)
        assert _scanned_bold_rows(replace_member(data, _STYLES, garbage)) == set()


def test_truncated_styles_parts_never_fail_the_scan_nor_invent_bold_rows() -> None:
    """Each cut of the part scans, finding the true bold rows or none, never another row."""
    data = write_xlsb([_SPEC])
    part = _styles_part(data)
    found = [
        _scanned_bold_rows(replace_member(data, _STYLES, part[:cut])) for cut in range(len(part))
    ]
    assert all(bold_rows in ({0, 2}, set()) for bold_rows in found)
    assert found[0] == set()


def test_byte_flipped_styles_parts_never_fail_the_scan() -> None:
    """Truncated or flipped copies of the part: the scan returns instead of raising."""
    data = write_xlsb([_SPEC])
    for mutant in mutants(_styles_part(data), 200, seed=9):
        with zipfile.ZipFile(io.BytesIO(replace_member(data, _STYLES, mutant))) as archive:
            assert _SPEC.name in scan_xlsb(archive, DEFAULT_LIMITS)
