"""A large, realistic 1C trial balance (ОСВ) written in code, for the Excel benchmark.

Layout as 1C:Бухгалтерия prints «Оборотно-сальдовая ведомость»: organisation, title and
«Выводимые данные» lines, an empty line, then the two-row merged header (Счет over Код and
Наименование; ИНН, КПП, Договор merged down; each saldo/turnover group merged over Дебет,
Кредит and a spacer column), then accounts → subaccounts → counterparties (with ИНН / КПП /
contract) as outline levels 1-3, the «Итого» row and the signature footer. Numbers are numbers;
every parent is the exact sum of its children and every row balances, so the recogniser does
all of its work and finds nothing to complain about (status done).
"""

from __future__ import annotations

import random
from decimal import Decimal

from tests.builders import CellInput, SheetSpec

__all__ = ["osv_spec"]

_HEADER_GROUPS = ("Сальдо на начало периода", "Обороты за период", "Сальдо на конец периода")
_ACCOUNTS = ("60", "62", "66", "67", "68", "69", "70", "71", "73", "76")
_SUBACCOUNTS = ("01", "02", "03", "09")
_FORMS = ("ООО", "АО", "ПАО", "ИП")
_WORDS = ("Ромашка", "Вектор", "Север", "Техснаб", "Альфа", "Гранит", "Логистик", "Энерго")
_CENT = Decimal("0.01")

Six = list[Decimal]


def osv_spec(body_rows: int, *, seed: int = 1) -> SheetSpec:
    """A sheet with about `body_rows` body rows (accounts, subaccounts and counterparties)."""
    rng = random.Random(seed)
    per_sub = max(1, body_rows // (len(_ACCOUNTS) * len(_SUBACCOUNTS)) - 1)
    rows: list[list[CellInput]] = [
        ['ООО "Ромашка и партнёры"'],
        ["Оборотно-сальдовая ведомость за 2024 г."],
        ["Выводимые данные:", "БУ (данные бухгалтерского учета)"],
        ["Отбор:", ""],
        [],
    ]
    header = len(rows)
    merged: list[tuple[int, int, int, int]] = [(header, 0, header, 1)]
    top: list[CellInput] = ["Счет", None, "ИНН", "КПП", "Договор"]
    sub: list[CellInput] = ["Код", "Наименование", None, None, None]
    merged += [(header, c, header + 1, c) for c in (2, 3, 4)]
    for group in _HEADER_GROUPS:
        col = len(top)
        top += [group, None, None]
        sub += ["Дебет", "Кредит", None]
        merged += [(header, col, header, col + 2), (header + 1, col + 1, header + 1, col + 2)]
    rows += [top, sub]
    outline: dict[int, int] = {}
    total: Six = [Decimal(0)] * 6
    for account in _ACCOUNTS:
        account_row = len(rows)
        rows.append([account, f"Расчеты по счету {account}"])
        outline[account_row] = 1
        account_sum: Six = [Decimal(0)] * 6
        for code in _SUBACCOUNTS:
            sub_row = len(rows)
            rows.append([f"{account}.{code}", f"Субсчет {account}.{code}"])
            outline[sub_row] = 2
            sub_sum: Six = [Decimal(0)] * 6
            for _ in range(per_sub):
                values = _balanced(rng)
                outline[len(rows)] = 3
                rows.append([None, _counterparty(rng), *_requisites(rng), *_money(values)])
                sub_sum = [a + b for a, b in zip(sub_sum, values, strict=True)]
            rows[sub_row] += [None, None, None, *_money(sub_sum)]
            account_sum = [a + b for a, b in zip(account_sum, sub_sum, strict=True)]
        rows[account_row] += [None, None, None, *_money(account_sum)]
        total = [a + b for a, b in zip(total, account_sum, strict=True)]
    total_row = len(rows)
    rows.append(["Итого", None, None, None, None, *_money(total)])
    merged.append((total_row, 0, total_row, 1))
    rows += [[], ["Руководитель", None, "________ / Иванов И.И. /"], []]
    rows.append(["Главный бухгалтер", None, "________ / Петрова А.А. /"])
    return SheetSpec("TDSheet", rows=rows, merged=merged, outline_levels=outline)


def _balanced(rng: random.Random) -> Six:
    """Opening and turnovers at random, closing derived so that the row balances."""
    opening_debit = _amount(rng) if rng.random() < 0.5 else Decimal(0)
    opening_credit = Decimal(0) if opening_debit else _amount(rng)
    turnover_debit, turnover_credit = _amount(rng), _amount(rng)
    closing = opening_debit - opening_credit + turnover_debit - turnover_credit
    closing_debit, closing_credit = (closing, Decimal(0)) if closing > 0 else (Decimal(0), -closing)
    return [
        opening_debit,
        opening_credit,
        turnover_debit,
        turnover_credit,
        closing_debit,
        closing_credit,
    ]


def _amount(rng: random.Random) -> Decimal:
    return (Decimal(rng.randrange(1, 10**9)) / 100).quantize(_CENT)


def _money(values: Six) -> list[CellInput]:
    """Each sum in its Дебет / Кредит cell, the spacer column empty; zero is an empty cell."""
    cells: list[CellInput] = []
    for debit, credit in zip(values[::2], values[1::2], strict=True):
        cells += [float(debit) if debit else None, float(credit) if credit else None, None]
    return cells


def _counterparty(rng: random.Random) -> str:
    return f'{rng.choice(_FORMS)} "{rng.choice(_WORDS)}-{rng.randrange(1, 10**5)}"'


def _requisites(rng: random.Random) -> list[CellInput]:
    inn = str(rng.randrange(10**9, 10**10))
    kpp = f"{inn[:4]}01001"
    return [inn, kpp, f"Договор № {rng.randrange(1, 10**4)} от 01.02.2024"]
