"""Sample files for the demo, written in code: an ОСВ (XLSX), statements as XLSX, XLS and
XLSB, and a balance sheet as a text-layer PDF.

Every amount is consistent (totals add up, the balance balances), so a working system ends
each job in `done`; the layouts follow what 1C exports (see shared/notes/domain.md).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from services.devstack.workbooks import (
    CellInput,
    SheetSpec,
    write_xls,
    write_xlsb,
    write_xlsx,
)

__all__ = ["Sample", "font_path", "samples"]

ORG_NAME = "ООО «Северный ветер»"
ORG_INN = "7728168971"

Row = list[CellInput]
Lines = Sequence[tuple[str, str, tuple[CellInput, ...]]]


@dataclass(frozen=True, slots=True)
class Sample:
    """One file the demo uploads."""

    name: str
    data: bytes
    description: str


# -- ОСВ -------------------------------------------------------------------------------------

# account, name, (opening D, opening C, turnover D, turnover C, closing D, closing C)
OSV_ACCOUNTS: list[tuple[str, str, tuple[int | None, ...]]] = [
    ("01", "Основные средства", (500000, None, 100000, None, 600000, None)),
    ("02", "Амортизация основных средств", (None, 100000, None, 20000, None, 120000)),
    ("51", "Расчетные счета", (300000, None, 800000, 700000, 400000, None)),
    ("60", "Расчеты с поставщиками и подрядчиками", (None, 200000, 600000, 500000, None, 100000)),
    ("62", "Расчеты с покупателями и заказчиками", (150000, None, 900000, 800000, 250000, None)),
    ("80", "Уставный капитал", (None, 10000, None, None, None, 10000)),
    (
        "84",
        "Нераспределенная прибыль (непокрытый убыток)",
        (None, 640000, None, None, None, 640000),
    ),
    ("90", "Продажи", (None, None, None, 380000, None, 380000)),
]


def osv_sheet() -> SheetSpec:
    """A 1C ОСВ: title block, two-row merged header (with spacer columns), body, Итого."""
    rows: list[Row] = [
        [ORG_NAME],
        ["Оборотно-сальдовая ведомость за Январь 2025 г."],
        ["Выводимые данные:", "БУ (данные бухгалтерского учета)"],
        [],
        ["Счет", None, "Сальдо на начало периода", None, None, "Обороты за период", None, None,
         "Сальдо на конец периода", None, None],
        ["Код", "Наименование", "Дебет", "Кредит", None, "Дебет", "Кредит", None, "Дебет",
         "Кредит", None],
    ]  # fmt: skip
    merged = ["A5:B5", "C5:E5", "F5:H5", "I5:K5", "D6:E6", "G6:H6", "J6:K6"]
    totals = [0] * 6
    for code, name, values in OSV_ACCOUNTS:
        rows.append([code, name, *_spaced(values)])
        for index, value in enumerate(values):
            totals[index] += value or 0
    total_row = len(rows)
    rows.append(["Итого", None, *_spaced(tuple(totals))])
    merged.append(f"A{total_row + 1}:B{total_row + 1}")
    rows += [[], ["Руководитель", None, "________ / Иванов И.И. /"]]
    return SheetSpec("TDSheet", rows, merged=merged, bold_rows={4, 5, total_row})


def _spaced(values: tuple[int | None, ...]) -> list[CellInput]:
    """Debit, credit, an empty spacer column — three times."""
    out: list[CellInput] = []
    for pair in range(3):
        out += [values[2 * pair], values[2 * pair + 1], None]
    return out


# -- statements ------------------------------------------------------------------------------

BALANCE: Lines = [
    ("1150", "Основные средства", (45300, 41200, 33900)),
    ("1170", "Финансовые вложения", (2700, 2570, 1980)),
    ("1100", "Итого по разделу I", (48000, 43770, 35880)),
    ("1210", "Запасы", (15400, 14100, 12000)),
    ("1230", "Дебиторская задолженность", (30460, 27980, 25250)),
    ("1250", "Денежные средства и денежные эквиваленты", (6140, 4150, 3870)),
    ("1200", "Итого по разделу II", (52000, 46230, 41120)),
    ("1600", "БАЛАНС", (100000, 90000, 77000)),
    ("1310", "Уставный капитал (складочный капитал, уставный фонд, вклады товарищей)",
     (10000, 10000, 10000)),
    ("1370", "Нераспределенная прибыль (непокрытый убыток)", (39000, 31000, 23000)),
    ("1300", "Итого по разделу III", (49000, 41000, 33000)),
    ("1410", "Заемные средства", (11000, 12800, 14600)),
    ("1400", "Итого по разделу IV", (11000, 12800, 14600)),
    ("1510", "Заемные средства", (15000, 13000, 10000)),
    ("1520", "Кредиторская задолженность", (25000, 23200, 19400)),
    ("1500", "Итого по разделу V", (40000, 36200, 29400)),
    ("1700", "БАЛАНС", (100000, 90000, 77000)),
]  # fmt: skip
BALANCE_LABELS = ("На 31 декабря 2024 г.", "На 31 декабря 2023 г.", "На 31 декабря 2022 г.")

INCOME: Lines = [
    ("2110", "Выручка", (152340, 138900)),
    ("2120", "Себестоимость продаж", ("(118 450)", "(107 300)")),
    ("2100", "Валовая прибыль (убыток)", (33890, 31600)),
    ("2210", "Коммерческие расходы", ("(5 200)", "(4 800)")),
    ("2220", "Управленческие расходы", ("(9 100)", "(8 700)")),
    ("2200", "Прибыль (убыток) от продаж", (19590, 18100)),
    ("2320", "Проценты к получению", (400, 300)),
    ("2330", "Проценты к уплате", ("(1 200)", "(1 500)")),
    ("2340", "Прочие доходы", (2100, 1900)),
    ("2350", "Прочие расходы", ("(2 890)", "(2 800)")),
    ("2300", "Прибыль (убыток) до налогообложения", (18000, 16000)),
    ("2410", "Налог на прибыль", ("(3 600)", "(3 200)")),
    ("2400", "Чистая прибыль (убыток)", (14400, 12800)),
]
INCOME_LABELS = ("За Январь - Декабрь 2024 г.", "За Январь - Декабрь 2023 г.")


def statement_sheet(
    name: str,
    title: str,
    period: str,
    okud: str,
    labels: Sequence[str],
    lines: Lines,
    *,
    report_date: str = "31.12.2024",
    organization: tuple[str, str] = (ORG_NAME, ORG_INN),
    units: tuple[str, str] = ("Единица измерения: в тыс. рублей", "384"),
) -> SheetSpec:
    """A 1C statement form: title, «Коды» block, «Пояснения | Наименование | Код | …» table
    (`organization` is its name and ИНН, `units` the units line and its ОКЕИ code)."""
    rows: list[Row] = [
        [None, title],
        [None, period],
        [None, None, None, None, None, "Коды"],
        [None, None, None, None, "Форма по ОКУД", okud],
        [None, None, None, None, "Дата (число, месяц, год)", report_date],
        ["Организация", organization[0], None, None, "по ОКПО", "12345678"],
        ["Идентификационный номер налогоплательщика", None, None, None, "ИНН", organization[1]],
        [units[0], None, None, None, "по ОКЕИ", units[1]],
        [],
        ["Пояснения", "Наименование показателя", "Код", *labels],
        [str(i) for i in range(1, 4 + len(labels))],
    ]
    rows += [[None, line_name, code, *amounts] for code, line_name, amounts in lines]
    rows += [[], ["Руководитель", None, "(подпись)", "Иванов И. И."]]
    return SheetSpec(name, rows)


def balance_sheet() -> SheetSpec:
    return statement_sheet(
        "Бухгалтерский баланс",
        "Бухгалтерский баланс",
        "на 31 декабря 2024 г.",
        "0710001",
        BALANCE_LABELS,
        BALANCE,
    )


def income_sheet() -> SheetSpec:
    return statement_sheet(
        "Отчет о финансовых результатах",
        "Отчет о финансовых результатах",
        "за Январь - Декабрь 2024 г.",
        "0710002",
        INCOME_LABELS,
        INCOME,
    )


# -- PDF -------------------------------------------------------------------------------------

FONT_CANDIDATES = (
    Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
    Path("/usr/share/fonts/dejavu/DejaVuSans.ttf"),
    Path("/usr/share/fonts/TTF/DejaVuSans.ttf"),
)


def font_path() -> Path | None:
    """A TrueType font with Cyrillic for the PDF's text layer (DejaVuSans), if installed."""
    return next((path for path in FONT_CANDIDATES if path.exists()), None)


def balance_pdf(font: Path) -> bytes:
    """The balance sheet as one landscape A4 page with a real text layer."""
    from reportlab.lib.pagesizes import A4, landscape
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.pdfgen import canvas

    if "DejaVuSans" not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(TTFont("DejaVuSans", str(font)))
    buffer = io.BytesIO()
    width, height = landscape(A4)
    pdf = canvas.Canvas(buffer, pagesize=(width, height), invariant=True)
    y = height - 50
    pdf.setFont("DejaVuSans", 12)
    pdf.drawString(40, y, "Бухгалтерский баланс на 31 декабря 2024 г.")
    y -= 24
    pdf.setFont("DejaVuSans", 10)
    for text in (
        "Форма по ОКУД 0710001",
        "Дата (число, месяц, год) 31.12.2024",
        f"Организация {ORG_NAME} по ОКПО 12345678",
        f"Идентификационный номер налогоплательщика ИНН {ORG_INN}",
        "Единица измерения: в тыс. рублей по ОКЕИ 384",
    ):
        pdf.drawString(40, y, text)
        y -= 16
    y -= 12
    pdf.drawString(40, y, "Наименование показателя")
    pdf.drawCentredString(380, y, "Код")
    pdf.drawCentredString(520, y, BALANCE_LABELS[0])
    pdf.drawCentredString(730, y, BALANCE_LABELS[1])
    y -= 20
    for code, name, amounts in BALANCE:
        # A long name would run into the code column: print it as 1C's printed form does.
        pdf.drawString(40, y, name if len(name) < 50 else name.split(" (")[0])
        pdf.drawCentredString(380, y, code)
        pdf.drawCentredString(520, y, _printed(amounts[0]))
        pdf.drawCentredString(730, y, _printed(amounts[1]))
        y -= 17
    pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def _printed(amount: CellInput) -> str:
    if isinstance(amount, int):
        return f"{amount:,}".replace(",", " ")
    return str(amount)


# -- the set ---------------------------------------------------------------------------------


def samples() -> list[Sample]:
    """The demo's files; the PDF only when a Cyrillic font is installed."""
    statements = [balance_sheet(), income_sheet()]
    out = [
        Sample("osv-january-2025.xlsx", write_xlsx([osv_sheet()]), "ОСВ (trial balance), XLSX"),
        Sample("statements-2024.xlsx", write_xlsx(statements), "balance + ОФР, XLSX"),
        Sample("balance-2024.xls", write_xls([balance_sheet()]), "balance, XLS (BIFF8)"),
        Sample("income-2024.xlsb", write_xlsb([income_sheet()]), "ОФР, XLSB (BIFF12)"),
    ]
    font = font_path()
    if font is not None:
        out.append(Sample("balance-2024.pdf", balance_pdf(font), "balance, PDF with text layer"))
    return out
