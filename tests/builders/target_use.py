"""«Отчет о целевом использовании средств» of an НКО (lines 6100 … 6400) as a sheet, built in code.

The layout of the tax-office set (ОКУД 0710003; the 66n edition prints 0710006): title, ОКУД,
«Наименование показателя | Код | За <year> г. | За <year − 1> г.», the section captions
«Поступило средств» / «Использовано средств» as uncoded rows, and the «Использовано» lines
printed as the filer chose: negative numbers (what the bracketed cells read as) or plain
positive ones. The figures are those of the shared scanned НКО filing (6100 = 2518, 6220 =
302802, 6310 = (303964), 6400 = 1356), so a workbook and a scan can be compared.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from .spec import CellInput, SheetSpec

__all__ = ["TARGET_USE_FIGURES", "target_use_report"]

Row = list[CellInput]

TARGET_USE_FIGURES: tuple[tuple[str, str, int, int | None], ...] = (
    ("6100", "Остаток средств на начало отчетного года", 2518, 1396),
    ("6220", "Целевые взносы", 302802, 250000),
    ("6200", "Всего поступило средств", 302802, 250000),
    ("6310", "Расходы на целевые мероприятия", -303964, -248878),
    ("6300", "Всего использовано средств", -303964, -248878),
    ("6400", "Остаток средств на конец отчетного года", 1356, 2518),
)
"""(code, name, this year, last year); «Использовано» lines stored negative, as printed."""


def target_use_report(
    *,
    name: str = "Отчет о целевом использовании",
    title: bool = True,
    okud: str | None = "0710003",
    expenses: Literal["negative", "positive"] = "negative",
    end_balance: int | None = None,
    codes: bool = True,
    names: tuple[tuple[str, str], ...] = (),
) -> SheetSpec:
    """The report as a sheet; ``end_balance`` replaces this year's 6400 (a filer's error).

    ``codes=False``: no «Код» column (a hand-made or older export that prints names only);
    ``names`` replaces printed names (code → text), e.g. wordings no form prints."""
    rows: list[Row] = []
    if title:
        rows.append(["Отчет о целевом использовании средств"])
    rows.append(["за 2021 г."])
    if okud is not None:
        rows.append([None, None, "Форма по ОКУД", okud])
    rows.append(["Организация: Благотворительный фонд «Пример»", None, "ИНН", "7751188246"])
    rows.append(["Единица измерения: тыс. руб."])
    rows.append([])
    rows.append(["Наименование показателя", "Код", "За 2021 г.", "За 2020 г."])
    renamed = dict(names)
    for code, text, now, before in TARGET_USE_FIGURES:
        if code == "6220":
            rows.append(["Поступило средств"])
        if code == "6310":
            rows.append(["Использовано средств"])
        if code == "6400" and end_balance is not None:
            now = end_balance
        if expenses == "positive" and code.startswith("63"):
            now, before = abs(now), None if before is None else abs(before)
        text = renamed.get(code, text)
        rows.append([text, code, Decimal(now), None if before is None else Decimal(before)])
    rows.append(["Руководитель", None, "(подпись)"])
    if not codes:
        rows = [row[:1] + row[2:] if len(row) > 1 else row for row in rows]
    return SheetSpec(name, rows)
