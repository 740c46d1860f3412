"""Money as the contract writes it: strings ``^-?\\d+(\\.\\d{1,2})?$``, never floats."""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation

__all__ = ["format_money", "parse_money"]

_MONEY = re.compile(r"^-?\d+(\.\d{1,2})?$")
_CENT = Decimal("0.01")
_CONTEXT = Context(prec=60)


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
