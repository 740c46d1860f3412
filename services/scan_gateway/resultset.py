"""The result set of the scanning system: items of JSON, each a page with text lines and tables.

The shape is the one docs/scanning-system-protocol.md specifies; the HTTP client, the fake
server and the local recogniser all speak it, so one mapper turns any of them into documents.
`parse_item` is the one place that reads an item: anything off-shape raises `ItemInvalid`,
which the recogniser turns into a JSON_FAILED file warning for that item alone.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from services.scan_gateway.exceptions import ItemInvalid

__all__ = [
    "ITEM_FORMAT",
    "Box",
    "Cell",
    "Column",
    "Item",
    "RawResultSet",
    "Row",
    "Table",
    "TextLine",
    "Word",
    "item_to_json",
    "parse_item",
]

ITEM_FORMAT = "scan-result-item/1"


@dataclass(frozen=True, slots=True)
class Word:
    """A word as read, with how sure the reader is (0–100)."""

    text: str
    confidence: float


@dataclass(frozen=True, slots=True)
class TextLine:
    """A line of text outside the tables (titles, the «Коды» block, the organisation)."""

    words: tuple[Word, ...]

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)


@dataclass(frozen=True, slots=True)
class Column:
    """A column of a table and its header as printed."""

    index: int
    header: str
    confidence: float


Box = tuple[float, float, float, float]
"""Where something prints: (x0, y0, x1, y1) as fractions of its page's width and height, the
origin at the page's top left (the page as uploaded: a PDF page as rendered, an image as is)."""


@dataclass(frozen=True, slots=True)
class Cell:
    """A cell's text, confidence and, when the reader gives it, its box on the page."""

    column: int
    text: str
    confidence: float
    box: Box | None = None


@dataclass(frozen=True, slots=True)
class Row:
    """A body row; `index` counts the table's grid rows, header rows included."""

    index: int
    cells: tuple[Cell, ...]
    box: Box | None = None

    def cell(self, column: int) -> Cell | None:
        return next((c for c in self.cells if c.column == column), None)


@dataclass(frozen=True, slots=True)
class Table:
    """One table: `index` is its position on its page, counted from 0 (the locator's `table`)."""

    table_id: str
    page: int
    index: int
    title: str | None
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]


@dataclass(frozen=True, slots=True)
class Item:
    """One item of a result set: a page."""

    name: str
    page: int
    lines: tuple[TextLine, ...]
    tables: tuple[Table, ...]


@dataclass(slots=True)
class RawResultSet:
    """What a source delivered: the items' raw bytes by name, and the names it could not get.

    `missing` lists items the job named but that could not be fetched; `source_job_id` is the
    scanning system's job id (None for the local recogniser).
    """

    items: dict[str, bytes] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    source_job_id: str | None = None
    source: str = "scanning-system"


# -- reading -----------------------------------------------------------------------------------


def _object(value: object, where: str, part: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ItemInvalid(part, f"{where} must be an object")
    return value


def _list(value: object, where: str, part: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ItemInvalid(part, f"{where} must be an array")
    return value


def _int(value: object, where: str, part: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ItemInvalid(part, f"{where} must be an integer >= {minimum}")
    return value


def _text(value: object, where: str, part: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ItemInvalid(part, f"{where} must be a string")
    return value


def _confidence(value: object, where: str, part: str) -> float:
    if value is None:
        return 100.0
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ItemInvalid(part, f"{where} must be a number")
    return float(min(100.0, max(0.0, value)))


def _box(value: object, where: str, part: str) -> Box | None:
    """An optional box: four finite fractions 0–1 with x0 <= x1 and y0 <= y1."""
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 4:
        raise ItemInvalid(part, f"{where} must be an array of four numbers")
    numbers: list[float] = []
    for n in value:
        if isinstance(n, bool) or not isinstance(n, int | float) or not math.isfinite(n):
            raise ItemInvalid(part, f"{where} must be an array of four numbers")
        if not 0.0 <= n <= 1.0:
            raise ItemInvalid(part, f"{where} must be fractions of the page (0 to 1)")
        numbers.append(float(n))
    x0, y0, x1, y1 = numbers
    if x0 > x1 or y0 > y1:
        raise ItemInvalid(part, f"{where} must be [x0, y0, x1, y1] with x0 <= x1, y0 <= y1")
    return x0, y0, x1, y1


def _line(raw: object, where: str, part: str) -> TextLine:
    obj = _object(raw, where, part)
    words = _list(obj.get("words"), f"{where}.words", part)
    if words:
        return TextLine(
            tuple(
                Word(
                    _text(_object(w, f"{where}.words[{i}]", part).get("text"), "text", part),
                    _confidence(w.get("confidence"), f"{where}.words[{i}].confidence", part),
                )
                for i, w in enumerate(words)
            )
        )
    confidence = _confidence(obj.get("confidence"), f"{where}.confidence", part)
    text = _text(obj.get("text"), f"{where}.text", part)
    return TextLine(tuple(Word(t, confidence) for t in text.split()))


def _table(raw: object, where: str, part: str, page: int, position: int) -> Table:
    obj = _object(raw, where, part)
    columns = tuple(
        Column(
            _int(c.get("index"), f"{where}.columns[{i}].index", part),
            _text(c.get("header"), f"{where}.columns[{i}].header", part).strip(),
            _confidence(c.get("confidence"), f"{where}.columns[{i}].confidence", part),
        )
        for i, c in enumerate(
            _object(c, f"{where}.columns[{i}]", part)
            for i, c in enumerate(_list(obj.get("columns"), f"{where}.columns", part))
        )
    )
    rows: list[Row] = []
    for i, r in enumerate(_list(obj.get("rows"), f"{where}.rows", part)):
        row = _object(r, f"{where}.rows[{i}]", part)
        cells = tuple(
            Cell(
                _int(c.get("column"), f"{where}.rows[{i}].cells[{j}].column", part),
                _text(c.get("text"), f"{where}.rows[{i}].cells[{j}].text", part).strip(),
                _confidence(c.get("confidence"), f"{where}.rows[{i}].cells[{j}].confidence", part),
                _box(c.get("box"), f"{where}.rows[{i}].cells[{j}].box", part),
            )
            for j, c in enumerate(
                _object(c, f"{where}.rows[{i}].cells[{j}]", part)
                for j, c in enumerate(_list(row.get("cells"), f"{where}.rows[{i}].cells", part))
            )
        )
        rows.append(
            Row(
                _int(row.get("index", i + 1), f"{where}.rows[{i}].index", part),
                cells,
                _box(row.get("box"), f"{where}.rows[{i}].box", part),
            )
        )
    title = obj.get("title")
    return Table(
        table_id=_text(obj.get("table_id"), f"{where}.table_id", part) or f"p{page}-t{position}",
        page=_int(obj.get("page", page), f"{where}.page", part, minimum=1),
        index=_int(obj.get("index", position), f"{where}.index", part),
        title=_text(title, f"{where}.title", part).strip() or None,
        columns=columns,
        rows=tuple(rows),
    )


def parse_item(name: str, data: bytes) -> Item:
    """Read one item; `ItemInvalid` when it is not JSON or not shaped as an item."""
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise ItemInvalid(name, f"not valid JSON ({type(exc).__name__})") from None
    obj = _object(doc, "the item", name)
    page = _int(obj.get("page"), "page", name, minimum=1)
    lines = tuple(
        _line(raw, f"lines[{i}]", name)
        for i, raw in enumerate(_list(obj.get("lines"), "lines", name))
    )
    tables = tuple(
        _table(raw, f"tables[{i}]", name, page, i)
        for i, raw in enumerate(_list(obj.get("tables"), "tables", name))
    )
    return Item(name=name, page=page, lines=lines, tables=tables)


# -- writing -----------------------------------------------------------------------------------


def item_to_json(item: Item) -> dict[str, Any]:
    """The JSON form of an item (what the fake server serves and the local recogniser stores)."""
    return {
        "format": ITEM_FORMAT,
        "page": item.page,
        "lines": [
            {
                "text": line.text,
                "words": [{"text": w.text, "confidence": w.confidence} for w in line.words],
            }
            for line in item.lines
        ],
        "tables": [
            {
                "table_id": t.table_id,
                "page": t.page,
                "index": t.index,
                "title": t.title,
                "columns": [
                    {"index": c.index, "header": c.header, "confidence": c.confidence}
                    for c in t.columns
                ],
                "rows": [_row_json(r) for r in t.rows],
            }
            for t in item.tables
        ],
    }


def _row_json(row: Row) -> dict[str, Any]:
    """A row; boxes only where known (an item without them reads as before)."""
    cells: list[dict[str, Any]] = []
    for c in row.cells:
        cell: dict[str, Any] = {"column": c.column, "text": c.text, "confidence": c.confidence}
        if c.box is not None:
            cell["box"] = [round(v, 5) for v in c.box]
        cells.append(cell)
    out: dict[str, Any] = {"index": row.index, "cells": cells}
    if row.box is not None:
        out["box"] = [round(v, 5) for v in row.box]
    return out
