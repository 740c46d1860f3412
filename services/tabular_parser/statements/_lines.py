"""The lines of a statement table: code, name and one value per value column.

A row is a line when it prints a code (readable or not), or, in a form with a «Код» column, a
value without a code (a detail line under the coded line above it, or a known line whose code
is missing); in a form without a «Код» column (157n simplified samples) a row is a line when
its name is a catalogue line. Rows with a name only («АКТИВ», «в том числе:») are not lines;
a name-only row that carries the rest of a line's wrapped name is joined to it (`_wrapped`).
Lines and values are read straight into arm_statements' typed reads (`LineRead`, `ValueRead`),
the ones scan-gateway feeds the same document builder.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace
from decimal import Decimal

from services.arm_statements import (
    FormVariant,
    fold,
    is_blank_mark,
    legacy_income_line,
    match_line_name,
    match_target_use_name,
)
from services.arm_statements.document import LineRead, ValueIssue, ValueRead
from services.excel.model import Sheet, sheet_ref
from services.excel.text import cell_text
from services.excel.values import parse_amount
from services.tabular_parser.statements._table import TableLayout, ValueColumn
from services.tabular_parser.statements._text import strip_name_footnote
from services.tabular_parser.statements._wrapped import NameRow, WrappedNames, join_wrapped_names

__all__ = ["read_lines"]

CLEAN = 100.0
FOOTNOTE = 95.0
BY_NAME = 90.0

_CODE = re.compile(r"^\d{4,5}$")
_LEGACY = re.compile(r"^\d{3}$")
_BRACKET_FOOTNOTE = re.compile(r"^(\(.*\))\s*(\d{1,2})$")


@dataclass(frozen=True, slots=True)
class _Cell:
    """A value as read from the cells of one value column; ``col`` is where its figure sits
    (the column's index is settled from these after the lines are known)."""

    col: int | None
    value: ValueRead

    @property
    def text(self) -> str | None:
        return self.value.text


def _cell(
    col: int | None,
    amount: Decimal | None,
    shown: str | None,
    raw: str | None,
    confidence: float,
    issue: ValueIssue | None = None,
) -> _Cell:
    recognized = issue not in (ValueIssue.UNREADABLE, ValueIssue.FORMULA)
    return _Cell(col, ValueRead(-1, amount, shown, raw, confidence, recognized, issue))


def _read_value(sheet: Sheet, row: int, column: ValueColumn) -> _Cell:
    pieces: list[tuple[int, str]] = []
    formula = False
    numeric: list[tuple[int, Decimal | None]] = []
    for col in range(column.start, column.end + 1):
        value = sheet.cell(row, col)
        if (row, col) in sheet.formula_cells:
            formula = True
        text = cell_text(value)
        if not text:
            continue
        pieces.append((col, text))
        if isinstance(value, int | float) and not isinstance(value, bool):
            numeric.append((col, parse_amount(value)))
    if not pieces:
        if formula:
            return _cell(None, None, None, None, 0.0, ValueIssue.FORMULA)
        return _cell(None, None, None, None, CLEAN)
    if len(numeric) == 1 and len(pieces) == 1:
        col, amount = numeric[0]
        text = pieces[0][1]
        return _cell(col, amount, text, text, CLEAN)
    col = next((c for c, t in pieces if any(ch.isdigit() for ch in t)), pieces[0][0])
    if _two_figures(pieces, numeric_cells=len(numeric)):
        # Two figures in one column's cells are two values, never one number glued from both
        # («343777.13» + «265425.66», «−13102» + «0»), so the value is left for review.
        raw = " ".join(t for _, t in pieces)
        return _cell(col, None, raw, raw, 0.0, ValueIssue.UNREADABLE)
    raw = "".join(t for _, t in pieces) if len(pieces) > 1 else pieces[0][1]
    shown = raw
    issue: ValueIssue | None = None
    if _BRACKET_FOOTNOTE.match(raw.replace(" ", "")):
        shown, issue = raw[: raw.rindex(")") + 1], ValueIssue.FOOTNOTE
    if is_blank_mark(shown):
        return _cell(col, None, shown, raw, CLEAN)
    amount = parse_amount(shown)
    if amount is None:
        return _cell(col, None, shown, raw, 0.0, ValueIssue.UNREADABLE)
    confidence = FOOTNOTE if issue else CLEAN
    return _cell(col, amount, shown, raw, confidence, issue)


def _two_figures(pieces: list[tuple[int, str]], *, numeric_cells: int) -> bool:
    """The cells print two figures: two pieces with digits, except a text amount followed by
    its footnote number («(29 390)» | «5»), which reads as one value with a footnote."""
    figures = [t for _, t in pieces if any(ch.isdigit() for ch in t)]
    if len(figures) < 2:
        return False
    last = pieces[-1][1].strip()
    footnote = (
        numeric_cells == 0
        and len(figures) == 2
        and last.isdigit()
        and len(last) <= 2
        and pieces[-2][1].rstrip().endswith(")")
    )
    return not footnote


def _code_cell(sheet: Sheet, row: int, layout: TableLayout) -> tuple[int, str] | None:
    if layout.code_lo is None or layout.code_hi is None:
        return None
    for col in range(layout.code_lo, layout.code_hi + 1):
        text = cell_text(sheet.cell(row, col))
        if text:
            return col, text
    return None


def _is_garbled_code(text: str) -> bool:
    compact = "".join(text.split())
    return len(compact) <= 7 and sum(ch.isdigit() for ch in compact) >= 2


def _name_cell(sheet: Sheet, row: int, layout: TableLayout) -> tuple[int, str] | None:
    for col in range(layout.name_start, layout.name_end + 1):
        text = cell_text(sheet.cell(row, col))
        if text and any(ch.isalpha() for ch in text):
            return col, text
    return None


def _has_values(values: list[_Cell]) -> bool:
    return any(
        v.text is not None and "".join(v.text.split()).lower() not in ("()", "(", ")")
        for v in values
    )


def _has_figures(values: list[_Cell]) -> bool:
    """Some value prints more than an empty mark: a section row «Раздел I | Х | Х» is no line."""
    return any(not is_blank_mark(v.text) for v in values)


@dataclass(slots=True)
class _Row:
    row: int
    code_cell: tuple[int, str] | None
    name_cell: tuple[int, str] | None
    values: list[_Cell]


def _only_name(sheet: Sheet, item: _Row) -> bool:
    """The row prints its name and nothing else (no amount, no bracket, no note beside it)."""
    if item.name_cell is None or item.code_cell is not None:
        return False
    if any(v.text is not None for v in item.values):
        return False
    cells = sheet.rows[item.row] if item.row < len(sheet.rows) else []
    return all(col == item.name_cell[0] or not cell_text(v) for col, v in enumerate(cells))


def _wrapped_names(
    sheet: Sheet,
    layout: TableLayout,
    rows: list[_Row],
    document_type: str,
    variant: FormVariant | None,
) -> WrappedNames:
    def is_line(item: _Row) -> bool:
        if item.code_cell is not None or _has_values(item.values):
            return True
        if layout.code_col is not None or item.name_cell is None:
            return False
        name = strip_name_footnote(item.name_cell[1])
        return match_line_name(name, document_type, variant) is not None

    return join_wrapped_names(
        [
            NameRow(
                item.row,
                item.name_cell[0] if item.name_cell else None,
                item.name_cell[1] if item.name_cell else None,
                is_line(item),
                _only_name(sheet, item),
            )
            for item in rows
        ]
    )


def read_lines(
    sheet: Sheet,
    layout: TableLayout,
    document_type: str,
    variant: FormVariant | None = None,
) -> list[LineRead]:
    """Every line of the table in ``layout``, top to bottom."""
    rows = [
        _Row(
            row,
            _code_cell(sheet, row, layout),
            _name_cell(sheet, row, layout),
            [_read_value(sheet, row, column) for column in layout.columns],
        )
        for row in range(layout.data_start, layout.end_row)
    ]
    wrapped = _wrapped_names(sheet, layout, rows, document_type, variant)
    lines: list[tuple[_Row, LineRead]] = []
    last_coded: str | None = None  # the ref of the last line with a printed (if garbled) code
    last_code: str | None = None
    for item in rows:
        if item.row in wrapped.fragments:
            continue
        row, code_cell, name_cell, values = item.row, item.code_cell, item.name_cell, item.values
        name_raw = wrapped.names.get(row) or (name_cell[1] if name_cell else None)
        name = strip_name_footnote(name_raw) if name_raw else None
        if fold(name or "").startswith("в том числе") and not _has_values(values) and not code_cell:
            continue
        anchor_col = code_cell[0] if code_cell else name_cell[0] if name_cell else layout.name_start
        ref = sheet_ref(sheet.name, row, anchor_col)
        name_conf = None if name is None else (FOOTNOTE if name != name_raw else CLEAN)
        line = LineRead(row, ref, "ok", None, None, None, name, name_conf, name_raw=name_raw)
        if code_cell and _CODE.match(code_cell[1]):
            line = replace(line, code=code_cell[1], code_text=code_cell[1], code_confidence=CLEAN)
            last_coded, last_code = ref, line.code
        elif (
            code_cell
            and document_type == "INCOME"
            and (mapped := legacy_income_line(code_cell[1], name)) is not None
        ):
            line = replace(
                line,
                code=mapped,
                code_text=code_cell[1],
                code_confidence=BY_NAME,
                legacy_mapped=True,
            )
            last_coded, last_code = ref, mapped
        elif code_cell and _is_garbled_code(code_cell[1]):
            legacy = bool(_LEGACY.match(code_cell[1]))
            line = replace(
                line,
                status="unreadable",
                code_text=code_cell[1],
                code_confidence=0.0,
                legacy_code=legacy,
            )
            last_coded = ref  # a printed (if garbled) code: rows under it detail it
        elif layout.code_col is None:
            matched = _match_name(name, document_type, variant, last_code) if name else None
            if matched is not None:
                line = replace(line, code=matched, code_confidence=BY_NAME, code_inferred=True)
                last_coded, last_code = ref, matched
            elif _has_figures(values):
                line = replace(line, status="missing")
            else:
                continue
        else:
            if not _has_figures(values):
                continue
            suggested = (
                match_line_name(name, document_type, variant, after=last_code) if name else None
            )
            if suggested is not None and suggested != last_code:
                line = replace(line, status="missing", suggested_code=suggested)
            elif last_coded is not None:
                line = replace(line, status="detail", parent_ref=last_coded)
            else:
                line = replace(line, status="missing")
        lines.append((item, line))
    _settle_column_indexes(layout, [item for item, _ in lines])
    return [replace(line, values=_values(item, layout)) for item, line in lines]


def _match_name(
    name: str, document_type: str, variant: FormVariant | None, after: str | None
) -> str | None:
    """The line a name stands for in a form without codes; a DISCLOSURE's are the lines of the
    target-use report (the one disclosure with lines, decision 0017)."""
    if document_type == "DISCLOSURE":
        return match_target_use_name(name, after=after)
    return match_line_name(name, document_type, variant, after=after)


def _values(item: _Row, layout: TableLayout) -> tuple[ValueRead, ...]:
    """The row's values in their value columns' settled indexes."""
    return tuple(
        replace(cell.value, column_index=column.index)
        for column, cell in zip(layout.columns, item.values, strict=True)
    )


def _settle_column_indexes(layout: TableLayout, rows: list[_Row]) -> None:
    """A value column's index is where its numbers actually sit (often right of its header)."""
    for position, column in enumerate(layout.columns):
        seen = Counter(
            cell.col
            for item in rows
            if (cell := item.values[position]).col is not None and cell.value.amount is not None
        )
        if seen:
            column.index = seen.most_common(1)[0][0]
