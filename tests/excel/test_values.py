"""Money parsing: floats, ints and Russian-formatted texts to kopecks, and back to strings."""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.excel import format_amount, looks_like_malformed_amount, parse_amount

AMOUNT_TEXT = re.compile(r"^-?\d+(\.\d{1,2})?$")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("456\u00a0386\u00a0485,50", "456386485.50"),
        ("456\u202f386\u202f485,50", "456386485.50"),
        ("456 386 485,50", "456386485.50"),
        ("-1 234,00", "-1234.00"),
        ("\u22121 234,00", "-1234.00"),
        ("(1 234)", "-1234.00"),
        ("(1 234,5)", "-1234.50"),
        ("1 234.5", "1234.50"),
        ("1,234,567.89", "1234567.89"),
        ("1.234.567,89", "1234567.89"),
        ("+17", "17.00"),
        ("0,005", "0.01"),
        (0.1 + 0.2, "0.30"),
        (2.675, "2.68"),
        (-2.675, "-2.68"),
        (1234.5, "1234.50"),
        (123456789012.34, "123456789012.34"),
        (42, "42.00"),
        (Decimal("1.005"), "1.01"),
    ],
)
def test_amounts_parse_to_kopecks_half_up(value: object, expected: str) -> None:
    """Each spelling of an amount gives the same Decimal, rounded half-up to kopecks."""
    assert parse_amount(value) == Decimal(expected)


@pytest.mark.parametrize(
    "value",
    ["", " ", "-", "—", "–", "(-)", "(—)", None, True, "Итого", "abc", float("nan"), float("inf")],
)
def test_blanks_dashes_and_non_money_are_none(value: object) -> None:
    """No amount: None, never an exception."""
    assert parse_amount(value) is None


@pytest.mark.parametrize("text", ["1,2,3", "(29 390)5", "12-34", "1..2", "(1 234", "1,23,4.5"])
def test_malformed_number_like_text_is_told_apart(text: str) -> None:
    """Digits and money punctuation that do not parse are flagged as malformed."""
    assert parse_amount(text) is None
    assert looks_like_malformed_amount(text)


@pytest.mark.parametrize("text", ["Итого", "", "-", "1 234,50", "Выручка"])
def test_ordinary_text_and_good_numbers_are_not_malformed(text: str) -> None:
    """Words, blanks and valid amounts are not 'malformed numbers'."""
    assert not looks_like_malformed_amount(text)


@pytest.mark.parametrize(
    ("amount", "text"),
    [
        ("1234", "1234"),
        ("1234.5", "1234.50"),
        ("-0.001", "0"),
        ("-1234.567", "-1234.57"),
        ("1E+3", "1000"),
        ("0.10", "0.10"),
    ],
)
def test_format_is_minimal_for_integers_and_two_decimals_otherwise(amount: str, text: str) -> None:
    """Integral → "1234"; otherwise exactly two decimals; never an exponent or "-0"."""
    assert format_amount(Decimal(amount)) == text


kopecks = st.integers(min_value=-(10**15), max_value=10**15).map(lambda k: Decimal(k) / 100)


@given(kopecks)
def test_format_then_parse_round_trips(amount: Decimal) -> None:
    """parse(format(x)) == x and the text always matches the contract's money pattern."""
    text = format_amount(amount)
    assert AMOUNT_TEXT.match(text)
    assert parse_amount(text) == amount


@given(kopecks, st.sampled_from([" ", "\u00a0", "\u202f"]), st.booleans())
def test_russian_spelling_round_trips(amount: Decimal, space: str, parens: bool) -> None:
    """Any amount written the 1C way (grouped thousands, comma decimal) parses back to itself."""
    whole, _, fraction = f"{abs(amount):.2f}".partition(".")
    grouped = f"{int(whole):,}".replace(",", space)
    body = f"{grouped},{fraction}"
    text = (f"({body})" if parens else f"-{body}") if amount < 0 else body
    assert parse_amount(text) == amount


@given(st.floats(min_value=-1e12, max_value=1e12, allow_nan=False))
def test_floats_round_like_their_shortest_decimal(value: float) -> None:
    """A float rounds as the decimal it prints as (no binary noise), then formats cleanly."""
    expected = Decimal(repr(value)).quantize(Decimal("0.01"), rounding="ROUND_HALF_UP")
    parsed = parse_amount(value)
    assert parsed == expected
    assert parsed is not None and AMOUNT_TEXT.match(format_amount(parsed))


@pytest.mark.parametrize("value", [1e26, 1e300, -1e30, 10**25, "99 999 999 999 999 999 999,00"])
def test_amounts_beyond_any_statement_are_not_money_and_do_not_raise(value: object) -> None:
    """A float like 1e26 would overflow the decimal context when quantized to kopecks."""
    assert parse_amount(value) is None


def _printed_by_rounding(amount: Decimal) -> str:
    value = amount.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    if value == 0:
        return "0"
    integral = value == value.to_integral_value()
    return f"{value.quantize(Decimal(1)):f}" if integral else f"{value:f}"


@given(st.integers(min_value=-(10**19), max_value=10**19), st.integers(min_value=-4, max_value=2))
def test_format_amount_prints_what_rounding_to_kopecks_prints(digits: int, exponent: int) -> None:
    """The shortcut for amounts already in kopecks changes no printed text."""
    amount = Decimal(digits).scaleb(exponent)
    if abs(amount) >= Decimal(10) ** 18:
        with pytest.raises(ValueError):
            format_amount(amount)
    else:
        assert format_amount(amount) == _printed_by_rounding(amount)


_CELLS = (
    st.floats(allow_nan=True, allow_infinity=True, width=64)
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.decimals(places=4, min_value=-(10**15), max_value=10**15)
    | st.from_regex(r"\(?-?[0-9 \u00a0]{0,12}([,.][0-9]{0,3})?\)?", fullmatch=True)
    | st.text(max_size=12)
    | st.none()
)


@given(_CELLS)
def test_kopecks_path_reads_every_cell_as_parse_amount_does(value: object) -> None:
    """The ОСВ's integer fast path is the Decimal path in other units: same amount or None."""
    from services.excel.values import parse_kopecks

    amount = parse_amount(value)
    kopecks = parse_kopecks(value)
    assert kopecks == (None if amount is None else int(amount * 100))


@given(st.integers(min_value=-(10**19), max_value=10**19))
def test_kopecks_format_as_format_amount_does(kopecks: int) -> None:
    """format_kopecks(k) is format_amount(k / 100) for every whole number of kopecks."""
    from services.excel.values import format_kopecks

    assert format_kopecks(kopecks) == format_amount(Decimal(kopecks) / 100)
