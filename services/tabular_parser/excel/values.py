"""Money in cells: floats, ints and Russian-formatted texts to `Decimal` kopecks, and back.

calamine returns numbers as binary floats, so a float goes through its shortest repr
(`0.1 + 0.2` → "0.30000000000000004" → 0.30) before rounding half-up to kopecks. Texts from
1C/HTML exports use spaces (regular, NBSP, narrow NBSP, thin) between thousands and a comma
decimal; negatives come as "-1 234,00", "−1 234", or "(1 234)". Dashes and empty texts mean
"no amount". Nothing here raises: non-money gives None, and `looks_like_malformed_amount`
tells a typo'd number ("1,2,3", "(29 390)5") from ordinary text.
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation

__all__ = [
    "format_amount",
    "format_kopecks",
    "looks_like_malformed_amount",
    "parse_amount",
    "parse_kopecks",
]

_KOPECKS = Decimal("0.01")
_ZERO_KOPECKS = Decimal("0.00")
# Larger than any amount a statement prints (10^18 roubles); beyond it a cell is not money, and
# quantizing it would overflow the decimal context.
_MAX_AMOUNT = Decimal(10) ** 18
_MAX_KOPECKS = 10**20
_CENTS = tuple(f".{cents:02d}" if cents else "" for cents in range(100))  # "" for .00
_EXACT_FLOAT = 1e13
_CONTEXT = Context(prec=40)
_SPACES = dict.fromkeys(map(ord, " \u00a0\u202f\u2009\u2007\t"), None)
_MINUSES = "-\u2212\u2012\u2013"
_EMPTY_MARKS = frozenset({"", "-", "—", "–", "\u2212", "(-)", "(—)", "(–)"})
_NUMBER_CHARS = re.compile(r"[0-9.,]+")
_MONEY_ALPHABET = re.compile(r"[\s0-9.,()+\-\u2212\u2012\u2013\u00a0\u202f\u2009\u2007]+")


def parse_amount(value: object) -> Decimal | None:
    """A money amount rounded half-up to kopecks, or None for blanks, dashes and non-money."""
    if type(value) is float:  # calamine's numbers: the hot path of a large sheet
        return _round(Decimal(repr(value))) if math.isfinite(value) else None
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return _round(Decimal(value))
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        return _round(Decimal(repr(value)))
    if isinstance(value, Decimal):
        return _round(value) if value.is_finite() else None
    if isinstance(value, str):
        return _parse_text(value)
    return None


def format_amount(amount: Decimal) -> str:
    """Kopeck-rounded, no exponent: integral → "1234", otherwise two decimals → "1234.50"."""
    text = str(amount)
    if text[-3:-2] == "." and text[-1:].isdigit() and abs(amount) < _MAX_AMOUNT:
        # Already in kopecks (what parse_amount returns): the same text without re-rounding.
        # str() of a Decimal with two decimals has no exponent.
        if text.endswith(".00"):
            text = text[:-3]
            return "0" if text == "-0" else text
        return text
    rounded = _round(amount)
    if rounded is None:
        msg = f"amount out of range: {amount!r}"
        raise ValueError(msg)
    if rounded == rounded.to_integral_value():
        return f"{rounded.quantize(Decimal(1)):f}"
    return f"{rounded:f}"


def parse_kopecks(value: object) -> int | None:
    """`parse_amount` in whole kopecks (an exact int), for sums over a large sheet.

    A float whose shortest repr has at most two decimals is read without a Decimal (the
    rounding would change nothing); anything else goes through `parse_amount`.
    """
    if type(value) is float and -_EXACT_FLOAT < value < _EXACT_FLOAT:
        # Below 10^13 two floats are more than a kopeck apart, so when kopecks / 100 gives
        # the same float back, that two-decimal text is the float's shortest repr.
        kopecks = round(value * 100)
        if kopecks / 100 == value:
            return kopecks
    if type(value) is float and math.isfinite(value):
        text = repr(value)
        whole, _, fraction = text.partition(".")
        if len(fraction) <= 2 and "e" not in text:
            kopecks = int(whole + fraction.ljust(2, "0"))
            return kopecks if -_MAX_KOPECKS < kopecks < _MAX_KOPECKS else None
    amount = parse_amount(value)
    return None if amount is None else int(amount.scaleb(2))


def format_kopecks(kopecks: int) -> str:
    """`format_amount` of kopecks / 100: "1234" when integral, else "1234.50"."""
    if 100 <= kopecks < _MAX_KOPECKS:  # the common case: one str() and a table lookup
        return str(kopecks)[:-2] + _CENTS[kopecks % 100]
    if not -_MAX_KOPECKS < kopecks < _MAX_KOPECKS:
        msg = f"amount out of range: {kopecks} kopecks"
        raise ValueError(msg)
    roubles, rest = divmod(-kopecks if kopecks < 0 else kopecks, 100)
    sign = "-" if kopecks < 0 else ""
    return f"{sign}{roubles}.{rest:02d}" if rest else f"{sign}{roubles}"


def looks_like_malformed_amount(text: str) -> bool:
    """True for text made of digits and money punctuation that still is not an amount."""
    stripped = text.strip()
    return (
        any(ch.isdigit() for ch in stripped)
        and _MONEY_ALPHABET.fullmatch(stripped) is not None
        and _parse_text(stripped) is None
    )


def _round(amount: Decimal) -> Decimal | None:
    if abs(amount) >= _MAX_AMOUNT:
        return None
    rounded = amount.quantize(_KOPECKS, ROUND_HALF_UP, _CONTEXT)
    return rounded if rounded else _ZERO_KOPECKS


def _parse_text(text: str) -> Decimal | None:
    compact = text.translate(_SPACES)
    if compact in _EMPTY_MARKS:
        return None
    negative = False
    if compact.startswith("(") and compact.endswith(")"):
        negative, compact = True, compact[1:-1]
    if compact[:1] in _MINUSES:
        negative, compact = True, compact[1:]
    elif compact[:1] == "+":
        compact = compact[1:]
    digits = _plain_number(compact)
    if digits is None:
        return None
    try:
        amount = Decimal(digits)
    except InvalidOperation:
        return None
    return _round(-amount if negative else amount)


def _plain_number(text: str) -> str | None:
    """ "1.234.567,8" / "1,234,567.8" / "1234,5" → "1234567.8"; None when malformed."""
    if not _NUMBER_CHARS.fullmatch(text):
        return None
    last = max(text.rfind(","), text.rfind("."))
    if last < 0:
        return text
    separator = text[last]
    other = "." if separator == "," else ","
    if text.count(separator) > 1:  # only thousands separators of one kind: an integer
        return _ungroup(text, separator) if other not in text else None
    whole, fraction = text[:last], text[last + 1 :]
    if not fraction or not whole:
        return None
    if other in whole:
        grouped = _ungroup(whole, other)
        if grouped is None:
            return None
        whole = grouped
    return f"{whole}.{fraction}"


def _ungroup(text: str, separator: str) -> str | None:
    groups = text.split(separator)
    if not 1 <= len(groups[0]) <= 3 or any(len(group) != 3 for group in groups[1:]):
        return None
    return "".join(groups)
