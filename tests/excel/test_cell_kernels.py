"""The C cell primitives (services/excel/_cells.c) against their Python reference.

A large sheet calls a few small functions for nearly every cell or row: `squash` (a cell's
text), `format_kopecks` and `money_strings` (a sum's, a row's money strings), `span_kopecks` (the six sums of a
trial-balance row, when they are plain) and `column_texts` (a row's text columns by header).
Each is written in C and in Python (`squash_python`, `format_kopecks_python`,
`span_kopecks_python`, `column_texts_python`, the reference); these tests hold each pair equal
on generated values and on the edge cases (every Unicode space, kopecks past 2**63 and 10**20,
NaN and infinities, sub-kopeck floats, ties of the rounding, indexes past the row or from its
end), and prove the C twins are built and in use unless ARM_KA_PURE_PYTHON=1 asks for the
Python ones.
"""

from __future__ import annotations

import math
import os
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.excel import text, values
from services.excel._kernels import PURE_PYTHON_ENV
from services.excel.model import CellValue

_PURE = bool(os.environ.get(PURE_PYTHON_ENV))

try:
    from services.excel import _cells
except ImportError:  # judged by test_the_c_primitives_are_built_unless_python_is_asked_for
    _cells = None  # type: ignore[assignment]

needs_c = pytest.mark.skipif(_cells is None, reason="the C cell primitives are not built")

_SPACES = " \t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u1680\u2000\u2009\u200a\u2028\u202f\u205f\u3000"
_NOT_SPACES = "\u200b\u180e\ufeffaZ1.-ё"


def test_the_c_primitives_are_built_unless_python_is_asked_for() -> None:
    """CI builds the extension: a missing one fails here unless ARM_KA_PURE_PYTHON=1 says so."""
    if _cells is None and not _PURE:
        pytest.fail("services.excel._cells is not importable (no C compiler at install?)")


def test_the_readers_use_the_c_primitives_unless_python_is_asked_for() -> None:
    if _PURE or _cells is None:
        assert text.squash is text.squash_python
        assert values.format_kopecks is values.format_kopecks_python
        assert values.money_strings is values.money_strings_python
        assert values.span_kopecks is values.span_kopecks_python
        assert text.column_texts is text.column_texts_python
    else:
        assert text.squash is _cells.squash
        assert values.format_kopecks is _cells.format_kopecks
        assert values.money_strings is _cells.money_strings
        assert values.span_kopecks is _cells.span_kopecks
        assert text.column_texts is _cells.column_texts


# --- squash -------------------------------------------------------------------------------


@needs_c
def test_squash_agrees_on_every_code_point_alone_and_between_letters() -> None:
    """Whatever `str.split()` takes for a space, the C check takes for one too."""
    differ = []
    for point in range(sys.maxunicode + 1):
        char = chr(point)
        for sample in (char, f"a{char}b", f"{char}{char}x"):
            if _cells.squash(sample) != text.squash_python(sample):
                differ.append(hex(point))
                break
    assert differ == []


@needs_c
@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=st.sampled_from(_SPACES + _NOT_SPACES), max_size=12))
def test_squash_agrees_on_runs_of_spaces(sample: str) -> None:
    assert _cells.squash(sample) == text.squash_python(sample)


@needs_c
@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_squash_agrees_on_any_text(sample: str) -> None:
    assert _cells.squash(sample) == text.squash_python(sample)


@needs_c
def test_squash_gives_back_a_squashed_text_itself_and_a_new_one_otherwise() -> None:
    """Most cells need nothing: no copy is made of them."""
    plain = "ООО «Ромашка» ИНН 7701234567"
    assert _cells.squash(plain) is plain
    spaced = "ООО\xa0«Ромашка»  "
    assert _cells.squash(spaced) == "ООО «Ромашка»"
    assert _cells.squash("") == ""


@needs_c
def test_squash_of_a_str_subclass_is_a_plain_str() -> None:
    class Label(str):
        pass

    squashed = _cells.squash(Label("a b"))
    assert squashed == "a b"
    assert type(squashed) is str


@needs_c
def test_squash_refuses_what_is_not_text() -> None:
    with pytest.raises(TypeError):
        _cells.squash(12)  # type: ignore[arg-type]


# --- format_kopecks -----------------------------------------------------------------------


def _formatted(function: object, kopecks: int) -> tuple[str, str]:
    try:
        return ("ok", function(kopecks))  # type: ignore[operator]
    except ValueError as exc:
        return ("ValueError", str(exc))


_EDGES = [
    0, 1, 5, 10, 99, 100, 101, 150, 199, 200, 12345, -1, -5, -99, -100, -101, -12345,
    2**63 - 1, 2**63, 2**63 + 1, 2**64 + 5, 10**20 - 1, 10**20, 10**20 + 1, 10**25,
    -(2**63), -(2**63) - 1, -(10**20) + 1, -(10**20), -(10**25),
]  # fmt: skip


@needs_c
@pytest.mark.parametrize("kopecks", _EDGES)
def test_format_kopecks_agrees_at_the_edges(kopecks: int) -> None:
    """Signs, the kopecks part, the int64 boundary (the C path changes there) and 10**20."""
    expected = _formatted(values.format_kopecks_python, kopecks)
    assert _formatted(_cells.format_kopecks, kopecks) == expected


@needs_c
@settings(max_examples=500, deadline=None)
@given(
    st.one_of(
        st.integers(min_value=-(10**6), max_value=10**6),
        st.integers(min_value=-(10**22), max_value=10**22),
    )
)
def test_format_kopecks_agrees_on_any_int(kopecks: int) -> None:
    expected = _formatted(values.format_kopecks_python, kopecks)
    assert _formatted(_cells.format_kopecks, kopecks) == expected


@needs_c
@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(min_value=-(10**21), max_value=10**21))))
def test_money_strings_agrees_on_any_row_of_sums(sums: list[int | None]) -> None:
    expected = _formatted(values.money_strings_python, sums)  # type: ignore[arg-type]
    assert _formatted(_cells.money_strings, sums) == expected  # type: ignore[arg-type]


@needs_c
def test_money_strings_keeps_none_and_refuses_what_it_cannot_read() -> None:
    assert _cells.money_strings([None, 150, -5, 0]) == [None, "1.50", "-0.05", "0"]
    with pytest.raises(TypeError):
        _cells.money_strings((1, 2))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        _cells.money_strings([1.5])  # type: ignore[list-item]


@needs_c
def test_format_kopecks_refuses_what_is_not_an_int() -> None:
    with pytest.raises(TypeError):
        _cells.format_kopecks(1.5)  # type: ignore[arg-type]


# --- span_kopecks -------------------------------------------------------------------------

_FLOATS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(10**15), max_value=10**15).map(lambda k: k / 100),
    st.integers(min_value=-(10**8), max_value=10**8).map(lambda k: k / 1000),
    st.sampled_from([0.005, 0.015, 0.125, 2.675, -0.005, 1e13, -1e13, 9999999999999.99, 0.1]),
)
_CELLS = st.lists(
    st.one_of(
        _FLOATS,
        st.sampled_from(["", " ", "-", "12.50", "Итого", None, True, False, 0, 12]),
    ),
    max_size=10,
)
_SPANS = st.lists(
    st.tuples(st.integers(min_value=0, max_value=11), st.integers(min_value=0, max_value=2)).map(
        lambda pair: (pair[0], pair[0] + pair[1])
    ),
    max_size=6,
).map(tuple)


@needs_c
@settings(max_examples=1500, deadline=None)
@given(_CELLS, _SPANS, st.booleans())
def test_span_kopecks_agrees_on_any_row(
    cells: list[CellValue], spans: tuple[tuple[int, int], ...], plain_empty: bool
) -> None:
    """Decided alike (the same kopecks, the same empty spans) or left to the full rule alike."""
    expected = values.span_kopecks_python(cells, spans, plain_empty)
    assert _cells.span_kopecks(cells, spans, plain_empty) == expected


@needs_c
def test_span_kopecks_decides_a_plain_row_and_leaves_the_rest_to_the_full_rule() -> None:
    spans = ((0, 0), (1, 2), (3, 3))
    assert _cells.span_kopecks([1234.5, "", "", None], spans, True) == [123450, None, None]
    assert _cells.span_kopecks([1234.5], spans, True) == [123450, None, None]  # past the end
    assert _cells.span_kopecks([0.001, "", "", None], spans, True) is None  # a sub-kopeck
    assert _cells.span_kopecks(["12.50", "", "", None], spans, True) is None  # text
    assert _cells.span_kopecks([1.0, "", 2.0, None], spans, True) is None  # a later cell
    assert _cells.span_kopecks([1.0, "", "", None], spans, False) is None  # formulas on sheet
    assert _cells.span_kopecks([math.nan], ((0, 0),), True) is None


@needs_c
def test_span_kopecks_rounds_as_python_rounds() -> None:
    """Float noise around a kopeck (67943876.75999999 is 67943876.76) is rounded half to even,
    and kept only when the kopecks give the same float back."""
    for value in (67943876.76, 0.29, 1.15, 2.675, 1e12 + 0.01, -0.07):
        expected = values.span_kopecks_python([value], ((0, 0),), True)
        assert _cells.span_kopecks([value], ((0, 0),), True) == expected


@needs_c
def test_span_kopecks_leaves_what_is_not_the_plain_shape_to_the_rule() -> None:
    """Cells that are no list, spans that are no tuples of two ints: None, never an error (the
    caller's Python rule reads any sequence)."""
    assert _cells.span_kopecks((1.0,), ((0, 0),), True) is None  # type: ignore[arg-type]
    assert _cells.span_kopecks([1.0], [(0, 0)], True) is None  # type: ignore[arg-type]
    assert _cells.span_kopecks([1.0], ((0, 0, 0),), True) is None  # type: ignore[arg-type]
    assert _cells.span_kopecks([1.0], ((0.0, 0),), True) is None  # type: ignore[arg-type]


# --- column_texts -------------------------------------------------------------------------

_TEXT_CELLS = st.lists(
    st.one_of(
        st.text(alphabet=st.sampled_from(_SPACES + _NOT_SPACES), max_size=6),
        st.sampled_from([None, "", 1.5, 7, True]),
    ),
    max_size=8,
)
_COLUMNS = st.lists(
    st.tuples(st.integers(min_value=-2, max_value=9), st.sampled_from(["КПП", "Договор", "x"])),
    max_size=4,
).map(tuple)


@needs_c
@settings(max_examples=1000, deadline=None)
@given(_TEXT_CELLS, _COLUMNS)
def test_column_texts_agrees_on_any_row(
    cells: list[CellValue], columns: tuple[tuple[int, str], ...]
) -> None:
    """The same texts under the same headers in the same order, or left to the caller alike."""
    expected = text.column_texts_python(cells, columns)
    found = _cells.column_texts(cells, columns)
    assert found == expected
    if expected is not None:
        assert found is not None
        assert list(found) == list(expected)


@needs_c
def test_column_texts_reads_texts_and_leaves_numbers_to_the_caller() -> None:
    columns = ((1, "КПП"), (2, "Договор"), (9, "Вид"))
    row: list[CellValue] = ["", "7701\xa0001", "  ", None]
    assert _cells.column_texts(row, columns) == {"КПП": "7701 001", "Договор": None, "Вид": None}
    assert _cells.column_texts(["", 770101001.0, ""], columns) is None
    assert _cells.column_texts(row, ((1,),)) is None  # type: ignore[arg-type]
    assert _cells.column_texts(tuple(row), columns) is None  # type: ignore[arg-type]
