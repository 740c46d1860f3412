"""Money: the contract's strings ``^-?\\d+(\\.\\d{1,2})?$`` (never floats), and amounts read from cells.

``parse_amount`` reads what a cell holds — calamine's binary floats through their shortest repr
(`0.1 + 0.2` → "0.30000000000000004" → 0.30) before rounding half-up to kopecks, and
Russian-formatted texts from 1C/HTML exports and OCR: spaces (regular, NBSP, narrow NBSP, thin)
between thousands, a comma decimal, negatives as "-1 234,00", "−1 234" or "(1 234)"; dashes and
empty texts mean "no amount" (``is_blank_mark``). ``format_amount`` writes it back. Both
recognisers read amounts here, so an Excel cell and a scanned one give the same number for the
same text. ``too_precise`` says a printed number has more decimals than the contract's two
(«0,013» per share): such a value is never rounded into an amount (``build_document``).
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation

__all__ = [
    "format_amount",
    "format_money",
    "is_blank_mark",
    "kopecks",
    "parse_amount",
    "parse_exact",
    "parse_money",
    "show_amount",
    "too_precise",
]

_MONEY = re.compile(r"^-?\d+(\.\d{1,2})?$")
_CENT = Decimal("0.01")
_CONTEXT = Context(prec=60)
_ZERO_KOPECKS = Decimal("0.00")
# Larger than any amount a statement prints (10^18 roubles); beyond it a cell is not money, and
# quantizing it would overflow the decimal context.
MAX_AMOUNT = Decimal(10) ** 18
_AMOUNT_CONTEXT = Context(prec=40)
_SPACES = dict.fromkeys(map(ord, " \u00a0\u202f\u2009\u2007\t"), None)
_MINUSES = "-\u2212\u2012\u2013"
_NUMBER_CHARS = re.compile(r"[0-9.,]+")
_DASH_MARKS = frozenset("-\u2010\u2011\u2012\u2013\u2014\u2015\u2212_")
"""Hyphen, the dashes (figure, en, em, horizontal bar), minus and a low line: how forms print
an empty cell."""
_CROSS_MARKS = frozenset({"x", "х"})  # Latin and Cyrillic «х», any case
_FLOAT_DIGITS = 15
"""Binary floats are read through their shortest repr; significant digits past the fifteenth
are the float's noise (0.1 + 0.2 → 0.30000000000000004), never a printed figure."""


def is_blank_mark(text: str | None) -> bool:
    """An empty cell as forms print it: nothing, a dash of any kind («-», «–», «—», «‒», «―»,
    «−», up to three of them), the same in brackets («(-)», «( - )»), or a cross «x» / «х».

    One rule for text layers, OCR and workbook cells, so a dash is never read as a figure.
    """
    if text is None:
        return True
    compact = text.translate(_SPACES).casefold()
    if compact.startswith("(") and compact.endswith(")"):
        compact = compact[1:-1]
    if compact in _CROSS_MARKS or not compact:
        return True
    return len(compact) <= 3 and all(ch in _DASH_MARKS for ch in compact)


def parse_exact(text: str | None) -> Decimal | None:
    """The number ``text`` prints, unrounded (float noise of a workbook cell's repr aside), or
    None when it prints no number."""
    if text is None:
        return None
    signed = _signed_number(text)
    if signed is None:
        return None
    negative, digits, exact = signed
    if len(digits.replace(".", "").lstrip("0")) > _FLOAT_DIGITS:
        exact = exact.quantize(
            Decimal(1).scaleb(exact.adjusted() - _FLOAT_DIGITS + 1), ROUND_HALF_UP, _AMOUNT_CONTEXT
        )
    return -exact if negative else exact


def too_precise(text: str | None) -> bool:
    """The number ``text`` prints has more than two decimals («0,013», «1 234,567»), which a
    contract amount cannot hold: rounding it would silently change the figure. Float noise of
    a workbook cell's repr («0.30000000000000004», «12345678.900000002») is no printed decimal."""
    exact = parse_exact(text)
    if exact is None:
        return False
    return exact != exact.quantize(_CENT, ROUND_HALF_UP, _AMOUNT_CONTEXT)


def format_money(amount: Decimal) -> str:
    """A contract money string: integers without decimals, otherwise two decimals; no "-0"."""
    cents = amount.quantize(_CENT, rounding=ROUND_HALF_UP, context=_CONTEXT)
    if cents == cents.to_integral_value():
        return str(int(cents))
    return f"{cents:f}"


def parse_money(value: object) -> Decimal | None:
    """A document amount as Decimal; None for null or anything that is not money.

    Contract amounts are money strings; ints and Decimals are accepted for callers that built
    the values themselves. Floats and bools are refused: they are not the contract's money.
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, Decimal):
        return value if value.is_finite() else None
    if isinstance(value, str) and _MONEY.match(value.strip()):
        try:
            return Decimal(value.strip())
        except InvalidOperation:  # pragma: no cover - the pattern admits only valid decimals
            return None
    return None


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
    if text[-3:-2] == "." and text[-1:].isdigit() and abs(amount) < MAX_AMOUNT:
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


def kopecks(amount: Decimal) -> Decimal:
    """The amount `format_amount` writes, kept a Decimal: rounded half-up to kopecks; a
    ValueError beyond MAX_AMOUNT, as there."""
    rounded = _round(amount)
    if rounded is None:
        msg = f"amount out of range: {amount!r}"
        raise ValueError(msg)
    return rounded


def _round(amount: Decimal) -> Decimal | None:
    if abs(amount) >= MAX_AMOUNT:
        return None
    rounded = amount.quantize(_CENT, ROUND_HALF_UP, _AMOUNT_CONTEXT)
    return rounded if rounded else _ZERO_KOPECKS


def _parse_text(text: str) -> Decimal | None:
    if is_blank_mark(text):
        return None
    signed = _signed_number(text)
    if signed is None:
        return None
    negative, _digits, amount = signed
    return _round(-amount if negative else amount)


def _signed_number(text: str) -> tuple[bool, str, Decimal] | None:
    """(negative, the digits, their value) of a printed number: brackets or a minus of any
    kind make it negative, grouping spaces of any kind are dropped; None for no number."""
    compact = text.translate(_SPACES)
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
        return negative, digits, Decimal(digits)
    except InvalidOperation:
        return None


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


def show_amount(amount: object) -> str:
    """An amount as a Russian analyst reads it: digits grouped by thin no-break spaces, a
    decimal comma, a real minus (−1 234 567,50); not an amount: as it is; None: empty."""
    if amount is None or amount == "":
        return ""
    try:
        value = Decimal(str(amount))
    except InvalidOperation:
        return str(amount)
    text = f"{abs(value):,}".replace(",", "\u202f").replace(".", ",")
    return f"−{text}" if value < 0 else text
