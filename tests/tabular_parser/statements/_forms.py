"""Statement workbooks laid out in code, as `SheetSpec`s (→ real XLSX/XLS/XLSB through
tests.builders) and as `Sheet`s (what the readers give the recogniser).

The layouts copy what real files do (shared/notes/domain.md): (a) 1C full balance + ОФР with a
«Коды» block and, since order 61n, an auditor's ИНН; (b) a ГИР БО export (code column far right,
codes and values right of their header, glued footnotes, «Дополнительные строки»); (c) both
simplified forms one under another on one sheet; (d) the 157n simplified form without a «Код»
column; (e) a balance split over two sheets; (f) an ОФР with a detail line under 2110 and a
«Дополнительные строки» table. Amounts are in thousands and every relation holds unless a test
breaks one on purpose.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from decimal import Decimal

# The *_LABELS are re-exported: the statement tests lay out their own tables under them.
from services.devstack._samples import BALANCE_LABELS as BALANCE_LABELS
from services.devstack._samples import INCOME as DEMO_INCOME
from services.devstack._samples import INCOME_LABELS as INCOME_LABELS
from services.excel import load_workbook
from services.excel.model import CellRange, CellValue, Sheet
from tests.builders import CellInput, SheetSpec, merge_bounds, write_xls, write_xlsb, write_xlsx

ORG_NAME = "Общество с ограниченной ответственностью «Северный ветер»"
ORG_INN = "7728168971"
AUDITOR_INN = "7707083893"
ADDRESS = "125009, г. Москва, ул. Тверская, д. 7"
NBSP = "\u00a0"

Row = list[CellInput]

# code → (name, amounts per column); a string amount is printed as text.
BALANCE_ACTIVE: list[tuple[str, str, tuple[CellInput, ...]]] = [
    ("1110", "Нематериальные активы", (120, 150, 180)),
    ("1150", "Основные средства", (45300, 41200, 33900)),
    ("1170", "Финансовые вложения", (2000, 2000, 1500)),
    ("1180", "Отложенные налоговые активы", (580, 420, 300)),
    ("1100", "Итого по разделу I", (48000, 43770, 35880)),
    ("1210", "Запасы", (15400, 14100, 12000)),
    ("1220", "Налог на добавленную стоимость по приобретенным ценностям", (210, 180, 150)),
    ("1230", "Дебиторская задолженность", ("30 250", f"27{NBSP}800", 25100)),
    ("1250", "Денежные средства и денежные эквиваленты", (6140, 4150, 3870)),
    ("1260", "Прочие оборотные активы", ("-", "-", "-")),
    ("1200", "Итого по разделу II", (52000, 46230, 41120)),
    ("1600", "БАЛАНС", (100000, 90000, 77000)),
]
BALANCE_PASSIVE: list[tuple[str, str, tuple[CellInput, ...]]] = [
    (
        "1310",
        "Уставный капитал (складочный капитал, уставный фонд, вклады товарищей)",
        (10000, 10000, 10000),
    ),
    ("1320", "Собственные акции, выкупленные у акционеров", ("(500)", "(500)", "(-)")),
    ("1360", "Резервный капитал", (500, 500, 500)),
    ("1370", "Нераспределенная прибыль (непокрытый убыток)", (39000, 31000, 22500)),
    ("1300", "Итого по разделу III", (49000, 41000, 33000)),
    ("1410", "Заемные средства", (10000, 12000, 14000)),
    ("1420", "Отложенные налоговые обязательства", (1000, 800, 600)),
    ("1400", "Итого по разделу IV", (11000, 12800, 14600)),
    ("1510", "Заемные средства", (15000, 13000, 10000)),
    ("1520", "Кредиторская задолженность", (24000, 22200, 18400)),
    ("1540", "Оценочные обязательства", (1000, 1000, 1000)),
    ("1500", "Итого по разделу V", (40000, 36200, 29400)),
    ("1700", "БАЛАНС", (100000, 90000, 77000)),
]


def _onec_income() -> list[tuple[str | None, str, tuple[CellInput, ...]]]:
    """The demo's 1C ОФР (services/devstack) as a real export gives it: the 2120 amount
    printed with a no-break space, the tax broken down (2411, 2412), the 2500 total last."""
    lines: list[tuple[str | None, str, tuple[CellInput, ...]]] = []
    for code, name, amounts in DEMO_INCOME:
        if code == "2120":
            amounts = (str(amounts[0]).replace(" ", NBSP), *amounts[1:])
        lines.append((code, name, amounts))
        if code == "2410":
            lines += [
                ("2411", "в т.ч. текущий налог на прибыль", ("(3 700)", "(3 300)")),
                ("2412", "отложенный налог на прибыль", (100, 100)),
            ]
    lines.append(("2500", "Совокупный финансовый результат периода", (14400, 12800)))
    return lines


INCOME = _onec_income()
DETAIL_NAME = "в том числе от продажи продукции собственного производства"
DETAIL_AMOUNTS = (120100, 110500)


def pad(row: Sequence[CellInput], width: int) -> Row:
    return [*row, *([None] * (width - len(row)))]


def codes_block(okud: str, date_text: str, *, with_auditor: bool = True) -> list[Row]:
    """The 1C title + «Коды» block: labels in column E, codes in F (and G for ОКФС)."""
    rows: list[Row] = [
        [None, None, None, None, None, "Коды"],
        [None, None, None, None, "Форма по ОКУД", okud],
        [None, None, None, None, "Дата (число, месяц, год)", date_text],
        ["Организация", ORG_NAME, None, None, "по ОКПО", "12345678"],
        ["Идентификационный номер налогоплательщика", None, None, None, "ИНН", ORG_INN],
        ["Вид экономической деятельности", "Оптовая торговля", None, None, "по ОКВЭД 2", "46.90"],
        [
            "Организационно-правовая форма / форма собственности",
            "Общество с ограниченной ответственностью / Частная собственность",
            None,
            None,
            "по ОКОПФ / ОКФС",
            "12300",
            "16",
        ],
        ["Единица измерения: в тыс. рублей", None, None, None, "по ОКЕИ", "384"],
        ["Местонахождение (адрес)", ADDRESS],
    ]
    if with_auditor:
        rows += [
            ["Бухгалтерская отчетность подлежит обязательному аудиту", "ДА"],
            [
                "Наименование аудиторской организации/фамилия, имя, отчество (при наличии) "
                "индивидуального аудитора",
                "АО «Аудит-Гарант»",
            ],
            [
                "Идентификационный номер налогоплательщика аудиторской организации/индивидуального "
                "аудитора",
                None,
                None,
                None,
                "ИНН",
                AUDITOR_INN,
            ],
            [
                "Основной государственный регистрационный номер аудиторской организации/"
                "индивидуального аудитора",
                None,
                None,
                None,
                "ОГРН/ОГРНИП",
                "1027700132195",
            ],
        ]
    return rows


def statement_table(
    labels: Sequence[str],
    lines: Sequence[tuple[str | None, str, tuple[CellInput, ...]]],
    *,
    sections: Mapping[str, str] | None = None,
) -> list[Row]:
    """«Пояснения | Наименование показателя | Код | periods…», numbering row, lines."""
    rows: list[Row] = [["Пояснения", "Наименование показателя", "Код", *labels]]
    rows.append([str(i) for i in range(1, 4 + len(labels))])
    for code, name, amounts in lines:
        if sections and code is not None and code in sections:
            rows.append([None, sections[code]])
        rows.append([None, name, code, *amounts])
    return rows


def signature_rows() -> list[Row]:
    return [[], ["Руководитель", None, "(подпись)", "Иванов И. И."], ["«25» марта 2025 г."]]


def onec_balance(name: str = "Бухгалтерский баланс") -> SheetSpec:
    """(a) 1C full balance: title, «Коды» block with the auditor, three dated columns."""
    sections = {
        "1110": "I. ВНЕОБОРОТНЫЕ АКТИВЫ",
        "1210": "II. ОБОРОТНЫЕ АКТИВЫ",
        "1310": "III. КАПИТАЛ И РЕЗЕРВЫ",
        "1410": "IV. ДОЛГОСРОЧНЫЕ ОБЯЗАТЕЛЬСТВА",
        "1510": "V. КРАТКОСРОЧНЫЕ ОБЯЗАТЕЛЬСТВА",
    }
    rows: list[Row] = [[None, "Бухгалтерский баланс"], [None, "на 31 декабря 2024 г."]]
    rows += codes_block("0710001", "31.12.2024")
    rows.append([])
    table = statement_table(BALANCE_LABELS, [*BALANCE_ACTIVE, *BALANCE_PASSIVE], sections=sections)
    table.insert(2, [None, "АКТИВ"])
    passive_at = next(i for i, r in enumerate(table) if r[1:2] == ["III. КАПИТАЛ И РЕЗЕРВЫ"])
    table.insert(passive_at, [None, "ПАССИВ"])
    rows += table + signature_rows()
    return SheetSpec(name, [pad(r, 7) for r in rows])


def onec_income(
    name: str = "Отчет о финансовых результатах", *, detail: bool = True, additional: bool = False
) -> SheetSpec:
    """(a)/(f) 1C full ОФР; ``detail``: a codeless line under 2110; ``additional``: a ГИР БО
    «Дополнительные строки» table after the main one, whose codes mean something else."""
    rows: list[Row] = [
        [None, "Отчет о финансовых результатах"],
        [None, "за Январь - Декабрь 2024 г."],
    ]
    rows += codes_block("0710002", "31.12.2024", with_auditor=False)
    rows.append([])
    lines = list(INCOME)
    if detail:
        lines.insert(1, (None, DETAIL_NAME, DETAIL_AMOUNTS))
    table = statement_table(INCOME_LABELS, lines)
    rows += table
    if additional:
        rows += [
            [],
            [None, "Дополнительные строки"],
            [None, "Наименование показателя", "Код", *INCOME_LABELS],
            [None, "Выручка от реализации прочих активов", "2110", 999, 888],
            [None, "Прочие расходы по дополнительным строкам", "2120", "(77)", "(66)"],
        ]
    rows += signature_rows()
    return SheetSpec(name, [pad(r, 7) for r in rows])


def other_sheet(name: str = "Справка") -> SheetSpec:
    """A sheet that is no statement."""
    return SheetSpec(name, [["Справка о кредиторах"], ["Контрагент", "Сумма"], ["ООО Альфа", 1500]])


def onec_workbook() -> list[SheetSpec]:
    return [onec_balance(), onec_income(), other_sheet()]


# (b) ГИР БО ---------------------------------------------------------------------------------
GIRBO_BALANCE: list[tuple[str, str, tuple[CellInput, ...]]] = [
    ("1150", "Основные средства5", (5000, 4000, 3000)),
    ("1100", "Итого по разделу I", (5000, 4000, 3000)),
    ("1210", "Запасы", (2000, 1500, 1000)),
    ("1230", "Дебиторская задолженность6", (2500, 2000, 1500)),
    ("1250", "Денежные средства и денежные эквиваленты", (500, 500, 500)),
    ("1200", "Итого по разделу II", (5000, 4000, 3000)),
    ("1600", "БАЛАНС", (10000, 8000, 6000)),
    ("1310", "Уставный капитал", (10, 10, 10)),
    ("1370", "Нераспределенная прибыль (непокрытый убыток)", (3990, 2990, 1990)),
    ("1300", "Итого по разделу III", (4000, 3000, 2000)),
    ("1520", "Кредиторская задолженность", (6000, 5000, 4000)),
    ("1500", "Итого по разделу V", (6000, 5000, 4000)),
    ("1700", "БАЛАНС", (10000, 8000, 6000)),
]
GIRBO_INCOME: list[tuple[str, str, tuple[CellInput, ...]]] = [
    ("2110", "Выручка7", (50000, 40000)),
    ("2120", "Себестоимость продаж", ("(29 390)5", "(25 000)")),
    ("2100", "Валовая прибыль (убыток)", (20610, 15000)),
    ("2210", "Коммерческие расходы", ("(5 000)", "(4 000)")),
    ("2200", "Прибыль (убыток) от продаж", (15610, 11000)),
    ("2300", "Прибыль (убыток) до налогообложения", (15610, 11000)),
    ("2410", "Налог на прибыль8", ("(3 122)", "(2 200)")),
    ("2400", "Чистая прибыль (убыток)", (12488, 8800)),
]
GIRBO_CODE_HEADER = 10  # «Код строки» merged K:L, codes printed in L
GIRBO_WIDTH = 21


def _girbo_sheet(
    name: str,
    knd_title: str,
    title: str,
    date_line: str,
    labels: Sequence[str],
    lines: Sequence[tuple[str, str, tuple[CellInput, ...]]],
    extra: Sequence[Row] = (),
) -> SheetSpec:
    header_row = 4
    rows: list[Row] = [[None] * GIRBO_WIDTH for _ in range(header_row + 1)]
    rows[0][14] = knd_title
    rows[1][0] = title
    rows[2][0] = date_line
    rows[header_row][0] = "Наименование показателя"
    rows[header_row][8] = "Пояснения"
    rows[header_row][GIRBO_CODE_HEADER] = "Код строки"
    merged: list[tuple[int, int, int, int]] = [
        (header_row, 0, header_row, 7),
        (header_row, 8, header_row, 9),
        (header_row, GIRBO_CODE_HEADER, header_row, GIRBO_CODE_HEADER + 1),
    ]
    for i, label in enumerate(labels):
        start = 12 + 3 * i
        rows[header_row][start] = label
        merged.append((header_row, start, header_row, start + 2))
    for code, line_name, amounts in lines:
        row: Row = [None] * GIRBO_WIDTH
        row[0] = line_name
        row[GIRBO_CODE_HEADER + 1] = code
        for i, amount in enumerate(amounts):
            row[13 + 3 * i] = amount  # one column right of its header cell
        merged.append((len(rows), 0, len(rows), 7))
        rows.append(row)
    rows += [pad(r, GIRBO_WIDTH) for r in extra]
    return SheetSpec(name, rows, merged=merged)


def girbo_workbook() -> list[SheetSpec]:
    """(b) ГИР БО export: «Сведения об организации», balance, ОФР with «Дополнительные строки»."""
    info = SheetSpec(
        "Сведения об организации",
        [
            ["Сведения об организации"],
            ["Полное наименование", ORG_NAME],
            ["ИНН", ORG_INN],
            ["Адрес", ADDRESS],
        ],
    )
    balance = _girbo_sheet(
        "Бухгалтерский баланс",
        "Форма по КНД 0710099",
        "Бухгалтерский баланс",
        "на 31 декабря 2023 г.",
        ("На 31 декабря 2023 г.", "На 31 декабря 2022 г.", "На 31 декабря 2021 г."),
        GIRBO_BALANCE,
    )
    extra: list[Row] = [[]]
    extra.append(["Дополнительные строки"])
    add_header: Row = [None] * GIRBO_WIDTH
    add_header[0], add_header[GIRBO_CODE_HEADER] = "Наименование показателя", "Код строки"
    extra.append(add_header)
    add_line: Row = [None] * GIRBO_WIDTH
    add_line[0], add_line[GIRBO_CODE_HEADER + 1], add_line[13], add_line[16] = (
        "Справочно: дивиденды",
        "2110",
        123,
        456,
    )
    extra.append(add_line)
    income = _girbo_sheet(
        "Отчет о финансовых результатах",
        "Форма по КНД 0710099",
        "Отчет о финансовых результатах",
        "за Январь - Декабрь 2023 г.",
        ("За Январь - Декабрь 2023 г.", "За Январь - Декабрь 2022 г."),
        GIRBO_INCOME,
        extra,
    )
    return [info, balance, income]


# (c) simplified, both forms on one sheet ----------------------------------------------------
SIMPLIFIED_BALANCE: list[tuple[str, str, tuple[CellInput, ...]]] = [
    ("1150", "Материальные внеоборотные активы", (100, 90)),
    ("1170", "Нематериальные, финансовые и другие внеоборотные активы", (50, 40)),
    ("1210", "Запасы", (200, 150)),
    ("1250", "Денежные средства и денежные эквиваленты", (350, 300)),
    ("1230", "Финансовые и другие оборотные активы", (300, 220)),
    ("1600", "БАЛАНС", (1000, 800)),
    ("1300", "Капитал и резервы", (400, 300)),
    ("1410", "Долгосрочные заемные средства", (100, 100)),
    ("1450", "Другие долгосрочные обязательства", (50, 50)),
    ("1510", "Краткосрочные заемные средства", (150, 100)),
    ("1520", "Кредиторская задолженность", (250, 200)),
    ("1550", "Другие краткосрочные обязательства", (50, 50)),
    ("1700", "БАЛАНС", (1000, 800)),
]
SIMPLIFIED_INCOME: list[tuple[str, str, tuple[CellInput, ...]]] = [
    ("2110", "Выручка", (5000, 4500)),
    ("2120", "Расходы по обычной деятельности", ("(4 000)", "(3 700)")),
    ("2330", "Проценты к уплате", ("(100)", "-")),
    ("2340", "Прочие доходы", (300, 200)),
    ("2350", "Прочие расходы", ("(200)", "(100)")),
    ("2410", "Налоги на прибыль (доходы)", ("(200)", "(180)")),
    ("2400", "Чистая прибыль (убыток)", (800, 720)),
]


def simplified_sheet(name: str = "Упрощенная отчетность") -> SheetSpec:
    """(c) simplified balance and ОФР one under another (КНД 0710096), codes printed."""
    rows: list[Row] = [[None, "Бухгалтерский баланс на 31 декабря 2024 г."]]
    rows += codes_block("0710001", "31.12.2024", with_auditor=False)
    rows += statement_table(("На 31 декабря 2024 г.", "На 31 декабря 2023 г."), SIMPLIFIED_BALANCE)
    rows += [[], [None, "Отчет о финансовых результатах за 2024 г."]]
    rows += [[None, None, None, None, "Форма по ОКУД", "0710002"]]
    rows += statement_table(("За 2024 г.", "За 2023 г."), SIMPLIFIED_INCOME)
    rows += signature_rows()
    return SheetSpec(name, [pad(r, 7) for r in rows])


# (d) 157n simplified, no «Код» column -------------------------------------------------------
def codeless_157n(name: str = "стр.1") -> SheetSpec:
    """(d) 157n simplified balance like the official sample: no «Код» column, footnotes glued."""
    rows: list[Row] = [
        [None, "Бухгалтерский баланс"],
        [None, "на 31 декабря 2024 г."],
        ["Организация", "ООО «Ромашка»"],
        ["Единица измерения:", "тыс. руб."],
        [
            "Пояснения 1",
            "Наименование показателя",
            "На 31 декабря 2024 г.2",
            "На 31 декабря 2023 г.3",
            "На 31 декабря 2022 г.4",
        ],
        [None, "АКТИВ"],
    ]
    names = [
        "Материальные внеоборотные активы 5",
        "Нематериальные, финансовые и другие внеоборотные активы 6",
        "Запасы",
        "Денежные средства и денежные эквиваленты",
        "Финансовые и другие оборотные активы 7",
        "БАЛАНС",
    ]
    for line_name, (_, _, amounts) in zip(names, SIMPLIFIED_BALANCE[:6], strict=True):
        rows.append([None, line_name, *amounts, amounts[-1]])
    rows.append([None, "ПАССИВ"])
    names = [
        "Капитал",
        "Долгосрочные заемные средства",
        "Другие долгосрочные обязательства",
        "Краткосрочные заемные средства",
        "Краткосрочная кредиторская задолженность",
        "Другие краткосрочные обязательства",
        "БАЛАНС",
    ]
    for line_name, (_, _, amounts) in zip(names, SIMPLIFIED_BALANCE[6:], strict=True):
        rows.append([None, line_name, *amounts, amounts[-1]])
    return SheetSpec(name, [pad(r, 5) for r in rows])


# (e) balance split over two sheets ----------------------------------------------------------
def split_balance(*, passive_header: bool = True) -> list[SheetSpec]:
    """(e) актив on 'Баланс (актив)', пассив on 'Баланс (пассив)' without a title (and, with
    ``passive_header`` False, without a column header either)."""
    active_rows: list[Row] = [[None, "Бухгалтерский баланс"], [None, "на 31 декабря 2024 г."]]
    active_rows += codes_block("0710001", "31.12.2024")
    active_rows += statement_table(BALANCE_LABELS, BALANCE_ACTIVE)
    active = SheetSpec("Баланс (актив)", [pad(r, 7) for r in active_rows])
    passive_rows: list[Row] = [[]]
    table = statement_table(BALANCE_LABELS, BALANCE_PASSIVE)
    passive_rows += table if passive_header else table[2:]
    passive = SheetSpec("Баланс (пассив)", [pad(r, 7) for r in passive_rows])
    return [active, passive]


# conversions --------------------------------------------------------------------------------
def with_cell(spec: SheetSpec, row: int, col: int, value: CellInput) -> SheetSpec:
    """A copy of ``spec`` with one cell replaced (to break a relation, garble a code…)."""
    rows = [list(r) for r in spec.rows]
    while len(rows[row]) <= col:
        rows[row].append(None)
    rows[row][col] = value
    return replace(spec, rows=rows)


def find_cell(spec: SheetSpec, value: CellInput) -> tuple[int, int]:
    """The first position holding ``value``."""
    for r, row in enumerate(spec.rows):
        for c, cell in enumerate(row):
            if cell == value:
                return r, c
    msg = f"{value!r} not in {spec.name}"
    raise KeyError(msg)


def to_sheet(spec: SheetSpec) -> Sheet:
    """The `Sheet` a reader gives for ``spec`` (values by position, merged ranges)."""
    rows: list[list[CellValue]] = [
        [float(v) if isinstance(v, Decimal) else v for v in row] for row in spec.rows
    ]
    merged = [CellRange(*merge_bounds(m)) for m in spec.merged]
    return Sheet(spec.name, rows, merged=merged)


def to_sheets(specs: Sequence[SheetSpec]) -> list[Sheet]:
    return [to_sheet(s) for s in specs]


def read_back(specs: Sequence[SheetSpec], fmt: str) -> list[Sheet]:
    """``specs`` written as a real XLSX / XLS / XLSB and read by the project's reader."""
    writers = {"XLSX": write_xlsx, "XLS": write_xls, "XLSB": write_xlsb}
    return load_workbook(writers[fmt](specs)).sheets
