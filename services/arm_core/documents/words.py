"""The analyst's words: Russian names of statuses, types, form variants and warnings, and
amounts as people read them (thin-space thousands, decimal comma, a real minus).

One table for the pages, the export and the API's Russian texts, so a screen and the file an
analyst sends on never name the same thing differently.
"""

from __future__ import annotations

import datetime as dt

from services.arm_statements.money import show_amount
from services.contract.words import DOCUMENT_TYPES, FORM_VARIANTS, SEVERITIES, STATUS_NAMES

__all__ = [
    "CHECK_KINDS",
    "DOCUMENT_TITLES",
    "DOCUMENT_TYPES",
    "FORM_VARIANTS",
    "LINE_STATUSES",
    "OSV_CHECKS",
    "REVIEW_STATES",
    "SEVERITIES",
    "STATUS_NAMES",
    "document_name",
    "money",
    "ru_date",
]

DOCUMENT_TITLES = {
    "BALANCE": "Бухгалтерский баланс",
    "INCOME": "Отчёт о финансовых результатах",
    "OSV": "Оборотно-сальдовая ведомость",
    "DISCLOSURE": "Пояснения",
}
LINE_STATUSES = {
    "ok": "",
    "unreadable": "код не прочитан",
    "missing": "нет кода",
    "detail": "детализация",
}
REVIEW_STATES = {
    "not_reviewed": "не проверен",
    "in_progress": "проверяется",
    "reviewed": "проверен",
}
CHECK_KINDS = {"relations_failed": "строгое", "soft_relations_failed": "мягкое"}
OSV_CHECKS = {
    "ROW_BALANCE": "сальдо на конец = сальдо на начало + обороты",
    "CHILDREN_SUM": "строка = сумма подчинённых строк",
    "TOTAL_SUM": "итог = сумма счетов",
    "DEBIT_EQUALS_CREDIT": "дебет итога = кредит итога",
}


def document_name(document_type: str | None, form_variant: str | None = None) -> str:
    """«Баланс (полная)», «ОФР (упрощённая)», «Пояснения»: a document as the lists name it."""
    name = DOCUMENT_TYPES.get(document_type or "", document_type or "документ")
    variant = FORM_VARIANTS.get(form_variant or "", form_variant)
    return f"{name} ({variant})" if variant else name


def money(amount: object) -> str:
    """An amount for people (`arm_statements.show_amount`): −1 234,56."""
    return show_amount(amount)


def ru_date(value: object) -> str:
    """An ISO date (or datetime) as people read it, 31.12.2024; anything else as it is."""
    if value is None or value == "":
        return ""
    if isinstance(value, dt.date):
        return value.strftime("%d.%m.%Y")
    try:
        return dt.date.fromisoformat(str(value)).strftime("%d.%m.%Y")
    except ValueError:
        return str(value)
