"""A pre-2011 (order 67н) workbook built in code: a balance with 3-digit codes under a
«Наименование показателя | Код» header, then a «Отчет о прибылях и убытках» printed without
headers (the title row labels the value columns «6 | 12 | 18»), then a capital statement whose
«Код» header starts another table with 3-digit codes of its own (100 «Остаток на начало
периода», which must never be taken for the ОПУ's 100 «Прочие расходы»).

The figures are those of the public hand-made 67н workbook (shared/samples/public), so the
mapping can be compared with the real file; expenses are stored negative, as that file does.
"""

from __future__ import annotations

from .spec import CellInput, SheetSpec

__all__ = ["LEGACY_INCOME_ROWS", "legacy_67n_workbook"]

LEGACY_INCOME_ROWS: tuple[tuple[str, str, int, int, int], ...] = (
    ("Выручка (нетто) от продажи продукции", "010", 284285, 1429888, 1834740),
    ("Себестоимость проданной продукции", "020", -162482, -752367, -1011434),
    ("Валовая прибыль", "029", 121803, 677521, 823306),
    ("Коммерческие расходы", "030", -49644, -247064, -446714),
    ("Управленческие расходы", "040", -27687, -82030, -61258),
    ("Прибыль (убыток) от продаж", "050", 44472, 348427, 315334),
    ("Проценты к получению", "060", 0, 0, 0),
    ("Проценты к уплате", "070", -10888, -39230, -56705),
    ("Доходы от участия в других организациях", "080", 0, 0, 0),
    ("Прочие доходы", "090", 0, 0, 36233),
    ("Прочие расходы", "100", -5146, -11907, -69678),
    ("Прибыль (убыток) до налогообложения", "140", 28438, 297290, 225184),
    ("Отложенные налоговые активы", "141", 0, 0, 4820),
    ("Отложенные налоговые обязательства", "142", 3872, 17340, -6333),
    ("Текущий налог на прибыль", "150", -4152, -58668, -73241),
    ("Чистая прибыль (убыток) отчетного периода", "190", 20414, 221282, 163096),
)
"""(name, printed code, three periods) of the ОПУ, in print order."""


def legacy_67n_workbook() -> SheetSpec:
    """The three legacy forms one under another on one sheet."""
    rows: list[list[CellInput]] = [
        ["Наименование показателя", "Код", "6", "12", 18],
        ["Бухгалтерский баланс"],
        ["Основные средства", "120", 137101, 259228, 171694],
        ["ИТОГО по разделу I", "190", 137101, 259228, 245659],
        ["Денежные средства", "260", 101461, 310945, 375599],
        ["ИТОГО по разделу II", "290", 101461, 310945, 375599],
        ["БАЛАНС", "300", 238562, 570173, 621258],
        [],
        ["Отчет о прибылях и убытках", None, 6, 12, 18],
        ["Доходы и расходы по обычным видам деятельности"],
    ]
    for name, code, *values in LEGACY_INCOME_ROWS:
        rows.append([name, code, *values])
    rows += [
        [],
        ["Отчет об изменениях капитала", "Код"],
        [None, None, 6, 12, 18],
        ["Остаток на начало периода", "100", 108046, 241089, 316240],
        ["Чистая прибыль", "110", 12368, 30193, 17138],
        ["Остаток на конец периода", "150", 120414, 271282, 333378],
    ]
    return SheetSpec("Лист1", rows)
