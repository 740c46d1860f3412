"""Consistent trial balances to lay out: every control sum holds in each of them."""

from __future__ import annotations

from typing import Any

from ._builder import Built, R, Six, osv_sheet

# A general ОСВ: 01; 60 → 60.01 (two suppliers) + 60.02; 80; balanced (Dr = Cr in each pair).
GENERAL_ROWS = [
    R("01", "Основные средства", ("1000", None, "500", None, "1500", None)),
    R("60", "Расчеты с поставщиками и подрядчиками", ("100", "300", "200", "50", "200", "250")),
    R("60.01", "Расчеты с поставщиками и подрядчиками", ("100", None, "150", "50", "200", None), 1),
    R(None, "ООО «Поставщик А»", ("60", None, "100", "50", "110", None), 2),
    R(None, "ООО «Поставщик Б»", ("40", None, "50", None, "90", None), 2),
    R("60.02", "Расчеты по авансам выданным", (None, "300", "50", None, None, "250"), 1),
    R("80", "Уставный капитал", (None, "800", None, "650", None, "1450")),
]
GENERAL_TOTAL: Six = ("1100", "1100", "700", "700", "1700", "1700")

# «ОСВ по счету 62.01», subconto kinds Контрагенты → Договоры, with ИНН and КПП columns.
BY_ACCOUNT_ROWS = [
    R("62.01", None, ("1500", None, "1000", "1200", "1400", "100")),
    R(
        None,
        "ООО «Альфа»",
        ("1000", None, "600", "700", "1000", "100"),
        1,
        inn="0274000001",
        kpp="027401001",
    ),
    R(None, "Договор № 1", ("700", None, "600", "300", "1000", None), 2),
    R(None, "Договор № 2", ("300", None, None, "400", None, "100"), 2),
    R(None, "ИП Бета", ("500", None, "400", "500", "400", None), 1, inn=7701234567.0),
    R(None, "Договор № 3", ("500", None, "400", "500", "400", None), 2),
]
BY_ACCOUNT_TOTAL: Six = ("1500", None, "1000", "1200", "1400", "100")

# «ОСВ по счету 60.01», Контрагенты → Договоры: a second account for a sheet of several tables.
BY_ACCOUNT_60_ROWS = [
    R("60.01", None, (None, "500", "800", "700", None, "400")),
    R(None, "ООО «Поставщик А»", (None, "300", "500", "400", None, "200"), 1),
    R(None, "Договор № 7", (None, "300", "500", "400", None, "200"), 2),
    R(None, "ООО «Поставщик Б»", (None, "200", "300", "300", None, "200"), 1),
    R(None, "Договор № 8", (None, "200", "300", "300", None, "200"), 2),
]
BY_ACCOUNT_60_TOTAL: Six = (None, "500", "800", "700", None, "400")


def by_account_60_sheet(sheet_name: str, **options: Any) -> Built:
    """«ОСВ по счету 60.01» for 1 quarter 2025, subconto Контрагенты / Договоры."""
    return osv_sheet(
        BY_ACCOUNT_60_ROWS,
        BY_ACCOUNT_60_TOTAL,
        sheet_name=sheet_name,
        title="Оборотно-сальдовая ведомость по счету 60.01 за 1 квартал 2025 г.",
        code_and_name=False,
        kinds=("Контрагенты", "Договоры"),
        **options,
    )
