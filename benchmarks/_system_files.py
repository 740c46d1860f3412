"""The small workbook the system benchmark sends: a 1C-style ОСВ whose control sums hold.

The layout is the one the tabular-parser's ОСВ tests build (title block, two-row merged header
with spacer columns, outline levels, Итого), written here as data so the benchmark does not
import the test suite.
"""

from __future__ import annotations

from services.devstack.workbooks import CellInput, SheetSpec, write_xlsx

__all__ = ["small_osv_xlsx"]

_: None = None
_ROWS: list[list[CellInput]] = [
    ['ООО "Ромашка"'],
    ["Оборотно-сальдовая ведомость за Январь 2025 г."],
    ["Выводимые данные:", "БУ (данные бухгалтерского учета)"],
    [],
    [
        "Счет",
        _,
        "Сальдо на начало периода",
        _,
        _,
        "Обороты за период",
        _,
        _,
        "Сальдо на конец периода",
    ],
    ["Код", "Наименование", "Дебет", "Кредит", _, "Дебет", "Кредит", _, "Дебет", "Кредит"],
    ["01", "Основные средства", 1000.0, _, _, 500.0, _, _, 1500.0, _],
    ["60", "Расчеты с поставщиками и подрядчиками", 100.0, 300.0, _, 200.0, 50.0, _, 200.0, 250.0],
    ["60.01", "Расчеты с поставщиками и подрядчиками", 100.0, _, _, 150.0, 50.0, _, 200.0, _],
    [_, "ООО «Поставщик А»", 60.0, _, _, 100.0, 50.0, _, 110.0, _],
    [_, "ООО «Поставщик Б»", 40.0, _, _, 50.0, _, _, 90.0, _],
    ["60.02", "Расчеты по авансам выданным", _, 300.0, _, 50.0, _, _, _, 250.0],
    ["80", "Уставный капитал", _, 800.0, _, _, 650.0, _, _, 1450.0],
    ["Итого", _, 1100.0, 1100.0, _, 700.0, 700.0, _, 1700.0, 1700.0],
]
_MERGED = [
    (4, 0, 4, 1),
    (4, 2, 4, 4),
    (5, 3, 5, 4),
    (4, 5, 4, 7),
    (5, 6, 5, 7),
    (4, 8, 4, 10),
    (5, 9, 5, 10),
    (13, 0, 13, 1),
]
_OUTLINE = {8: 1, 9: 2, 10: 2, 11: 1}


def small_osv_xlsx() -> bytes:
    """An ОСВ of seven accounts and a total, as XLSX (about 6 KB)."""
    width = 11
    rows = [[*row, *([None] * (width - len(row)))] for row in _ROWS]
    return write_xlsx([SheetSpec("ОСВ", rows, merged=list(_MERGED), outline_levels=_OUTLINE)])
