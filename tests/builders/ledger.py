"""1C ledger reports laid out in code, as real exports print them (shared/notes/domain.md).

Each is a `SheetSpec` for the workbook writers. The amounts are round integers on purpose
(25000, 80000, 1500): the shapes a statements recogniser once took for line codes.
"""

from __future__ import annotations

from .spec import CellInput, SheetSpec

__all__ = [
    "account_analysis",
    "account_card",
    "bank_turnover_statement",
    "chart_of_accounts",
    "eps_turnover_statement",
    "flat_turnover_table",
    "postings_report",
    "turnover_of_account",
    "turnover_with_indicators",
    "unreadable_balance_table",
]

ORG = 'ООО "Ромашка"'
Row = list[CellInput]


def account_analysis(account: str = "51", name: str = "Лист_1") -> SheetSpec:
    """«Анализ счета 51 за 2024 г.»: Кор. счет × Дебет / Кредит, with opening and closing
    balances, a level column left of the report (as 1C's flat export prints it)."""
    rows: list[Row] = [
        ["Уровень", "Курсив", f"Анализ счета {account} за 2024 г."],
        [0, 0],
        [0, 0, "Выводимые данные: БУ (данные бухгалтерского учета)"],
        [0, 0, "Счет", "Кор. Счет", "Дебет", "Кредит"],
        [0, 0, account, "Начальное сальдо", 14203365.65],
        [2, 0, None, "60", None, 44960],
        [2, 0, None, "62", 25000],
        [2, 0, None, "66", 80000],
        [2, 0, None, "91", None, 1500],
        [0, 0, account, "Оборот", 105000, 46460],
        [0, 0, account, "Конечное сальдо", 14261905.65],
    ]
    return SheetSpec(name, rows)


def account_card(account: str = "60.01", name: str = "Карточка") -> SheetSpec:
    """«Карточка счета 60.01»: one posting a row, Дебет / Кредит and a running balance."""
    rows: list[Row] = [
        [ORG],
        [f"Карточка счета {account} за Январь 2024 г."],
        [],
        ["Период", "Документ", "Операция", "Дебет", "Кредит", "Текущее сальдо"],
        ["Сальдо на начало", None, None, None, None, 1500],
        ["09.01.2024", "Поступление 12", "Поставщик", 1210, None, 2710],
        ["15.01.2024", "Списание 3", "Оплата", None, 2110, 600],
        ["Обороты за период и сальдо на конец", None, None, 1210, 2110, 600],
    ]
    return SheetSpec(name, rows)


def postings_report(name: str = "Проводки") -> SheetSpec:
    """«Отчет по проводкам»: Дт / Кт accounts and an amount column."""
    rows: list[Row] = [
        [ORG],
        ["Отчет по проводкам за 1 квартал 2024 г."],
        ["Дата", "Документ", "Дт", "Кт", "Сумма"],
        ["10.01.2024", "Поступление 1", "41.01", "60.01", 1210],
        ["11.01.2024", "Оплата 2", "60.01", "51", 1230],
        ["12.01.2024", "Реализация 3", "62.01", "90.01", 2110],
    ]
    return SheetSpec(name, rows)


def chart_of_accounts(name: str = "План") -> SheetSpec:
    """A chart of accounts: codes and names, no amounts."""
    rows: list[Row] = [
        ["План счетов бухгалтерского учета"],
        ["Код", "Наименование", "Вид"],
        ["01", "Основные средства", "А"],
        ["51", "Расчетные счета", "А"],
        ["60", "Расчеты с поставщиками и подрядчиками", "АП"],
    ]
    return SheetSpec(name, rows)


def flat_turnover_table(name: str = "Свод") -> SheetSpec:
    """A flat table a processing script built from an ОСВ: machine column names, leaf rows."""
    rows: list[Row] = [
        ["Исх.файл", "Субконто", "Дебет_начало", "Кредит_начало", "Дебет_оборот", "Кредит_оборот"],
        ["МЗП_10.xlsx", "Адсорбенты", 1210, None, 1500, 2110],
        ["МЗП_10.xlsx", "Соя", 2400, None, 25000, 80000],
        ["МЗП_10.xlsx", "Шрот", 3000, None, 1230, 1240],
    ]
    return SheetSpec(name, rows)


def unreadable_balance_table(name: str = "TDSheet") -> SheetSpec:
    """Balances and turnovers with neither a title nor Дебет / Кредит under the balances:
    one balance column a side is no ОСВ header the reader knows."""
    rows: list[Row] = [
        [
            "№ строки",
            "Счет",
            "Входящие остатки",
            "Обороты-дебет",
            "Обороты-кредит",
            "Исходящие остатки",
        ],
        [1, "205.01", 1210, 2110, 1500, 1820],
        [2, "206.01", 2400, 1230, 1240, 2390],
        [3, "603.12", 1600, 2400, 1000, 3000],
    ]
    return SheetSpec(name, rows)


def turnover_of_account(account: str = "11", name: str = "TDSheet") -> SheetSpec:
    """1C:УПП «Обороты счета 11»: the six sums on one header row, the corresponding accounts'
    columns between the turnovers (typed as numbers: 1.0 is account 01), a «Количество» row
    under each entity, «Итого» last. Every control sum holds."""
    header: Row = [None, "Субконто", None, "Нач. сальдо деб.", "Нач. сальдо кред.", "Деб. оборот"]
    header += [1.0, 60.0, "Кред. оборот", 20.0, "Кон. сальдо деб.", "Кон. сальдо кред."]
    money: Row = [1000, None, 500, 300, 200, 400, 400, 1100, None]
    quantity: Row = [10.125, None, 5.5, 5.5, None, 4.25, 4.25, 11.375, None]
    rows: list[Row] = [
        [None, ORG],
        [None, f"Обороты счета {account}"],
        [None, "Период: 1 полугодие 2025 г."],
        [None, "Выводимые данные: сумма"],
        [],
        header,
        [None, f"{account}.04", None, *money],
        [None, "Выращивание. Овцы", None, *money],
        [None, "Количество", None, *quantity],
        [None, "Итого", None, *money],
    ]
    return SheetSpec(name, rows)


def turnover_with_indicators(account: str = "10", name: str = "Лист_1") -> SheetSpec:
    """1C:БП «Обороты счета 10» as a flat export: a level column left of the report, sums
    headed «Начальное сальдо Дт» … on one row, a «Показатели» column (БУ / Кол.)."""
    header: Row = [0, None, "Счет", "Показа-\nтели", "Начальное сальдо Дт", "Начальное сальдо Кт"]
    header += ["Оборот Дт", "60", "Оборот Кт", "20", "Конечное сальдо Дт", "Конечное сальдо Кт"]
    rows: list[Row] = [
        [0, None, ORG],
        [0, None, f"Обороты счета {account} за 4 квартал 2024 г."],
        [0],
        header,
        [0, None, "Номенклатура"],
        [0, None, account, "БУ", 1500, None, 700, 700, 200, 200, 2000, None],
        [0, None, None, "Кол.", 3.125, None, 1.5, 1.5, 0.5, 0.5, 4.125, None],
        [1, None, "Мука", "БУ", 1500, None, 700, 700, 200, 200, 2000, None],
        [1, None, None, "Кол.", 3.125, None, 1.5, 1.5, 0.5, 0.5, 4.125, None],
        [0, None, "Итого", "БУ", 1500, None, 700, 700, 200, 200, 2000, None],
        [0, None, None, "Кол.", 3.125, None, 1.5, 1.5, 0.5, 0.5, 4.125, None],
    ]
    return SheetSpec(name, rows, outline_levels={7: 1, 8: 1})


def bank_turnover_statement(name: str = "Sheet1") -> SheetSpec:
    """A bank's «Оборотная ведомость по балансовым счетам»: 4-digit balance accounts in a
    «Б/сч» column, balances by side (Актив / Пассив), turnovers by Дебет / Кредит. Account
    1011 does not balance (as the real export's do not); 1020 and 1030 have fractions of a
    kopeck, and 1030 balances only before its sums are rounded (1000.005 + 0.005 = 1000.01)."""
    rows: list[Row] = [
        ["Название банка"],
        ["Оборотная ведомость по балансовым счетам"],
        ["за период с 01.01.2016 по 31.12.2016"],
        [None, None, None, None, None, None, "в руб."],
        ["Б/сч", "ВХОДЯЩЕЕ САЛЬДО", None, "ОБОРОТЫ", None, "ИСХОДЯЩЕЕ САЛЬДО"],
        [None, "Актив", "Пассив", "Дебет", "Кредит", "Актив", "Пассив"],
        ["КЛАСС  1  Денежные средства"],
        ["1010", 1500.0, 0.0, 700.0, 200.0, 2000.0, 0.0],
        ["1011", 1210.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        ["1020", 2400.005, 0.0, 100.0, 0.0, 2500.01, 0.0],
        ["1030", 1000.005, 0.0, 0.005, 0.0, 1000.01, 0.0],
    ]
    return SheetSpec(name, rows, merged=[(4, 1, 4, 2), (4, 3, 4, 4), (4, 5, 4, 6)])


def eps_turnover_statement(name: str = "TDSheet") -> SheetSpec:
    """A non-credit financial organisation's оборотная ведомость by ЕПС accounts: one balance
    column per group over руб. / вал. / итого, the side («…Актив» / «…Пассив.») in the first
    column, a column-numbering row under the header, «Итого по активу» then «Итого по
    пассиву». Debit and credit balance: Σ актив = Σ пассив, Σ Дт turnovers = Σ Кт."""

    def sums(opening: int, debit: int, credit: int, closing: int) -> Row:
        return [v for amount in (opening, debit, credit, closing) for v in (amount, 0, amount)]

    active, passive = "А.Балансовые счета. Актив", "А.Балансовые счета. Пассив."
    groups = ["Входящие остатки", "Обороты-дебет", "Обороты-кредит", "Исходящие остатки"]
    header: Row = ["№ строки", None]
    for group in groups:
        header += [group, None, None]
    rows: list[Row] = [
        header,
        ["Номер строки", "Счет ЕПС", *(["руб.", "вал.", "итого"] * 4)],
        [str(n) for n in range(14)],
        [active, "205.01", *sums(1500, 700, 200, 2000)],
        [active, "603.12", *sums(1210, 0, 10, 1200)],
        [active, "Итого по активу (баланс) Балансовые счета:", *sums(2710, 700, 210, 3200)],
        [passive, "102.08", *sums(2000, 0, 0, 2000)],
        [passive, "603.05", *sums(710, 210, 700, 1200)],
        [passive, "Итого по пассиву (баланс) Балансовые счета:", *sums(2710, 210, 700, 3200)],
    ]
    merged = [(0, 2 + 3 * g, 0, 4 + 3 * g) for g in range(4)]
    return SheetSpec(name, rows, merged=merged)
