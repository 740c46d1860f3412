"""Statement sheets laid out as real exports draw them, built in code (no sample is copied).

Each builder gives a `SheetSpec` for one class of layout the recogniser met in real files:

- `nfo_balance`: a balance of a non-credit financial organisation (ОКУД 0420002): a grid of
  «по ОКПО | основной государственный регистрационный номер» headers with the codes under
  them, the name above its caption «(полное фирменное наименование …)», «(руб.)» alone, the
  form's own line numbers, a notes column «Пояснения к строкам», amounts that happen to be
  catalogue codes (1600, 2110, 13102);
- `nfo_income`: an ОФР of such an organisation (ОКУД 0420003) with a two-level merged header
  «Данные за квартал» / «Данные нарастающим итогом» × «Текущий» / «Предыдущий», a notes
  column «Примечания», and a row whose neighbouring cells −13102 | 0 must stay two values;
- `coded_balance`: a balance with a «Код» column whose header cell is `code_header`
  (blank for a header-less code column), or whose left column is headed otherwise («Б/сч»).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from decimal import Decimal

from .spec import CellInput, SheetSpec

__all__ = [
    "NFO_INCOME_COLUMNS",
    "NFO_INCOME_ROWS",
    "NFO_NAME",
    "NFO_OGRN",
    "NFO_OKPO",
    "coded_balance",
    "nfo_balance",
    "nfo_income",
]

NFO_NAME = 'Общество с ограниченной ответственностью "Северная трастовая компания"'
NFO_OKPO = "05868571"
NFO_OGRN = "1166196113379"
Row = list[CellInput]

# (number, name, note, current, previous): the form's own numbering, notes as printed.
NFO_BALANCE_ROWS: tuple[tuple[str, str, str | None, float, float], ...] = (
    ("1", "Денежные средства", "5", 320521.16, 79948.93),
    ("2", "Займы выданные и прочие размещенные средства", "11", 1600.0, 2110.0),
    ("3", "Нематериальные активы", "18", 159923.92, 206778.32),
    ("4", "Прочие активы", "20", 13102.0, 214370.76),
    ("5", "Итого активов", None, 495147.08, 503208.01),
)
NFO_LIABILITY_ROWS: tuple[tuple[str, str, str | None, float, float], ...] = (
    ("6", "Кредиторская задолженность", "26", 13112.11, 11470.55),
    ("7", "Итого обязательств", None, 13112.11, 11470.55),
)
NFO_INCOME_COLUMNS = (
    ("Данные за квартал", "Текущий (квартал)", "Предыдущий (квартал)"),
    ("Данные нарастающим итогом", "Текущий (Нарастающим)", "Предыдущий (Нарастающим)"),
)
# (number, name, note, quarter current, quarter previous, ytd current, ytd previous)
NFO_INCOME_ROWS: tuple[tuple[float, str, str | None, float, float, float, float], ...] = (
    (1.0, "процентные доходы", "34", 343777.13, 265425.66, 697027.61, 530525.12),
    (2.0, "Выручка от оказания услуг", "41", 1925253.62, 1597557.59, 3615757.59, 2943755.8),
    (3.0, "Расходы на персонал", "42", -1604052.0, -1015109.58, -3079819.77, -1329097.41),
    (4.0, "Доход (расход) по налогу на прибыль", "48", -13102.0, -119578.0, -13102.0, -119578.0),
    (5.0, "доход (расход) по отложенному налогу на прибыль", "48", -13102.0, 0.0, 13102.0, 0.0),
)


def _pad(row: Sequence[CellInput], width: int) -> Row:
    return [*row, *([None] * (width - len(row)))]


def _nfo_title(
    title: str, okud: str, width: int
) -> tuple[list[Row], list[tuple[int, int, int, int]]]:
    """Rows 0..13: the codes grid, title, date, name over its caption, address, ОКУД, units."""
    rows: list[Row] = [
        [],
        [None, None, "Отчетность некредитной финансовой организации"],
        [None, None, "Код территории по ОКАТО", "Код некредитной финансовой организации"],
        [None, None, None, "по ОКПО", "основной государственный регистрационный номер"],
        [None, None, "60401372000", NFO_OKPO, NFO_OGRN],
        [],
        [title],
        ["на 30 июня 2019 г."],
        [NFO_NAME],
        ["(полное фирменное наименование и сокращенное фирменное наименование)"],
        ["Почтовый адрес: 344082, г. Ростов-на-Дону, Братский пер., д. 56"],
        [None, None, None, None, f"Код формы по ОКУД: {okud}"],
        [None, None, None, None, "Первое полугодие"],
        [None, None, None, None, "(руб.)"],
        [],
    ]
    merged = [(1, 2, 1, width - 1), (2, 2, 3, 2), (2, 3, 2, 4), (6, 0, 6, width - 1)]
    return [_pad(r, width) for r in rows], merged


def _signature(width: int) -> list[Row]:
    """The signer's row (a blank to sign on, the name) over a row of captions only."""
    return [
        [],
        _pad(["Генеральный директор", None, "________________", None, "Иванов И. И."], width),
        _pad(["(должность руководителя)", None, "(подпись)", None, "(инициалы, фамилия)"], width),
    ]


def nfo_balance(name: str = "TDSheet") -> SheetSpec:
    """A 0420002 balance: «Номер строки | Наименование показателя | Пояснения к строкам | two dates»."""
    width = 5
    rows, merged = _nfo_title(
        "БУХГАЛТЕРСКИЙ БАЛАНС НЕКРЕДИТНОЙ ФИНАНСОВОЙ ОРГАНИЗАЦИИ", "0420002", width
    )
    rows.append(
        [
            "Номер строки",
            "Наименование показателя",
            "Пояснения к строкам",
            "30 июня 2019 г.",
            "31 декабря 2018 г.",
        ]
    )
    rows.append(["1", "2", "3", "4", "5"])
    for section, lines in (
        ("Раздел I. Активы", NFO_BALANCE_ROWS),
        ("Раздел II. Обязательства", NFO_LIABILITY_ROWS),
    ):
        rows.append(["Раздел", section, "Х", "Х", "Х"])
        rows.extend(
            [number, text, note, current, previous]
            for number, text, note, current, previous in lines
        )
    rows.extend(_signature(width))
    return SheetSpec(name, rows, merged=merged)


def nfo_income(name: str = "TDSheet") -> SheetSpec:
    """A 0420003 ОФР with a merged two-level header over four value columns."""
    width = 7
    rows, merged = _nfo_title(
        "ОТЧЕТ О ФИНАНСОВЫХ РЕЗУЛЬТАТАХ НЕКРЕДИТНОЙ ФИНАНСОВОЙ ОРГАНИЗАЦИИ", "0420003", width
    )
    top = len(rows)
    (quarter, q_now, q_before), (ytd, y_now, y_before) = NFO_INCOME_COLUMNS
    rows.append(["№ строки", "Наименование", "Примечания", quarter, None, ytd, None])
    rows.append([None, None, None, q_now, q_before, y_now, y_before])
    rows.append([str(i) for i in range(1, width + 1)])
    rows.append(["Раздел", "Раздел I. Прибыли и убытки", "Х", "Х", "Х", "Х", "Х"])
    rows.extend([*line] for line in NFO_INCOME_ROWS)
    rows.extend(_signature(width))
    merged += [(top, 0, top + 1, 0), (top, 1, top + 1, 1), (top, 2, top + 1, 2)]
    merged += [(top, 3, top, 4), (top, 5, top, 6)]
    return SheetSpec(name, rows, merged=merged)


CODED_LINES: tuple[tuple[str, str, int, int], ...] = (
    ("1150", "Основные средства", 13896, 14232),
    ("1230", "Дебиторская задолженность", 2110, 1600),
    ("1250", "Денежные средства и денежные эквиваленты", 1230, 1150),
    ("1600", "БАЛАНС", 17236, 16982),
)


def coded_balance(code_header: str | None, name: str = "Баланс") -> SheetSpec:
    """A titled balance «Наименование показателя | <code_header> | two dates» whose amounts
    include numbers that are catalogue codes (2110, 1600, 1230, 1150)."""
    rows: list[Row] = [
        ["Бухгалтерский баланс"],
        ["на 31 декабря 2024 г."],
        ["Единица измерения: тыс. руб."],
        [],
        ["Наименование показателя", code_header, "На 31 декабря 2024 г.", "На 31 декабря 2023 г."],
    ]
    rows.extend(
        [text, code, Decimal(now), Decimal(before)] for code, text, now, before in CODED_LINES
    )
    rows.append(["Руководитель", None, "(подпись)", dt.date(2025, 3, 25)])
    return SheetSpec(name, rows)
