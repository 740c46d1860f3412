"""Positioned words → one item: text lines above the table, and the table's grid.

Words are grouped into lines by their vertical centres, a line into cells by wide horizontal
gaps (a column gap is much wider than a space). The table's header is the line that prints a
«Код» cell (or, failing that, «Наименование»); its cells anchor the columns, and each later
cell goes to the column whose span holds its centre. Rows after the last one with a code or a
value (signatures, footnotes) are left out. One table per page.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass

from services.scan_gateway.resultset import Cell, Column, Item, Row, Table, TextLine, Word

__all__ = ["PlacedWord", "layout_page"]

_CODE = re.compile(r"^\d{4,5}$")
_NUMBER = re.compile(r"^[(\-–—]?[\d\s.,]+\)?$|^[-–—]$")


@dataclass(frozen=True, slots=True)
class PlacedWord:
    """A word and its box (any unit, y grows downwards) and confidence 0–100."""

    text: str
    x0: float
    x1: float
    top: float
    bottom: float
    confidence: float


@dataclass(slots=True)
class _Cluster:
    words: list[PlacedWord]

    @property
    def x0(self) -> float:
        return min(w.x0 for w in self.words)

    @property
    def x1(self) -> float:
        return max(w.x1 for w in self.words)

    @property
    def centre(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)

    @property
    def confidence(self) -> float:
        return min(w.confidence for w in self.words)


def _lines(words: list[PlacedWord]) -> list[list[PlacedWord]]:
    if not words:
        return []
    height = statistics.median(w.bottom - w.top for w in words) or 1.0
    lines: list[list[PlacedWord]] = []
    centres: list[float] = []
    for word in sorted(words, key=lambda w: (w.top + w.bottom) / 2):
        centre = (word.top + word.bottom) / 2
        if lines and abs(centre - centres[-1]) <= height * 0.5:
            lines[-1].append(word)
            n = len(lines[-1])
            centres[-1] = centres[-1] + (centre - centres[-1]) / n
        else:
            lines.append([word])
            centres.append(centre)
    return [sorted(line, key=lambda w: w.x0) for line in lines]


def _clusters(line: list[PlacedWord], gap: float) -> list[_Cluster]:
    out: list[_Cluster] = []
    for word in line:
        if out and word.x0 - out[-1].x1 <= gap:
            out[-1].words.append(word)
        else:
            out.append(_Cluster([word]))
    return out


def _fold(text: str) -> str:
    return text.lower().replace("ё", "е").strip(" .:")


def _is_header(clusters: list[_Cluster]) -> bool:
    texts = [_fold(c.text) for c in clusters]
    return any(t == "код" or t.startswith("код ") for t in texts) or (
        len(clusters) >= 3 and any("наименование" in t for t in texts)
    )


def layout_page(words: list[PlacedWord], page: int) -> Item:
    """The item of one page (one table at most)."""
    lines = _lines([w for w in words if w.text.strip()])
    if not lines:
        return Item(name=_name(page), page=page, lines=(), tables=())
    height = statistics.median(w.bottom - w.top for line in lines for w in line) or 1.0
    gap = height * 1.2
    clustered = [_clusters(line, gap) for line in lines]
    header_at = next((i for i, c in enumerate(clustered) if _is_header(c)), None)
    if header_at is None:
        return Item(_name(page), page, tuple(_text_line(line) for line in lines), ())

    anchors = sorted(clustered[header_at], key=lambda c: c.x0)
    bounds = [(anchors[i].x1 + anchors[i + 1].x0) / 2 for i in range(len(anchors) - 1)]

    def column_of(cluster: _Cluster) -> int:
        return sum(cluster.centre > b for b in bounds)

    columns = tuple(Column(i, anchor.text, anchor.confidence) for i, anchor in enumerate(anchors))
    rows: list[Row] = []
    for offset, line_clusters in enumerate(clustered[header_at + 1 :], start=1):
        merged: dict[int, list[_Cluster]] = {}
        for cluster in line_clusters:
            merged.setdefault(column_of(cluster), []).append(cluster)
        cells = tuple(
            Cell(
                index,
                " ".join(c.text for c in group),
                min(c.confidence for c in group),
            )
            for index, group in sorted(merged.items())
        )
        rows.append(Row(offset, cells))
    last = max(
        (i for i, row in enumerate(rows) if any(_looks_tabular(c.text) for c in row.cells[1:])),
        default=-1,
    )
    table = Table(
        table_id=f"p{page}-t0",
        page=page,
        index=0,
        title=None,
        columns=columns,
        rows=tuple(rows[: last + 1]),
    )
    above = tuple(_text_line(line) for line in lines[:header_at])
    return Item(_name(page), page, above, (table,))


def _looks_tabular(text: str) -> bool:
    compact = text.replace(" ", "")
    return bool(_CODE.match(compact) or _NUMBER.match(text.strip()))


def _text_line(line: list[PlacedWord]) -> TextLine:
    return TextLine(tuple(Word(w.text, w.confidence) for w in line))


def _name(page: int) -> str:
    return f"page-{page}.json"
