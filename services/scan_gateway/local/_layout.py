"""Positioned words → one item: text lines above the table, and the table's grid.

Words are grouped into lines by their vertical centres, a line into cells by wide horizontal
gaps (a column gap is much wider than a space). The table's header is the line that prints a
«Код» cell (or, failing that, «Наименование»); its cells anchor the columns, and each later
cell goes to the column whose span holds its centre. Rows after the last one with a code or a
value (signatures, footnotes) are left out. One table per page.
"""

from __future__ import annotations

import bisect
import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from services.arm_statements import lookup_line, parent_code
from services.scan_gateway.local._raster import Rule
from services.scan_gateway.resultset import Cell, Column, Item, Row, Table, TextLine, Word

__all__ = ["PlacedWord", "layout_page"]

_CODE = re.compile(r"^\d{4,5}$")
_HEADER_LINES = 4  # a header spread over more lines is a title block, not a header
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


def layout_page(words: list[PlacedWord], page: int, rules: Sequence[Rule] = ()) -> Item:
    """The item of one page (one table at most); `rules` are the page's vertical rules."""
    lines = _lines([w for w in words if w.text.strip()])
    if not lines:
        return Item(name=_name(page), page=page, lines=(), tables=())
    height = statistics.median(w.bottom - w.top for line in lines for w in line) or 1.0
    clustered = [_clusters(line, height * 1.2) for line in lines]
    header_at = next((i for i, c in enumerate(clustered) if _is_header(c)), None)
    if header_at is None:
        return Item(_name(page), page, tuple(_text_line(line) for line in lines), ())
    bounds = _band_bounds(lines, header_at, height, rules)
    if bounds is None:
        return _anchored(lines, clustered, header_at, page)
    body_at = next(i for i in range(header_at, len(lines)) if _code_word(lines[i]) is not None)
    return _banded(lines, header_at, body_at, bounds, page)


def _code_word(line: list[PlacedWord]) -> PlacedWord | None:
    """The line's catalogue code: a 4-digit catalogue line or a 5-digit break-down of one."""
    for word in line:
        text = word.text.strip(" .|")
        if _CODE.match(text) and (lookup_line(text) is not None or parent_code(text) is not None):
            return word
    return None


def _band_bounds(
    lines: list[list[PlacedWord]], header_at: int, height: float, rules: Sequence[Rule]
) -> list[float] | None:
    """Column boundaries (x) of the table: its vertical rules where the body is ruled, else the
    gaps between the bands its codes and numbers occupy; None without a code column."""
    body = [(line, code) for line in lines[header_at:] if (code := _code_word(line)) is not None]
    if len(body) < 2:
        return None
    code_x0 = statistics.median(code.x0 for _, code in body)
    top = min(w.top for w in body[0][0])
    bottom = max(w.bottom for w in body[-1][0])
    ruled = _rule_bounds(rules, top, bottom, height)
    if len(ruled) >= 2 and sum(x > code_x0 for x in ruled) >= 2:
        return ruled
    spans: list[list[float]] = []
    for line, code in body:
        for word in line:
            if word.x0 >= code.x0 - height and _looks_tabular(word.text):
                spans.append([word.x0, word.x1])
    spans.sort()
    bands: list[list[float]] = []
    for x0, x1 in spans:
        if bands and x0 <= bands[-1][1] + height * 0.8:
            bands[-1][1] = max(bands[-1][1], x1)
        else:
            bands.append([x0, x1])
    bounds = [bands[0][0] - height]
    bounds += [(bands[i][1] + bands[i + 1][0]) / 2 for i in range(len(bands) - 1)]
    return bounds


def _rule_bounds(rules: Sequence[Rule], top: float, bottom: float, height: float) -> list[float]:
    """x of the rules that run through the table body, neighbours closer than a line merged."""
    span = bottom - top
    xs = sorted(
        r.x for r in rules if min(r.bottom, bottom) - max(r.top, top) >= min(span * 0.3, height * 3)
    )
    merged: list[float] = []
    for x in xs:
        if merged and x - merged[-1] < height:
            continue
        merged.append(x)
    return merged


def _banded(
    lines: list[list[PlacedWord]], header_at: int, body_at: int, bounds: list[float], page: int
) -> Item:
    """The table with each word in the column whose band holds its centre."""

    def column_of(word: PlacedWord) -> int:
        return bisect.bisect_right(bounds, (word.x0 + word.x1) / 2)

    header_words: dict[int, list[PlacedWord]] = {}
    for line in lines[max(header_at, body_at - _HEADER_LINES) : body_at]:
        for word in line:
            header_words.setdefault(column_of(word), []).append(word)
    body: list[dict[int, list[PlacedWord]]] = []
    for line in lines[body_at:]:
        cells: dict[int, list[PlacedWord]] = {}
        for word in line:
            cells.setdefault(column_of(word), []).append(word)
        body.append(cells)
    used = sorted({i for cells in body for i in cells} | set(header_words))
    index = {column: n for n, column in enumerate(used)}
    columns = tuple(
        Column(index[c], _join(header_words.get(c, [])), _min_conf(header_words.get(c, [])))
        for c in used
    )
    rows = [
        Row(
            offset,
            tuple(Cell(index[c], _join(ws), _min_conf(ws)) for c, ws in sorted(cells.items())),
        )
        for offset, cells in enumerate(body, start=1)
    ]
    return _item(lines[:header_at], columns, rows, page)


def _join(words: list[PlacedWord]) -> str:
    """Words of one cell in reading order (top to bottom by line, then left to right)."""
    return " ".join(w.text for w in words)


def _min_conf(words: list[PlacedWord]) -> float:
    return min((w.confidence for w in words), default=0.0)


def _anchored(
    lines: list[list[PlacedWord]], clustered: list[list[_Cluster]], header_at: int, page: int
) -> Item:
    """A table without a code column: the header line's cells anchor the columns."""
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
    return _item(lines[:header_at], columns, rows, page)


def _item(
    above: list[list[PlacedWord]], columns: tuple[Column, ...], rows: list[Row], page: int
) -> Item:
    """The page's item; rows after the last one with a code or a value (signatures) dropped."""
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
    return Item(_name(page), page, tuple(_text_line(line) for line in above), (table,))


def _looks_tabular(text: str) -> bool:
    compact = text.replace(" ", "")
    return bool(_CODE.match(compact) or _NUMBER.match(text.strip()))


def _text_line(line: list[PlacedWord]) -> TextLine:
    return TextLine(tuple(Word(w.text, w.confidence) for w in line))


def _name(page: int) -> str:
    return f"page-{page}.json"
