"""The CLI's Russian names of statuses, document types, form variants and severities.

The analyst reads the summaries, the progress and the export in Russian; the codes stay in
`--json` and at the start of a batch line. Kept here rather than imported from arm-core's
`documents/words.py`: the CLI must not import the core (decision 0033).
"""

from __future__ import annotations

__all__ = ["KINDS", "SEVERITIES", "STATUSES", "VARIANTS", "seconds"]

STATUSES = {
    "queued": "в очереди",
    "published": "отправлен",
    "processing": "распознаётся",
    "done": "готово",
    "needs_check": "нужна проверка",
    "error": "ошибка",
    "timeout": "нет ответа",
    "dlq": "не доставлен",
}
KINDS = {"BALANCE": "Баланс", "INCOME": "ОФР", "OSV": "ОСВ", "DISCLOSURE": "Пояснения"}
VARIANTS = {"full": "полная", "simplified": "упрощённая"}
SEVERITIES = {"error": "ошибка", "warning": "предупреждение", "info": "сведения"}


def seconds(value: float) -> str:
    """«4,2 с»: seconds with a decimal comma, as the summaries write numbers."""
    return f"{value:.1f} с".replace(".", ",")
