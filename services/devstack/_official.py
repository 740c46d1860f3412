"""Official filings of the sample company, as ГИР БО would store them, for the local fake.

`make run ARGS=--girbo` serves them (or a file of filings in the API's shape) from a fake of
the ГИР БО public API on loopback and points arm-core at it, so a dossier of the sample
statements is held against an official filing that agrees with them.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from services.arm_statements.money import parse_amount
from services.devstack._samples import BALANCE, INCOME, ORG_INN, ORG_NAME, Lines
from services.girbo import filing

__all__ = ["official_filing", "sample_filings"]


def _stored(code: str, printed: object) -> int | None:
    """A printed amount as ГИР БО stores it: what the form prints in brackets as a positive
    number, except the full form's 2410, kept with its sign (measured on real filings; written
    apart from the reader's rule so that a test of the reader is no echo of it)."""
    amount = parse_amount(printed)
    if amount is None:
        return None
    bracketed = isinstance(printed, str) and printed.strip().startswith("(")
    return int(abs(amount) if bracketed and code != "2410" else amount)


def _columns(lines: Lines) -> Mapping[str, tuple[int | None, ...]]:
    return {code: tuple(_stored(code, a) for a in amounts) for code, _name, amounts in lines}


def official_filing(
    year: int,
    balance: Lines = BALANCE,
    income: Lines = INCOME,
    *,
    inn: str = ORG_INN,
    name: str = ORG_NAME,
    changes: Mapping[str, Decimal | int] | None = None,
) -> dict[str, Any]:
    """The filing of `year` whose forms print `balance` and `income` (printed amounts, in
    thousands); `changes` replaces the current-year amount (as stored) of some lines."""
    stored_balance = dict(_columns(balance))
    stored_income = dict(_columns(income))
    for code, amount in (changes or {}).items():
        form = stored_balance if code in stored_balance else stored_income
        form[code] = (int(amount), *form.get(code, (None,))[1:])
    return filing(inn, year, balance=stored_balance, income=stored_income, name=name)


def sample_filings() -> list[dict[str, Any]]:
    """The sample company's 2024 filing, agreeing with the sample balance and ОФР."""
    return [official_filing(2024)]
