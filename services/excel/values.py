"""Money in cells in whole kopecks, for sums over a large sheet, and the malformed-amount test.

Reading and writing one amount (`parse_amount`, `format_amount`) is `arm_statements.money`'s,
shared with scan-gateway; they are re-exported here for the sheet readers. Nothing here raises:
non-money gives None, and `looks_like_malformed_amount` tells a typo'd number ("1,2,3",
"(29 390)5") from ordinary text.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from services.arm_statements.money import format_amount, parse_amount

from ._kernels import native
from .model import CellValue

__all__ = [
    "format_amount",
    "format_kopecks",
    "looks_like_malformed_amount",
    "money_strings",
    "parse_amount",
    "parse_kopecks",
    "span_kopecks",
]

_MAX_KOPECKS = 10**20
_CENTS = tuple(f".{cents:02d}" if cents else "" for cents in range(100))  # "" for .00
_EXACT_FLOAT = 1e13
_MONEY_ALPHABET = re.compile(r"[\s0-9.,()+\-\u2212\u2012\u2013\u00a0\u202f\u2009\u2007]+")


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


def format_kopecks_python(kopecks: int) -> str:
    """`format_amount` of kopecks / 100: "1234" when integral, else "1234.50".

    The reference of `format_kopecks`, which is its C twin where that was built (`_kernels`).
    """
    if 100 <= kopecks < _MAX_KOPECKS:  # the common case: one str() and a table lookup
        return str(kopecks)[:-2] + _CENTS[kopecks % 100]
    if not -_MAX_KOPECKS < kopecks < _MAX_KOPECKS:
        msg = f"amount out of range: {kopecks} kopecks"
        raise ValueError(msg)
    roubles, rest = divmod(-kopecks if kopecks < 0 else kopecks, 100)
    sign = "-" if kopecks < 0 else ""
    return f"{sign}{roubles}.{rest:02d}" if rest else f"{sign}{roubles}"


def money_strings_python(values: list[int | None]) -> list[str | None]:
    """`format_kopecks` of each amount, None kept (a row's six sums at once). The reference of
    `money_strings`, its C twin where built (`_kernels`)."""
    return [None if value is None else format_kopecks_python(value) for value in values]


def span_kopecks_python(
    cells: list[CellValue], spans: tuple[tuple[int, int], ...], plain_empty: bool
) -> list[int | None] | None:
    """The kopecks of each span's first cell, when every span is decided at a glance; else None.

    At a glance means: the span's first cell is a float that is an exact kopeck amount
    (`parse_kopecks`' fast path), or the span is empty — its first cell "" or None (or past the
    row's end) and, with `plain_empty` (no formula without a value on the sheet), it is one
    column, or the row ends after its first cell, or its second and last cell is empty too.
    Anything else (text, an int, a fraction of a kopeck, a wider span…) is None: the caller's
    full rule reads that row. The reference of `span_kopecks`, its C twin where built.
    """
    values: list[int | None] = []
    width = len(cells)
    for start, end in spans:
        if start < 0 or end < 0:  # an index from the end is the full rule's to read
            return None
        value = cells[start] if start < width else None
        if type(value) is float and -_EXACT_FLOAT < value < _EXACT_FLOAT:
            kopecks = round(value * 100)
            if kopecks / 100 != value:
                return None
            values.append(kopecks)
        elif (
            _plain_empty(value)
            and plain_empty
            and (
                end == start
                or start + 1 >= width
                or (end == start + 1 and _plain_empty(cells[end]))
            )
        ):
            values.append(None)
        else:
            return None
    return values


def _plain_empty(value: object) -> bool:
    return value is None or (type(value) is str and not value)


format_kopecks: Callable[[int], str] = native("format_kopecks", format_kopecks_python)
money_strings: Callable[[list[int | None]], list[str | None]] = native(
    "money_strings", money_strings_python
)
span_kopecks: Callable[
    [list[CellValue], tuple[tuple[int, int], ...], bool], list[int | None] | None
] = native("span_kopecks", span_kopecks_python)


def looks_like_malformed_amount(text: str) -> bool:
    """True for text made of digits and money punctuation that still is not an amount."""
    stripped = text.strip()
    return (
        any(ch.isdigit() for ch in stripped)
        and _MONEY_ALPHABET.fullmatch(stripped) is not None
        and parse_amount(stripped) is None
    )
