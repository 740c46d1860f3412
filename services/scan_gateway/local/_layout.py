"""Positioned words → one item: text lines above the table, and the table's grid.

Each cell keeps the box of its words, and each row the box of its cells, turned into fractions
of the page as uploaded by the caller's `Frame` (the evidence an analyst checks a value by).

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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from services.arm_statements import fold
from services.scan_gateway._codes import known_code
from services.scan_gateway.local._raster import HRule, Rule
from services.scan_gateway.resultset import (
    Box,
    Cell,
    Column,
    Item,
    Row,
    Table,
    TextLine,
    Word,
)

__all__ = ["Frame", "PlacedWord", "Reread", "Stamped", "layout_page"]

Reread = Callable[[float, float, float, float, bool], tuple[str, float] | None]
Stamped = Callable[[float, float, float, float], bool]
"""Whether a stamp or signature overlaps the box (x0, top, x1, bottom)."""
_UNDER_STAMP = 40.0
"""The confidence of a value whose cell a stamp overlaps: under the review threshold (80)."""
Frame = Callable[[Box], Box]
"""A box in the words' units (x0, top, x1, bottom) → the same place as fractions of the page."""

_CODE = re.compile(r"^\d{4,5}$")
_OPEN_PAREN = re.compile(r"\(\s+")
_CLOSE_PAREN = re.compile(r"\s+\)")
_HEADER_LINES = 4  # a header spread over more lines is a title block, not a header
# an amount as printed: digit groups of three, optionally in parentheses or after a minus
_CLEAN_AMOUNT = re.compile(
    r"^(\(\d{1,3}( \d{3})*([.,]\d+)?\)|-?\d{1,3}( \d{3})*([.,]\d+)?|\d+|\(\d+\)|[-–—])$"
)
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
    return fold(text).strip(" .:")


def _is_header(clusters: list[_Cluster]) -> bool:
    texts = [_fold(c.text) for c in clusters]
    return any(_code_heading(t) for t in texts) or (
        len(clusters) >= 3 and any("наименование" in t or "пояснения" in t for t in texts)
    )


def _code_heading(text: str) -> bool:
    """A code column's heading («Код», «Код строки», «Код показателя»), not a tax-office
    cover's field label («Код вида экономической деятельности по ОКВЭД», «Код по ОКПО»,
    «Код субъекта Российской Федерации»), which starts no table."""
    words = text.split()
    return bool(words) and words[0] == "код" and (len(words) <= 2 or "строк" in text)


def layout_page(
    words: list[PlacedWord],
    page: int,
    rules: Sequence[Rule] = (),
    hrules: Sequence[HRule] = (),
    reread: Reread | None = None,
    frame: Frame | None = None,
    stamped: Stamped | None = None,
) -> Item:
    """The item of one page (one table at most); `rules` and `hrules` are the page's vertical
    and horizontal ruling lines (none for a text layer); `reread` OCRs one box of the page
    again, digits only (x0, x1, top, bottom, code?) → (text, confidence), or None; `frame`
    places the cells' boxes on the page (without one the item carries no boxes); `stamped`
    tells the value cells a stamp overlaps (their values lose their confidence: a figure half
    hidden reads short, «1» for «1 200», from ink outside the stamp)."""
    return _framed(_laid_out(words, page, rules, hrules, reread, stamped), frame)


def _framed(item: Item, frame: Frame | None) -> Item:
    """The item with its cells' boxes as page fractions and each row's box their union."""
    tables: list[Table] = []
    for table in item.tables:
        rows: list[Row] = []
        for row in table.rows:
            cells = tuple(
                replace(c, box=frame(c.box) if frame is not None and c.box is not None else None)
                for c in row.cells
            )
            boxes = [c.box for c in cells if c.box is not None]
            union = (
                (
                    min(b[0] for b in boxes),
                    min(b[1] for b in boxes),
                    max(b[2] for b in boxes),
                    max(b[3] for b in boxes),
                )
                if boxes
                else None
            )
            rows.append(Row(row.index, cells, union))
        tables.append(replace(table, rows=tuple(rows)))
    return replace(item, tables=tuple(tables))


def _laid_out(
    words: list[PlacedWord],
    page: int,
    rules: Sequence[Rule],
    hrules: Sequence[HRule],
    reread: Reread | None,
    stamped: Stamped | None = None,
) -> Item:
    lines = _lines([w for w in words if w.text.strip() and not _is_noise(w.text)])
    if not lines:
        return Item(name=_name(page), page=page, lines=(), tables=())
    height = statistics.median(w.bottom - w.top for line in lines for w in line) or 1.0
    clustered = [_clusters(line, height * 1.2) for line in lines]
    header_at = next((i for i, c in enumerate(clustered) if _is_header(c)), None)
    if header_at is None:
        return Item(_name(page), page, tuple(_text_line(line) for line in lines), ())
    bounds = _band_bounds(lines, header_at, height, rules, stamped)
    if bounds is None:
        return _anchored(lines, clustered, header_at, page)
    body_at = next(i for i in range(header_at, len(lines)) if _code_word(lines[i]) is not None)
    body_at = _ruled_body_start(lines, header_at, body_at, hrules)
    start = _header_start(lines, header_at, body_at)
    return _banded(
        lines[:body_at], _rows(lines[body_at:], hrules), start, bounds, page, reread, stamped
    )


def _ruled_body_start(
    lines: list[list[PlacedWord]], header_at: int, body_at: int, hrules: Sequence[HRule]
) -> int:
    """Where a ruled body begins: right under the rule that closes the header, even when the
    first rows' codes were misread («ania» for 2110) — they are rows, not header lines."""
    code = _code_word(lines[body_at])
    if code is None or body_at <= header_at + 1:
        return body_at
    x = (code.x0 + code.x1) / 2
    head_bottom = max(w.bottom for w in lines[header_at])
    first_top = min(w.top for w in lines[body_at])
    closing = [r.y for r in hrules if r.x0 <= x <= r.x1 and head_bottom < r.y < first_top]
    if not closing:
        return body_at
    rule = min(closing)
    for i in range(header_at + 1, body_at):
        if statistics.median((w.top + w.bottom) / 2 for w in lines[i]) > rule:
            return i
    return body_at


def _rows(lines: list[list[PlacedWord]], hrules: Sequence[HRule]) -> list[list[PlacedWord]]:
    """Body lines grouped into table rows: where horizontal rules cross the code column, the
    lines between two rules are one row (a value printed at the foot of a two-line cell)."""
    codes = [c for line in lines if (c := _code_word(line)) is not None]
    x = statistics.median((c.x0 + c.x1) / 2 for c in codes)
    top, bottom = min(w.top for w in lines[0]), max(w.bottom for w in lines[-1])
    crossing = [r.y for r in hrules if r.x0 <= x <= r.x1]
    ys = sorted(y for y in crossing if top - 1 <= y <= bottom + 1)
    above = [y for y in crossing if y < top - 1]
    if len(ys) >= 2 and above:
        ys.insert(0, max(above))  # the rule closing the header bounds the first row
    if len(ys) < 3:
        return _stitch(lines, statistics.median(c.x1 for c in codes))
    rows: list[list[PlacedWord]] = []
    last_slot: int | None = None
    for line in lines:
        centre = statistics.median((w.top + w.bottom) / 2 for w in line)
        slot = bisect.bisect_right(ys, centre)
        if rows and slot == last_slot and 0 < slot < len(ys):
            rows[-1] = rows[-1] + line
        else:
            rows.append(list(line))
        last_slot = slot
    return rows


def _stitch(lines: list[list[PlacedWord]], code_x1: float) -> list[list[PlacedWord]]:
    """An unruled body: a line without a code whose part right of the code column is figures
    only joins the next or previous line that has a code but no figures, when they are less than 1.6 lines apart (a
    value set a little higher or lower than its code, as text layers and filled forms do)."""

    def centre(line: list[PlacedWord]) -> float:
        return statistics.median((w.top + w.bottom) / 2 for w in line)

    def figures(line: list[PlacedWord]) -> list[PlacedWord]:
        return [w for w in line if w.x0 > code_x1]

    def figures_only(line: list[PlacedWord]) -> bool:
        right = figures(line)
        return (
            _code_word(line) is None and bool(right) and all(_looks_tabular(w.text) for w in right)
        )

    def bare_code(line: list[PlacedWord]) -> bool:
        return _code_word(line) is not None and not figures(line)

    def distance(a: list[PlacedWord], b: list[PlacedWord]) -> float:
        return abs(centre(a) - centre(b)) if a and b else float("inf")

    height = statistics.median(w.bottom - w.top for line in lines for w in line)
    rows = [list(line) for line in lines]
    for i, line in enumerate(rows):
        if not line or not figures_only(line):
            continue
        near = [j for j in (i - 1, i + 1) if 0 <= j < len(rows)]
        for j in sorted(near, key=lambda k: distance(rows[k], line)):
            if bare_code(rows[j]) and distance(rows[j], line) < height * 1.6:
                rows[j] = rows[j] + line
                rows[i] = []
                break
    return [row for row in rows if row]


def _is_noise(text: str) -> bool:
    """A «word» of marks only (no letter, digit, dash, bracket or slash): rule remnants, dust."""
    return not any(ch.isalnum() or ch in "()-–—/%№" for ch in text)


def _header_start(lines: list[list[PlacedWord]], header_at: int, body_at: int) -> int:
    """The header's first line: the «Код» line, or up to two lines above it printed only over
    the code and value columns (dates printed above a vertically centred «Код»)."""
    codes = [c for line in lines[body_at:] if (c := _code_word(line)) is not None]
    left = statistics.median(c.x0 for c in codes) - (codes[0].bottom - codes[0].top)
    start = header_at
    while start > 0 and header_at - start < 2 and all(w.x0 >= left for w in lines[start - 1]):
        start -= 1
    return start


def _code_word(line: list[PlacedWord]) -> PlacedWord | None:
    """The line's code: one a form prints (services.scan_gateway._codes)."""
    for word in line:
        text = word.text.strip(" .|")
        if _CODE.match(text) and known_code(text):
            return word
    return None


def _band_bounds(
    lines: list[list[PlacedWord]],
    header_at: int,
    height: float,
    rules: Sequence[Rule],
    stamped: Stamped | None = None,
) -> list[float] | None:
    """Column boundaries (x) of the table: its vertical rules where the body is ruled, else the
    gaps between the bands its codes and numbers occupy; None without a code column. A word a
    stamp overlaps makes no band: a stamp's own number or date («Вх. № 1547», «12.02.2025»)
    would join two columns or make a third."""
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
            figure = any(ch.isdigit() for ch in word.text)  # a bracket alone makes no band
            if stamped is not None and stamped(word.x0, word.top, word.x1, word.bottom):
                continue
            if word.x0 >= code.x0 - height and figure and _looks_tabular(word.text):
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
    above: list[list[PlacedWord]],
    body_rows: list[list[PlacedWord]],
    header_at: int,
    bounds: list[float],
    page: int,
    reread: Reread | None,
    stamped: Stamped | None = None,
) -> Item:
    """The table with each word in the column whose band holds its centre; `above` are the
    lines before the body (title block and header from `header_at`)."""

    def column_of(word: PlacedWord) -> int:
        return bisect.bisect_right(bounds, (word.x0 + word.x1) / 2)

    header_words: dict[int, list[PlacedWord]] = {}
    for line in above[max(header_at, len(above) - _HEADER_LINES - 2) :]:
        for word in line:
            header_words.setdefault(column_of(word), []).append(word)
    body: list[dict[int, list[PlacedWord]]] = []
    for line in body_rows:
        if _code_word(line) is None and not any(ch.isalnum() for w in line for ch in w.text):
            continue  # a row of dashes and rule remnants
        cells: dict[int, list[PlacedWord]] = {}
        for word in line:
            cells.setdefault(column_of(word), []).append(word)
        body.append(cells)
    codes = [c for line in body_rows if (c := _code_word(line)) is not None]
    code_at = column_of(codes[len(codes) // 2])
    if reread is not None:
        for cells in body:
            _reread_row(cells, code_at, bounds, reread)
    if stamped is not None:
        for cells in body:
            _stamp_doubt(cells, code_at, bounds, stamped)
    used = sorted({i for cells in body for i in cells} | set(header_words))
    index = {column: n for n, column in enumerate(used)}
    columns = tuple(
        Column(index[c], _join(header_words.get(c, [])), _min_conf(header_words.get(c, [])))
        for c in used
    )
    coded = [n for n, cells in enumerate(body) if _CODE.match(_join(cells.get(code_at, [])))]
    body = body[: coded[-1] + 1] if coded else body  # footnotes, signatures and stamps below
    rows = [
        Row(
            offset,
            tuple(
                Cell(index[c], _join(ws), _min_conf(ws), _words_box(ws))
                for c, ws in sorted(cells.items())
            ),
        )
        for offset, cells in enumerate(body, start=1)
    ]
    return _item(above[:header_at], columns, rows, page)


def _reread_row(
    cells: dict[int, list[PlacedWord]], code_column: int, bounds: list[float], reread: Reread
) -> None:
    """Cells the page-wide OCR misread (a code that is no code or one no form prints, an amount
    with stray marks) read again, digits only: first the cell's whole band, then, if that
    reads nothing clean (box remnants, a stamp), the words' own box; the new reading is kept
    only when it is clean. An amount pieced from two text lines is never re-read (a one-line
    read of a two-line box puts the pieces in either order): it loses its confidence, so the
    mapper flags it for review."""
    words = [w for ws in cells.values() for w in ws]
    top, bottom = min(w.top for w in words), max(w.bottom for w in words)
    margin = statistics.median(w.bottom - w.top for w in words) * 0.4
    for column, found in list(cells.items()):
        if column < code_column:
            continue
        code = column == code_column
        pattern = _CODE if code else _CLEAN_AMOUNT
        wanted = _compact(_join(found), code)
        clean = bool(pattern.match(wanted))
        if not code and not _one_line(found):
            cells[column] = [PlacedWord(w.text, w.x0, w.x1, w.top, w.bottom, 0.0) for w in found]
            continue
        if clean and (not code or known_code(wanted)):
            continue
        x0 = bounds[column - 1] if column > 0 else min(w.x0 for w in found)
        x1 = bounds[column] if column < len(bounds) else max(w.x1 for w in found)
        pad = margin * 2
        boxes = (
            (x0, x1),
            (max(min(w.x0 for w in found) - pad, x0), min(max(w.x1 for w in found) + pad, x1)),
        )
        for left, right in boxes:
            again = reread(left, right, top - margin, bottom + margin, code)
            check = _compact(again[0], code) if again is not None else ""
            # an unknown but clean code («2219») gives way only to a code some form prints
            if (
                again is not None
                and pattern.match(check)
                and (not code or not clean or known_code(check))
            ):
                # the new reading stands where the ink was read, not over the whole band
                # (the band's box takes in the cell's rules: poor evidence)
                ink = _words_box(found) or (x0, top, x1, bottom)
                cells[column] = [PlacedWord(check, ink[0], ink[2], ink[1], ink[3], again[1])]
                break


def _stamp_doubt(
    cells: dict[int, list[PlacedWord]], code_column: int, bounds: list[float], stamped: Stamped
) -> None:
    """The value cells of a row a stamp overlaps — the cell's band, not only its words' ink —
    keep their words under the review threshold."""
    words = [w for ws in cells.values() for w in ws]
    top, bottom = min(w.top for w in words), max(w.bottom for w in words)
    for column, found in list(cells.items()):
        if column <= code_column:
            continue
        x0 = bounds[column - 1] if column > 0 else min(w.x0 for w in found)
        x1 = bounds[column] if column < len(bounds) else max(w.x1 for w in found)
        if stamped(x0, top, x1, bottom):
            cells[column] = [replace(w, confidence=min(w.confidence, _UNDER_STAMP)) for w in found]


def _compact(text: str, code: bool) -> str:
    """A cell's text as checked: a code without its spaces, an amount as read."""
    return text.replace(" ", "") if code else text


def _printed_lines(words: list[PlacedWord]) -> list[list[PlacedWord]]:
    """Words of one cell grouped into printed lines, top to bottom, each left to right: a word
    belongs to a line its box overlaps by half its height (OCR boxes of one line differ in
    height — «117» and a taller «750» — so centres alone split a line and swap its words)."""
    lines: list[list[PlacedWord]] = []
    for word in sorted(words, key=lambda w: w.top):
        height = word.bottom - word.top
        for line in lines:
            top, bottom = min(w.top for w in line), max(w.bottom for w in line)
            shortest = min(height, min(w.bottom - w.top for w in line))
            if min(bottom, word.bottom) - max(top, word.top) >= shortest * 0.5:
                line.append(word)
                break
        else:
            lines.append([word])
    return [sorted(line, key=lambda w: w.x0) for line in lines]


def _one_line(words: list[PlacedWord]) -> bool:
    """The words print on one line."""
    return len(_printed_lines(words)) == 1


def _join(words: list[PlacedWord]) -> str:
    """Words of one cell in reading order (top to bottom by line, then left to right)."""
    text = " ".join(w.text for line in _printed_lines(words) for w in line)
    return _OPEN_PAREN.sub("(", _CLOSE_PAREN.sub(")", text))


def _words_box(words: list[PlacedWord]) -> Box | None:
    """The box around a cell's words (x0, top, x1, bottom, in the words' units)."""
    if not words:
        return None
    return (
        min(w.x0 for w in words),
        min(w.top for w in words),
        max(w.x1 for w in words),
        max(w.bottom for w in words),
    )


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
                _words_box([w for c in group for w in c.words]),
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
