"""The Russian names the pages show for the core's statuses and types."""

from __future__ import annotations

__all__ = ["DOCUMENT_TYPES", "LINE_STATUSES", "STATUS_NAMES"]

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
LINE_STATUSES = {
    "ok": "",
    "unreadable": "код не прочитан",
    "missing": "нет кода",
    "detail": "детализация",
}
