"""The Russian names of the contract's codes: statuses, document types, form variants,
severities, ОСВ row kinds and row fields.

The codes are the contract's (English, machine-readable); an analyst reads these names on the
pages, in the exports and in `arm-ka`'s output. One table for arm-core and the CLI (which must
not import arm-core), so a screen and a workbook never name the same thing differently.
"""

from __future__ import annotations

__all__ = [
    "DOCUMENT_TYPES",
    "FORM_VARIANTS",
    "OSV_ROW_KINDS",
    "OSV_ROW_TITLES",
    "SEVERITIES",
    "STATUS_NAMES",
]

STATUS_NAMES: dict[str, str] = {
    "queued": "в очереди",
    "published": "отправлен",
    "processing": "распознаётся",
    "done": "готово",
    "needs_check": "нужна проверка",
    "error": "ошибка",
    "timeout": "нет ответа",
    "dlq": "не доставлен",
}
DOCUMENT_TYPES = {"BALANCE": "Баланс", "INCOME": "ОФР", "OSV": "ОСВ", "DISCLOSURE": "Пояснения"}
FORM_VARIANTS = {"full": "полная", "simplified": "упрощённая"}
SEVERITIES = {"error": "ошибка", "warning": "предупреждение", "info": "сведения"}
OSV_ROW_KINDS = {
    "account": "счёт",
    "subaccount": "субсчёт",
    "subconto": "субконто",
    "total": "итог",
}
OSV_ROW_TITLES: dict[str, str] = {
    "level": "Уровень",
    "kind": "Вид",
    "account": "Счёт",
    "name": "Наименование",
    "inn": "ИНН",
    "opening_debit": "Сальдо на начало, Дт",
    "opening_credit": "Сальдо на начало, Кт",
    "turnover_debit": "Обороты, Дт",
    "turnover_credit": "Обороты, Кт",
    "closing_debit": "Сальдо на конец, Дт",
    "closing_credit": "Сальдо на конец, Кт",
}
"""The heading of each exported field of the ОСВ row (`row_index` and `ref` are the exports'
own business)."""
