"""Chart-of-accounts codes as 1C prints them: «62», «62.01», «001», «МЦ.02», «76.АВ»."""

from __future__ import annotations

import re

from services.excel.model import CellValue

__all__ = ["account_code", "is_off_balance"]

# In a column of its own a code may be anything short and dotted; mixed with names (one
# «Счет» column holding accounts and counterparties) only numeric codes and the known
# off-balance letters count, so that a counterparty «АО» never becomes an account.
_LOOSE_CODE = re.compile(r"[0-9A-ZА-ЯЁ]{1,5}(?:\.[0-9A-Za-zА-Яа-яЁё]{1,4})*")
_STRICT_CODE = re.compile(r"(?:\d{2,3}|МЦ|НЕ|ОТ|РВ|ГТД)(?:\.[0-9A-Za-zА-Яа-яЁё]{1,4})*")
_OFF_BALANCE_NUMERIC = frozenset(f"{n:03d}" for n in range(12))
_OFF_BALANCE_LETTERS = ("МЦ", "НЕ", "ОТ", "РВ")


def account_code(value: CellValue, text: str, *, own_column: bool) -> str | None:
    """The account code a cell holds, or None.

    A float code comes from a cell Excel typed as a number (62.01 → "62.01", 1.0 → "01"):
    1C codes have two-digit segments, so one fractional digit is padded ("68.1" → "68.10").
    """
    if isinstance(value, float) and not isinstance(value, bool):
        whole, _, fraction = repr(value).partition(".")
        if fraction == "0":
            fraction = ""
        whole = whole.zfill(2)
        text = f"{whole}.{fraction.ljust(2, '0')}" if fraction else whole
    elif isinstance(value, int) and not isinstance(value, bool):
        text = str(value).zfill(2)
    pattern = _LOOSE_CODE if own_column else _STRICT_CODE
    return text if pattern.fullmatch(text) else None


def is_off_balance(code: str) -> bool:
    """001–011 (and 000), МЦ, НЕ, ОТ, РВ and their subaccounts: single-entry accounts."""
    top = code.split(".", 1)[0]
    return top in _OFF_BALANCE_NUMERIC or top.startswith(_OFF_BALANCE_LETTERS)
