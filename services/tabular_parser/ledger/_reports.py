"""1C ledger reports that are not an ОСВ, found by their title or their column headers.

Looked for only on a sheet the ОСВ reader did not take: a «Обороты счета» whose six sums were
read is a trial balance, one whose sums were not found is named here. A report is recognised
by a title cell that *starts* with its name (1C prints the report name alone in a cell),
by a table header that names balances and turnovers but is no ОСВ header, or by the machine
column names of a flat table a processing script made («Дебет_начало», «Оборот_Кт»).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from services.excel.model import Sheet
from services.excel.text import squash

__all__ = ["LedgerReport", "find_ledger_report"]

_TITLE_ROWS = 15  # 1C prints the report name in the first lines
_HEADER_ROWS = 40
_ACCOUNT = r"(?:\s+(?P<account>\d{2,3}(?:\.\d{1,3})*|[А-ЯA-Z]{2}(?:\.\d{1,3})*))?"
_OSV_HINT = "выгрузите оборотно-сальдовую ведомость"


@dataclass(frozen=True, slots=True)
class _Kind:
    pattern: re.Pattern[str]
    what: str  # what the sheet is, as the message names it


_TITLES = (
    _Kind(re.compile(r"анализ\s+сч[её]та" + _ACCOUNT, re.IGNORECASE), "Анализ счета"),
    _Kind(re.compile(r"карточка\s+сч[её]та" + _ACCOUNT, re.IGNORECASE), "Карточка счета"),
    _Kind(re.compile(r"анализ\s+субконто", re.IGNORECASE), "Анализ субконто"),
    _Kind(re.compile(r"карточка\s+субконто", re.IGNORECASE), "Карточка субконто"),
    _Kind(re.compile(r"отч[её]т\s+по\s+проводкам", re.IGNORECASE), "Отчет по проводкам"),
    _Kind(re.compile(r"журнал\s+проводок", re.IGNORECASE), "Журнал проводок"),
    _Kind(re.compile(r"журнал[\s-]+ордер" + _ACCOUNT, re.IGNORECASE), "Журнал-ордер"),
    _Kind(re.compile(r"главная\s+книга", re.IGNORECASE), "Главная книга"),
    _Kind(re.compile(r"шахматная\s+ведомость", re.IGNORECASE), "Шахматная ведомость"),
    _Kind(re.compile(r"план\s+сч[её]тов", re.IGNORECASE), "План счетов"),
    _Kind(re.compile(r"обороты\s+сч[её]та" + _ACCOUNT, re.IGNORECASE), "Обороты счета"),
    _Kind(re.compile(r"оборотн\w*\s+ведомость", re.IGNORECASE), "Оборотная ведомость"),
    _Kind(
        re.compile(r"оборотно\s*-?\s*сальдов\w*\s+ведомост\w*", re.IGNORECASE),
        "Оборотно-сальдовая ведомость",
    ),
)
# Reports that are trial balances when their six sums are there: the message says they were not.
_TRIAL_BALANCE_TITLES = frozenset(
    {"Обороты счета", "Оборотная ведомость", "Оборотно-сальдовая ведомость"}
)
_BALANCE_HEADERS = (
    re.compile(
        r"сальдо\s+на\s+начало|нач\w*\.?\s+сальдо|входящ\w*\s+(?:сальдо|остат)", re.IGNORECASE
    ),
    re.compile(r"оборот", re.IGNORECASE),
    re.compile(
        r"сальдо\s+на\s+конец|кон\w*\.?\s+сальдо|исходящ\w*\s+(?:сальдо|остат)", re.IGNORECASE
    ),
)
_MACHINE_HEADER = re.compile(
    r"^(?:дебет|кредит|сальдо|оборот)\w*_\w+$|^\w+_(?:начало|конец|оборот\w*|до|ко)$",
    re.IGNORECASE,
)
_MACHINE_HEADERS = 3


@dataclass(frozen=True, slots=True)
class LedgerReport:
    """A sheet that is a ledger report but no trial balance; `message` says what to send."""

    sheet: str
    kind: str
    account: str | None
    message: str

    def warning(self) -> dict[str, Any]:
        """The file warning SHEET_OTHER for this sheet (contract: severity info)."""
        return {
            "code": "SHEET_OTHER",
            "severity": "info",
            "message": self.message,
            "locator": {"sheet": self.sheet},
        }


def find_ledger_report(sheet: Sheet) -> LedgerReport | None:
    """The ledger report this sheet is, or None when it looks like none."""
    return _by_title(sheet) or _by_machine_headers(sheet) or _by_balance_header(sheet)


def _texts(sheet: Sheet, rows: int) -> list[tuple[int, str]]:
    return [
        (r, squash(value))
        for r in range(min(rows, len(sheet.rows)))
        for value in sheet.rows[r]
        if isinstance(value, str) and value.strip()
    ]


def _by_title(sheet: Sheet) -> LedgerReport | None:
    for _, text in _texts(sheet, _TITLE_ROWS):
        for kind in _TITLES:
            match = kind.pattern.match(text)
            if match is None:
                continue
            account = match.groupdict().get("account")
            message = _title_message(sheet.name, text, kind, account)
            return LedgerReport(sheet.name, kind.what, account, message)
    return None


def _title_message(sheet: str, title: str, kind: _Kind, account: str | None) -> str:
    export = f"выгрузите ОСВ по счету {account}" if account else _OSV_HINT
    if kind.what in _TRIAL_BALANCE_TITLES:
        return (
            f"Лист «{sheet}»: «{title}» — шесть сумм ОСВ (сальдо на начало, обороты и сальдо "
            f"на конец по дебету и кредиту) в таблице не найдены, документ не создан; "
            f"{export} с этими колонками"
        )
    named = f"{kind.what} {account}" if account else kind.what
    return f"Лист «{sheet}»: {named} — не оборотно-сальдовая ведомость («{title}»); {export}"


def _by_machine_headers(sheet: Sheet) -> LedgerReport | None:
    by_row: dict[int, list[str]] = {}
    for row, text in _texts(sheet, _HEADER_ROWS):
        if _MACHINE_HEADER.match(text):
            by_row.setdefault(row, []).append(text)
    for names in by_row.values():
        if len(names) >= _MACHINE_HEADERS:
            shown = ", ".join(f"«{name}»" for name in names[:3])
            said = (
                f"плоская таблица сальдо и оборотов, собранная обработкой (столбцы {shown} …), "
                f"— не оборотно-сальдовая ведомость 1С; документ не создан; {_OSV_HINT} из 1С"
            )
            return _untitled(sheet, "Плоская таблица", said)
    return None


def _by_balance_header(sheet: Sheet) -> LedgerReport | None:
    """A header row naming balances and turnovers that the ОСВ reader could not take."""
    for r in range(min(_HEADER_ROWS, len(sheet.rows))):
        texts = [squash(v) for v in sheet.rows[r] if isinstance(v, str) and v.strip()]
        found = [any(p.search(t) for t in texts) for p in _BALANCE_HEADERS]
        if sum(found) >= 2 and found[1]:
            shown = ", ".join(f"«{t}»" for t in texts[:6])
            said = (
                f"таблица сальдо и оборотов (заголовок: {shown}) не прочитана как "
                f"оборотно-сальдовая ведомость — дебет и кредит сальдо на начало, оборотов и "
                f"сальдо на конец не найдены; документ не создан; {_OSV_HINT} 1С"
            )
            return _untitled(sheet, "Таблица сальдо и оборотов", said)
    return None


def _untitled(sheet: Sheet, kind: str, said: str) -> LedgerReport:
    """A report found by its columns, not its title: no account is known."""
    return LedgerReport(sheet.name, kind, None, f"Лист «{sheet.name}»: {said}")
