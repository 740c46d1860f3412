"""The one text a sheet that gives no document gets: what was seen on it, what to export instead.

Asked once per such sheet by the statements recogniser (its SHEET_OTHER) and, for a sheet no
warning speaks of, by the routing's RECOGNITION_FAILED message. It names what an analyst would
look for: the title (a form's title when one is printed, else the first text that stands alone
in its row, as titles do; a column header is none), an ОКУД code,
the shape of the numbers (how many columns hold amounts, over how many rows, whether a column of
line codes is there and of which form), and how many catalogue line names were found.
"""

from __future__ import annotations

import re

from services.arm_statements import codes_said, fold, names_said, okud_in_cells, title_kind
from services.excel.model import CellValue, Sheet
from services.excel.text import cell_text, squash
from services.tabular_parser.statements._classify import DocumentKind, name_texts
from services.tabular_parser.statements._table import code_column_codes

__all__ = ["describe_sheet", "empty_form_message", "other_sheet_message"]

_TITLE_ROWS = 20
_TITLE_CHARS = 80
_SCAN_ROWS = 2000  # enough to see a sheet's shape; a large sheet is not walked whole
_VALUE_COLUMN_MIN = 3  # cells with numbers for a column to count as a value column
_OKUD = re.compile(r"(?:окуд\D{0,20}(\d{7}))|\b(0710\d{3}|04200\d{2}|0409\d{3})\b", re.IGNORECASE)
_LINE_CODE = re.compile(r"\d{4,5}")
_LETTER = re.compile(r"[A-Za-zА-Яа-яЁё]{3}")
_EXPORT_FORMS = (
    "выгрузите из 1С бухгалтерский баланс (ОКУД 0710001), отчёт о финансовых результатах "
    "(0710002) или оборотно-сальдовую ведомость"
)
_EXPORT_LINES = "выгрузите форму с кодами строк и суммами за отчётные периоды"
_FORM_NAMES: dict[DocumentKind, str] = {
    "BALANCE": "бухгалтерский баланс",
    "INCOME": "отчёт о финансовых результатах",
    "DISCLOSURE": "пояснения",
}
_MESSAGE_CHARS = 500


def other_sheet_message(sheet: Sheet) -> str:
    """SHEET_OTHER of a sheet that is no form: what it shows and what to send instead."""
    seen = describe_sheet(sheet)
    if seen == "лист пуст":
        return f"Лист «{sheet.name}»: лист пуст; документ не создан"
    return (
        f"Лист «{sheet.name}»: не форма отчётности и не оборотно-сальдовая ведомость "
        f"(на листе: {seen}); документ не создан; {_EXPORT_FORMS}"
    )[:_MESSAGE_CHARS]


def empty_form_message(sheet: Sheet, kind: DocumentKind) -> str:
    """SHEET_OTHER of a balance / ОФР sheet whose table gave no line with an amount."""
    return (
        f"Лист «{sheet.name}»: похоже на {_FORM_NAMES[kind]} (на листе: {describe_sheet(sheet)}), "
        f"но в таблице не найдено ни одной строки формы с суммой; документ не создан; "
        f"{_EXPORT_LINES}"
    )[:_MESSAGE_CHARS]


def describe_sheet(sheet: Sheet) -> str:
    """«заголовок «…»; ОКУД …; таблица: столбцов с числами — N, строк с числами — M, <codes>;
    наименований строк из справочника форм: K», or «лист пуст»."""
    rows = sheet.rows[:_SCAN_ROWS]
    if not any(cell_text(v) for row in rows for v in row):
        return "лист пуст"
    parts: list[str] = []
    if (title := _title(rows)) is not None:
        parts.append(f"заголовок «{title}»")
    if (okud := _okud(rows)) is not None:
        parts.append(f"ОКУД {okud}")
    parts.append(_shape(sheet, rows))
    if (names := names_said(name_texts(sheet))) is not None:
        parts.append(names)
    return "; ".join(parts)


def _title(rows: list[list[CellValue]]) -> str | None:
    """The form title printed in the first rows, else the first text alone in its row."""
    texts: list[str] = []
    alone: list[str] = []
    for row in rows[:_TITLE_ROWS]:
        cells = [squash(v) for v in row if isinstance(v, str) and v.strip()]
        texts.extend(t for t in cells if _LETTER.search(t))
        if len(cells) == 1 and _LETTER.search(cells[0]) and not any(_number(v) for v in row):
            alone.append(cells[0])
    text = next((t for t in texts if title_kind(t) is not None), alone[0] if alone else None)
    if text is None:
        return None
    return text if len(text) <= _TITLE_CHARS else text[: _TITLE_CHARS - 1] + "…"


def _number(value: CellValue) -> bool:
    return isinstance(value, float | int) and not isinstance(value, bool)


def _okud(rows: list[list[CellValue]]) -> str | None:
    for row in rows[: _TITLE_ROWS * 2]:
        if (okud := okud_in_cells([s for v in row if (s := fold(cell_text(v)))])) is not None:
            return okud
        for value in row:
            if isinstance(value, str) and (match := _OKUD.search(value)) is not None:
                return match[1] or match[2]
    return None


def _shape(sheet: Sheet, rows: list[list[CellValue]]) -> str:
    numbers: dict[int, int] = {}
    codes: dict[int, int] = {}
    value_rows = 0
    for row in rows:
        seen = False
        for col, value in enumerate(row):
            if _number(value):
                numbers[col] = numbers.get(col, 0) + 1
                seen = True
            elif isinstance(value, str) and _LINE_CODE.fullmatch(value.strip()):
                codes[col] = codes.get(col, 0) + 1
        value_rows += seen
    least = min(_VALUE_COLUMN_MIN, value_rows)  # a two-row table still has its columns
    columns = sum(1 for count in numbers.values() if least and count >= least)
    if not columns:
        return "нет столбцов с числами"
    catalogue = codes_said(code_column_codes(sheet))
    if catalogue is not None:
        tail = f"столбец кодов строк: {catalogue}"
    elif any(count >= _VALUE_COLUMN_MIN for count in codes.values()):
        tail = "есть столбец кодов строк"
    else:
        tail = "без кодов строк"
    return f"таблица: столбцов с числами — {columns}, строк с числами — {value_rows}, {tail}"
