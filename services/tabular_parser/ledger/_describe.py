"""What a sheet nothing recognised shows, in a few Russian words, for the analyst.

The message must let an analyst know what to send instead, so it names what was seen: the
first title-like text, an ОКУД code, and the shape of the numbers (how many columns hold
amounts, over how many rows, and whether a column of 4–5 digit line codes is there).
"""

from __future__ import annotations

import re

from services.tabular_parser.excel.model import CellValue, Sheet
from services.tabular_parser.excel.text import squash

__all__ = ["describe_sheet"]

_TITLE_ROWS = 20
_TITLE_CHARS = 80
_SCAN_ROWS = 2000  # enough to see a sheet's shape; a large sheet is not walked whole
_VALUE_COLUMN_MIN = 3  # cells with numbers for a column to count as a value column
_OKUD = re.compile(r"(?:окуд\D{0,20}(\d{7}))|\b(0710\d{3}|04200\d{2}|0409\d{3})\b", re.IGNORECASE)
_LINE_CODE = re.compile(r"\d{4,5}")
_LETTER = re.compile(r"[A-Za-zА-Яа-яЁё]{3}")


def describe_sheet(sheet: Sheet) -> str:
    """«заголовок «…», ОКУД …, таблица: столбцов с числами — N, строк с числами — M, без кодов строк»."""
    rows = sheet.rows[:_SCAN_ROWS]
    if not any(v not in (None, "") for row in rows for v in row):
        return "лист пуст"
    parts: list[str] = []
    if (title := _title(rows)) is not None:
        parts.append(f"заголовок «{title}»")
    if (okud := _okud(rows)) is not None:
        parts.append(f"ОКУД {okud}")
    parts.append(_shape(rows))
    return ", ".join(parts)


def _title(rows: list[list[CellValue]]) -> str | None:
    for row in rows[:_TITLE_ROWS]:
        for value in row:
            if isinstance(value, str) and _LETTER.search(value):
                text = squash(value)
                return text if len(text) <= _TITLE_CHARS else text[: _TITLE_CHARS - 1] + "…"
    return None


def _okud(rows: list[list[CellValue]]) -> str | None:
    for row in rows[: _TITLE_ROWS * 2]:
        for value in row:
            if isinstance(value, str) and (match := _OKUD.search(value)) is not None:
                return match[1] or match[2]
    return None


def _shape(rows: list[list[CellValue]]) -> str:
    numbers: dict[int, int] = {}
    codes: dict[int, int] = {}
    value_rows = 0
    for row in rows:
        seen = False
        for col, value in enumerate(row):
            if isinstance(value, bool):
                continue
            if isinstance(value, float | int):
                numbers[col] = numbers.get(col, 0) + 1
                seen = True
            elif isinstance(value, str) and _LINE_CODE.fullmatch(value.strip()):
                codes[col] = codes.get(col, 0) + 1
        value_rows += seen
    columns = sum(1 for count in numbers.values() if count >= _VALUE_COLUMN_MIN)
    if not columns:
        return "нет столбцов с числами"
    coded = any(count >= _VALUE_COLUMN_MIN for count in codes.values())
    tail = "есть столбец кодов строк" if coded else "без кодов строк"
    return f"таблица: столбцов с числами — {columns}, строк с числами — {value_rows}, {tail}"
