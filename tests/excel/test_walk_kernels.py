"""The C record walks (services/excel/_walk.c) against their Python reference.

The XLS and XLSB sheet passes walk every record of a sheet in C; the Python walks
(`walk_xls_python`, `walk_xlsb_python`) are the reference. These tests hold the two equal on
workbooks built in code (trial balances, bold rows, date-trap formats, merges, outline levels,
MULRK / MULBLANK, several and hidden sheets), on hand-laid record streams, and on hundreds of
mutated, truncated and random byte strings, where both must stop at the same record for the
same reason. They also prove the C walk is built and the one in use unless
ARM_KA_PURE_PYTHON=1 asks for the Python walks.
"""

from __future__ import annotations

import dataclasses
import io
import math
import os
import struct
import zipfile
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from benchmarks._osv_workbook import osv_spec
from services.contract.filetypes import ole_workbook_stream
from services.excel import LimitExceeded, UnreadableWorkbook, _xls_scan, _xlsb_scan
from services.excel._kernels import PURE_PYTHON_ENV
from services.excel.limits import DEFAULT_LIMITS, Limits
from tests.builders import CellInput, SheetSpec, write_xls, write_xlsb
from tests.builders.number_formats import write_formatted
from tests.builders.xlsb import record

_PURE = bool(os.environ.get(PURE_PYTHON_ENV))

try:
    from services.excel import _walk
except ImportError:  # judged by test_the_c_walk_is_built_unless_python_is_asked_for
    _walk = None  # type: ignore[assignment]

needs_c = pytest.mark.skipif(_walk is None, reason="the C walks are not built")

XlsbStyles = tuple[frozenset[int], frozenset[int]]


def test_the_c_walk_is_built_unless_python_is_asked_for() -> None:
    """CI builds the extension: a missing one fails here unless ARM_KA_PURE_PYTHON=1 says so."""
    if _walk is None and not _PURE:
        pytest.fail("services.excel._walk is not importable (no C compiler at install?)")


def test_the_scans_use_the_c_walk_unless_python_is_asked_for() -> None:
    if _PURE or _walk is None:
        assert _xlsb_scan.walk_xlsb is _xlsb_scan.walk_xlsb_python
        assert _xls_scan.walk_xls is _xls_scan.walk_xls_python
    else:
        assert _xlsb_scan.walk_xlsb is _walk.walk_xlsb
        assert _xls_scan.walk_xls is _walk.walk_xls


# ------------------------------------------------------------------------- comparing --


def _float_key(value: float) -> Any:
    """Bit-exact, except that every NaN is one NaN (its payload is the platform's business)."""
    return "nan" if math.isnan(value) else struct.pack("<d", value)


def _comparable(result: tuple[Any, ...]) -> tuple[Any, ...]:
    """The walk's result with floats compared by their bits and the stop reduced to its case
    (the message of an unreadable read is each kernel's own)."""
    numbers = {key: _float_key(value) for key, value in result[2].items()}
    stopped = result[-1]
    if isinstance(stopped, tuple):  # XLSB: (case, detail); the overrun message is shared
        stopped = stopped if stopped[0] == _xlsb_scan.OVERRUN else stopped[0]
    elif stopped is not None:  # XLS: the detail of a damaged read
        stopped = "damaged"
    return (*result[:2], numbers, *result[3:-1], stopped)


def _same_xlsb(data: bytes, styles: XlsbStyles) -> tuple[Any, ...]:
    assert _walk is not None
    python = _xlsb_scan.walk_xlsb_python(data, *styles)
    c = _walk.walk_xlsb(data, *styles)
    assert _comparable(c) == _comparable(python)
    return python


def _same_xls(stream: bytes, offset: int, styles: XlsbStyles) -> tuple[Any, ...]:
    assert _walk is not None
    python = _xls_scan.walk_xls_python(stream, offset, *styles)
    c = _walk.walk_xls(stream, offset, *styles)
    assert _comparable(c) == _comparable(python)
    return python


# ------------------------------------------------------------------- workbook parts --


def _xlsb_parts(data: bytes) -> tuple[list[bytes], XlsbStyles]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = {name.lower(): name for name in archive.namelist()}
        styles = _xlsb_scan._styles(archive, members, DEFAULT_LIMITS)
        parts = [
            _xlsb_scan.read_part(archive, members[part.lower()], DEFAULT_LIMITS)
            for _, part, _ in _xlsb_scan.sheet_parts(archive, members, DEFAULT_LIMITS)
        ]
    return parts, styles


def _xls_sheets(data: bytes) -> tuple[bytes, list[int], XlsbStyles]:
    stream = ole_workbook_stream(data)
    assert stream is not None
    sheets, styles = _xls_scan._globals(stream)
    return stream, [offset for _, offset, _ in sheets], (styles.bold, styles.traps)


_LINES: list[list[CellInput]] = [[f"60.{i}", i * 1.5, i] for i in range(30)]
_ROWS: list[list[CellInput]] = [["Счёт", "Дебет", "Кредит"], *_LINES]
_SPECS = {
    "osv": [osv_spec(300)],
    "bold-merged-outline": [
        SheetSpec(
            "ОСВ",
            rows=_ROWS,
            merged=["A1:C1", (5, 0, 7, 1)],
            outline_levels={i: 1 + i % 3 for i in range(1, 31)},
            bold_rows={0, 10, 30},
        )
    ],
    "several-hidden": [
        SheetSpec("Первый", rows=_ROWS[:5], bold_rows={1}),
        SheetSpec("Скрытый", rows=_ROWS[5:], hidden=True, outline_levels={2: 2}),
        SheetSpec("Пустой"),
        SheetSpec("Далёкий", rows=[[None] * 40 + [1.0]] * 3),
    ],
}
_TRAPS = {(r, c): '[=-6690045.68]"(6\u00a0690\u00a0045,68)"' for r in (1, 2, 3) for c in (1, 2)}
_TRAP_ROWS: list[list[CellInput]] = [
    ["Наименование", "Код", "Сумма"],
    ["a", -6690045.68, 12],
    ["b", 3, -0.5],
    ["c", 7],
]


@needs_c
@pytest.mark.parametrize("name", sorted(_SPECS))
def test_built_xlsb_walks_agree(name: str) -> None:
    """Every sheet of a built XLSB walks to the same levels, bold rows, merges and extent."""
    parts, styles = _xlsb_parts(write_xlsb(_SPECS[name]))
    for part in parts:
        assert _same_xlsb(part, styles)[-1] is None


@needs_c
@pytest.mark.parametrize("name", sorted(_SPECS))
def test_built_xls_walks_agree(name: str) -> None:
    stream, offsets, styles = _xls_sheets(write_xls(_SPECS[name]))
    for offset in offsets:
        assert _same_xls(stream, offset, styles)[-1] is None


@needs_c
def test_date_trap_numbers_agree() -> None:
    """Cells whose format is a date trap give their stored numbers, the same in C."""
    parts, styles = _xlsb_parts(write_formatted("XLSB", _TRAP_ROWS, _TRAPS))
    assert styles[1], "the builder's format is a date trap"
    assert _same_xlsb(parts[0], styles)[2], "trap numbers were found"
    stream, offsets, xls_styles = _xls_sheets(write_formatted("XLS", _TRAP_ROWS, _TRAPS))
    assert xls_styles[1]
    assert _same_xls(stream, offsets[0], xls_styles)[2]


@needs_c
def test_the_bold_rows_of_a_built_workbook_are_found_by_both() -> None:
    spec = _SPECS["bold-merged-outline"]
    parts, styles = _xlsb_parts(write_xlsb(spec))
    assert _same_xlsb(parts[0], styles)[1] == {0, 10, 30}
    stream, offsets, xls_styles = _xls_sheets(write_xls(spec))
    assert _same_xls(stream, offsets[0], xls_styles)[1] == {0, 10, 30}


# ------------------------------------------------------------- hand-laid XLS records --


def _biff(code: int, body: bytes) -> bytes:
    return struct.pack("<HH", code, len(body)) + body


def _rk(value: int) -> int:
    """An integer RK (bit 1 set)."""
    return ((value << 2) | 0x02) & 0xFFFFFFFF


def _xls_substream() -> bytes:
    """BOF, ROW with a level, MULRK over trap and plain XFs, MULBLANK, NUMBER, RK, FORMULA with
    and without a number, a nested BOF/EOF, then EOF and trailing bytes the walk never reaches."""
    xfs_rks = b"".join(struct.pack("<HI", xf, _rk(n)) for xf, n in ((7, 5), (3, -2), (7, 9)))
    formula_number = struct.pack("<HHHd", 4, 1, 7, -12.25) + bytes(8)
    formula_text = struct.pack("<HHH", 4, 2, 7) + b"\x00" * 6 + b"\xff\xff" + bytes(8)
    return b"".join(
        [
            _biff(0x0809, struct.pack("<HH", 0x0600, 0x10) + bytes(12)),
            _biff(0x0208, struct.pack("<HHHHHHI", 2, 0, 4, 255, 0, 0, 0x0103)),
            _biff(0x00BD, struct.pack("<HH", 2, 1) + xfs_rks + struct.pack("<H", 3)),
            _biff(0x00BE, struct.pack("<HHHHH", 3, 4, 7, 7, 5)),
            _biff(0x0203, struct.pack("<HHHd", 1, 0, 9, 1.5)),  # bold XF
            _biff(0x027E, struct.pack("<HHHI", 5, 6, 7, _rk(-41) | 0x01)),  # ÷100
            _biff(0x0006, formula_number),
            _biff(0x0006, formula_text),
            _biff(0x0809, bytes(16)),  # a nested substream (a chart) ...
            _biff(0x0203, struct.pack("<HHHd", 60, 60, 0, 0.0)),
            _biff(0x000A, b""),  # ... ends without ending the sheet
            _biff(0x000A, b""),
            _biff(0x0203, struct.pack("<HHHd", 900, 900, 9, 1.0)),  # after EOF: not read
        ]
    )


@needs_c
def test_hand_laid_xls_records_agree() -> None:
    stream = b"\x00" * 10 + _xls_substream()
    levels, bold, numbers, extent, damaged = _same_xls(stream, 10, (frozenset({9}), frozenset({7})))
    assert damaged is None
    assert levels == {2: 3}
    assert bold == {1}
    assert numbers == {(2, 1): 5.0, (2, 3): 9.0, (5, 6): -0.41, (4, 1): -12.25}
    assert extent == (1, 0, 60, 60, 3 + 2 + 5)  # MULRK, MULBLANK, single cells


@needs_c
def test_a_mulrk_over_the_end_of_the_stream_is_damaged_in_both() -> None:
    """A MULRK claiming more cells than its bytes hold reads past the stream: both stop."""
    body = struct.pack("<HH", 0, 0) + struct.pack("<HI", 7, _rk(1)) + struct.pack("<H", 200)
    stream = _biff(0x0809, bytes(16)) + _biff(0x00BD, body)
    assert _same_xls(stream, 0, (frozenset(), frozenset({7})))[-1] is not None
    # with no trap XF the cells are not read, so the same record is whole
    assert _same_xls(stream, 0, (frozenset(), frozenset()))[-1] is None


# ------------------------------------------------------ the order the checks are made --


def _tiny_limits() -> Limits:
    return dataclasses.replace(DEFAULT_LIMITS, max_rows=10)


def _scan_with(
    monkeypatch: pytest.MonkeyPatch, walk: Callable[..., Any], data: bytes
) -> BaseException:
    monkeypatch.setattr(_xlsb_scan, "walk_xlsb", walk)
    styles = (frozenset[int](), frozenset[int]())
    with pytest.raises((LimitExceeded, UnreadableWorkbook)) as caught:
        _xlsb_scan._scan_sheet(data, False, styles, _tiny_limits())
    return caught.value


def _walks() -> list[Any]:
    walks: list[Any] = [pytest.param(_xlsb_scan.walk_xlsb_python, id="python")]
    if _walk is not None:
        walks.append(pytest.param(_walk.walk_xlsb, id="c"))
    return walks


@pytest.mark.parametrize("walk", _walks())
def test_an_oversized_dimension_wins_over_a_later_overrun(
    monkeypatch: pytest.MonkeyPatch, walk: Callable[..., Any]
) -> None:
    """BrtWsDim is checked as it is met: a later record overrunning the part comes second."""
    data = record(148, struct.pack("<IIII", 0, 500, 0, 3)) + b"\x05\x7f"
    refused = _scan_with(monkeypatch, walk, data)
    assert isinstance(refused, LimitExceeded) and refused.limit == "max_rows"


@pytest.mark.parametrize("walk", _walks())
def test_an_overrun_before_an_oversized_dimension_wins(
    monkeypatch: pytest.MonkeyPatch, walk: Callable[..., Any]
) -> None:
    data = b"\x05\x7f" + record(148, struct.pack("<IIII", 0, 500, 0, 3))
    refused = _scan_with(monkeypatch, walk, data)
    assert isinstance(refused, UnreadableWorkbook) and "overruns the part" in str(refused)


@pytest.mark.parametrize("walk", _walks())
def test_a_short_row_header_at_the_end_is_damaged(
    monkeypatch: pytest.MonkeyPatch, walk: Callable[..., Any]
) -> None:
    """A BrtRowHdr whose level lies past the part's end: damaged, not an escaped struct.error."""
    data = record(1, struct.pack("<I", 0)) + record(0, struct.pack("<I", 3))
    refused = _scan_with(monkeypatch, walk, data)
    assert isinstance(refused, UnreadableWorkbook) and "damaged BIFF12" in str(refused)


# --------------------------------------------------------------- mutated and random --


def _bases() -> tuple[list[tuple[bytes, XlsbStyles]], list[tuple[bytes, int, XlsbStyles]]]:
    """Sheet parts (XLSB) and substreams (XLS) of small real workbooks, styles included."""
    spec = _SPECS["bold-merged-outline"]
    xlsb = [(part, styles) for part, styles in [_one_xlsb(write_xlsb(spec))]]
    xlsb.append(_one_xlsb(write_formatted("XLSB", _TRAP_ROWS, _TRAPS)))
    xlsb.append(_one_xlsb(write_xlsb([SheetSpec("Один", rows=[[1, None, "x"], [], [2]])])))
    xls = [_one_xls(write_xls(spec)), _one_xls(write_formatted("XLS", _TRAP_ROWS, _TRAPS))]
    xls.append((_xls_substream(), 0, (frozenset({9}), frozenset({7}))))
    return xlsb, xls


def _one_xlsb(data: bytes) -> tuple[bytes, XlsbStyles]:
    parts, styles = _xlsb_parts(data)
    return parts[0], styles


def _one_xls(data: bytes) -> tuple[bytes, int, XlsbStyles]:
    stream, offsets, styles = _xls_sheets(data)
    return stream, offsets[0], styles


_XLSB_BASES, _XLS_BASES = _bases()


@st.composite
def _mutated(draw: st.DrawFn, base: bytes, start: int = 0) -> bytes:
    """`base` truncated, with bytes flipped, spliced or inserted after `start`, or random."""
    how = draw(st.sampled_from(["truncate", "flip", "insert", "splice", "random"]))
    if how == "random":
        return base[:start] + draw(st.binary(max_size=300))
    data = bytearray(base)
    span = max(len(data) - start, 1)
    if how == "truncate":
        return bytes(data[: start + draw(st.integers(0, span))])
    if how == "insert":
        at = start + draw(st.integers(0, span))
        return bytes(data[:at] + draw(st.binary(min_size=1, max_size=24)) + data[at:])
    if how == "splice":  # a record's bytes repeated elsewhere: plausible headers, wrong places
        a, b = sorted(draw(st.lists(st.integers(start, len(data)), min_size=2, max_size=2)))
        at = draw(st.integers(start, len(data)))
        return bytes(data[:at] + data[a:b][:64] + data[at:])
    for _ in range(draw(st.integers(1, 12))):
        at = start + draw(st.integers(0, span - 1))
        if at < len(data):
            data[at] ^= draw(st.integers(1, 255))
    return bytes(data)


def _style_sets(known: XlsbStyles) -> st.SearchStrategy[XlsbStyles]:
    """The workbook's own styles, none, or small sets of low XF indices (the usual ones)."""
    small = st.frozensets(st.integers(0, 20), max_size=4)
    return st.one_of(st.just(known), st.just((frozenset(), frozenset())), st.tuples(small, small))


_FUZZ = settings(
    max_examples=1500,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,
)


@needs_c
@_FUZZ
@given(data=st.data())
def test_mutated_xlsb_parts_walk_alike(data: st.DataObject) -> None:
    """Damaged BIFF12 parts: the same findings, or the same stop (overrun / damaged) at the
    same record, from both walks."""
    part, styles = data.draw(st.sampled_from(_XLSB_BASES))
    stopped = _same_xlsb(data.draw(_mutated(part)), data.draw(_style_sets(styles)))[-1]
    event("whole" if stopped is None else stopped[0])


@needs_c
@_FUZZ
@given(data=st.data())
def test_mutated_xls_streams_walk_alike(data: st.DataObject) -> None:
    """Damaged BIFF8 substreams (the globals before them kept): the same from both walks."""
    stream, offset, styles = data.draw(st.sampled_from(_XLS_BASES))
    mutated = data.draw(_mutated(stream, offset))
    stopped = _same_xls(mutated, offset, data.draw(_style_sets(styles)))[-1]
    event("whole" if stopped is None else "damaged")


@needs_c
def test_the_c_walk_refuses_what_it_cannot_compare() -> None:
    """Style sets must hold ints and an offset must not be negative: a programming error,
    raised, never a wrong walk."""
    assert _walk is not None
    with pytest.raises(TypeError):
        _walk.walk_xlsb(b"", frozenset({"1"}), frozenset())  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        _walk.walk_xls(b"", -1, frozenset(), frozenset())
