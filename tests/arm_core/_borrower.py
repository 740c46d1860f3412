"""A borrower's documents built in code: balances, ОФРs and an ОСВ of consecutive years of one
company (the demo company of services/devstack), uploaded and recognised for real."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.app import CoreApp
from services.devstack._samples import BALANCE, INCOME, ORG_INN, ORG_NAME, Lines, statement_sheet
from tests.arm_core.web._recognition import Recognised, upload_and_recognize
from tests.builders import SheetSpec, write_xlsx

__all__ = [
    "OTHER",
    "balance_xlsx",
    "income_before_lines",
    "income_xlsx",
    "json_of",
    "last_year",
    "osv_xlsx",
    "shifted",
    "upload",
]

OTHER = ("ООО «Южный берег»", "7707083893")


def balance_xlsx(
    year: int,
    lines: Lines,
    *,
    organization: tuple[str, str] = (ORG_NAME, ORG_INN),
    units: tuple[str, str] = ("Единица измерения: в тыс. рублей", "384"),
) -> bytes:
    labels = tuple(f"На 31 декабря {y} г." for y in (year, year - 1, year - 2))
    sheet = statement_sheet(
        "Бухгалтерский баланс",
        "Бухгалтерский баланс",
        f"на 31 декабря {year} г.",
        "0710001",
        labels,
        lines,
        report_date=f"31.12.{year}",
        organization=organization,
        units=units,
    )
    return write_xlsx([sheet])


def income_xlsx(year: int, lines: Lines = INCOME) -> bytes:
    labels = (f"За Январь - Декабрь {year} г.", f"За Январь - Декабрь {year - 1} г.")
    sheet = statement_sheet(
        "Отчет о финансовых результатах",
        "Отчет о финансовых результатах",
        f"за Январь - Декабрь {year} г.",
        "0710002",
        labels,
        lines,
        report_date=f"31.12.{year}",
    )
    return write_xlsx([sheet])


def income_before_lines() -> list[Any]:
    """Year 2023's ОФР as 2024's previous column prints it (and an earlier year beside)."""
    return [(code, name, (amounts[1], amounts[1])) for code, name, amounts in INCOME]


def shifted(lines: Lines, changes: dict[str, tuple[Any, ...]]) -> list[Any]:
    """`lines` with the amounts of some codes replaced."""
    return [(code, name, changes.get(code, amounts)) for code, name, amounts in lines]


def last_year() -> list[Any]:
    """Year 2023's balance as it should be: 2024's previous columns moved one to the left."""
    return [(code, name, (*amounts[1:], amounts[-1])) for code, name, amounts in BALANCE]


async def json_of(client: httpx.AsyncClient, url: str) -> Any:
    response = await client.get(url)
    assert response.status_code == 200, response.text
    return response.json()


async def upload(
    app: CoreApp,
    client: httpx.AsyncClient,
    sessions: async_sessionmaker[AsyncSession],
    files: Sequence[tuple[str, bytes]],
) -> list[Recognised]:
    return [await upload_and_recognize(app, client, sessions, n, d) for n, d in files]


def osv_xlsx(year: int, accounts: Sequence[tuple[str, str, int | None, int | None]]) -> bytes:
    """A 1C ОСВ for the year (no ИНН: it joins its organisation by name) with closing balances
    only (opening balances equal, no turnover)."""
    rows: list[list[Any]] = [
        [ORG_NAME],
        [f"Оборотно-сальдовая ведомость за {year} г."],
        ["Выводимые данные:", "БУ (данные бухгалтерского учета)"],
        [],
        ["Счет", None, "Сальдо на начало периода", None, "Обороты за период", None,
         "Сальдо на конец периода", None],
        ["Код", "Наименование", "Дебет", "Кредит", "Дебет", "Кредит", "Дебет", "Кредит"],
    ]  # fmt: skip
    totals = [0, 0]
    for account, name, debit, credit in accounts:
        rows.append([account, name, debit, credit, None, None, debit, credit])
        totals = [totals[0] + (debit or 0), totals[1] + (credit or 0)]
    rows.append(["Итого", None, *totals, None, None, *totals])
    return write_xlsx([SheetSpec("TDSheet", rows)])
