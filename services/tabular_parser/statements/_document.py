"""The parts (sheet segments) that hold one form → arm_statements' typed statement reads.

What is Excel's stays here: the header merged over the parts (fields a form lacks inherited
from another sheet of the workbook), the value columns of a second sheet aligned with the
first's by order, locators as sheet ranges, and the «Дополнительные строки» note. The document
itself — review, checks, warnings, status — is ``arm_statements.build_document``'s, shared with
scan-gateway (docs/warning-codes.md «Statements»).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from services.arm_statements import HEADER_FIELDS, PeriodKind, parse_period_label
from services.arm_statements.document import (
    ColumnRead,
    HeaderField,
    HeaderRead,
    HeaderReview,
    LineRead,
    StatementRead,
)
from services.arm_statements.forms import FormKind
from services.arm_statements.warnings import DocumentWarning, StatementWarning
from services.excel.model import CellRange, Sheet
from services.tabular_parser.statements._header import SheetHeader
from services.tabular_parser.statements._table import TableLayout, ValueColumn

__all__ = ["Json", "Part", "read_statement"]

INHERITED = 90.0
_INHERITABLE = (
    "organization_name",
    "inn",
    "okpo",
    "okopf",
    "okfs",
    "okei",
    "units",
    "address",
    "report_date",
)

Json = dict[str, Any]


@dataclass(slots=True)
class Part:
    """One sheet segment of a document: where its table is and what it read."""

    sheet: Sheet
    first_row: int
    last_row: int
    header: SheetHeader
    layout: TableLayout | None = None
    lines: list[LineRead] = field(default_factory=list)
    column_map: dict[int, int] = field(default_factory=dict)  # own column index → document's
    notes: list[DocumentWarning] = field(default_factory=list)  # the segment's closing notes


def _merge_header(parts: list[Part], fallback: SheetHeader | None) -> dict[str, HeaderRead]:
    merged: dict[str, HeaderRead] = {}
    for name in HEADER_FIELDS:
        found: HeaderField | None = next(
            (
                p.header.get(name)
                for p in parts
                if p.header.get(name).text is not None or p.header.get(name).value is not None
            ),
            None,
        )
        if found is None and fallback is not None and name in _INHERITABLE:
            source = fallback.get(name)
            if source.value is not None and not source.review:
                found = HeaderField(
                    source.value, source.text, min(INHERITED, source.confidence or 0)
                )
        merged[name] = (found or HeaderField()).read(HeaderReview.INVALID)
    return merged


def _align_columns(parts: list[Part]) -> list[ValueColumn]:
    """The document's value columns; a later part with as many columns maps onto the first's."""
    first = parts[0].layout
    base = first.columns if first is not None else []
    by_index: dict[int, ValueColumn] = {column.index: column for column in base}
    for part in parts[1:]:
        own = part.layout.columns if part.layout is not None else []
        if len(own) == len(base):
            part.column_map = {c.index: b.index for c, b in zip(own, base, strict=True)}
        else:
            for c in own:
                by_index.setdefault(c.index, c)
    return [by_index[i] for i in sorted(by_index)]


def _column_read(column: ValueColumn) -> ColumnRead:
    kind: PeriodKind
    kind, date = parse_period_label(column.label or "")
    return ColumnRead(column.index, column.label, 100 if column.label else None, kind, date)


def _in_document_columns(line: LineRead, part: Part) -> LineRead:
    """The line with its values in the document's columns (a second sheet's mapped by order)."""
    if not part.column_map:
        return line
    values = tuple(
        replace(v, column_index=part.column_map.get(v.column_index, v.column_index))
        for v in line.values
    )
    return replace(line, values=values)


def _range(part: Part) -> str:
    sheet = part.sheet
    layout = part.layout
    if layout is None:
        width = max((len(r) for r in sheet.rows[part.first_row : part.last_row]), default=1)
        last_row = max(part.first_row, min(part.last_row, len(sheet.rows)) - 1)
        return CellRange(part.first_row, 0, last_row, max(0, width - 1)).a1()
    top = layout.header_row if layout.header_row is not None else layout.data_start
    bottom = max([line.row_index for line in part.lines] + [top])
    right = max([layout.last_col] + [c.index for c in layout.columns])
    return CellRange(top, layout.first_col, bottom, max(layout.first_col, right)).a1()


def _skipped_tables(parts: list[Part]) -> list[DocumentWarning]:
    return [
        DocumentWarning(
            StatementWarning.ADDITIONAL_LINES_SKIPPED,
            f"Таблица «Дополнительные строки» (лист «{part.sheet.name}», строка "
            f"{part.layout.additional_row + 1}) не включена: её коды означают другое",
        )
        for part in parts
        if part.layout is not None and part.layout.additional_row is not None
    ]


def read_statement(
    kind: FormKind,
    parts: list[Part],
    fallback_header: SheetHeader | None = None,
) -> StatementRead:
    """What ``parts`` read for one form, as arm_statements' typed reads."""
    columns = _align_columns(parts)
    notes: list[DocumentWarning] = []
    lines = [_in_document_columns(line, part) for part in parts for line in part.lines]
    if lines and any(
        part.column_map and any(k != v for k, v in part.column_map.items()) for part in parts
    ):
        notes.append(
            DocumentWarning(
                StatementWarning.COLUMNS_ALIGNED,
                "Колонки второго листа сопоставлены с колонками первого по порядку",
            )
        )
    return StatementRead(
        kind=kind,
        locator=[{"sheet": p.sheet.name, "range": _range(p)} for p in parts],
        header=_merge_header(parts, fallback_header),
        columns=[_column_read(c) for c in columns],
        lines=lines,
        notes=notes,
        closing_notes=_skipped_tables(parts) + [n for part in parts for n in part.notes],
    )
