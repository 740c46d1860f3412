"""Financial statements in a workbook: classify each sheet, read its form, build documents.

Every sheet is recognised on its own, so an exception on one sheet becomes a `SheetFailure`
(the caller's TABLE_PARSE_FAILED) and the others still give their documents. A balance split
over two sheets (актив on one, пассив on the next, the second often without a title) becomes
one BALANCE document with two locators. A balance or ОФР whose table gave no line with an
amount is no document (never a «done» form with nothing in it): its sheet is SHEET_OTHER, and every
SHEET_OTHER message says what the sheet showed and what to export instead (`_describe`, asked
once per sheet; docs/decisions/0005-statement-rules-for-real-files.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from services.arm_statements import (
    DocumentWarning,
    StatementWarning,
    build_document,
    detect_form_variant,
    fold,
    statements_version,
    target_use_line,
)
from services.excel.model import Sheet
from services.excel.text import cell_text
from services.tabular_parser.statements._classify import DocumentKind, Segment, classify_sheet
from services.tabular_parser.statements._describe import empty_form_message, other_sheet_message
from services.tabular_parser.statements._document import Json, Part, read_statement
from services.tabular_parser.statements._header import SheetHeader, read_header
from services.tabular_parser.statements._lines import read_lines
from services.tabular_parser.statements._table import locate_table

__all__ = ["SheetFailure", "StatementsResult", "recognize_statements"]

_DISCLOSURE_HEADER_ROWS = 30
TARGET_USE_NAMES = 3
"""Distinct target-use lines matched by name that give a target-use report without codes its
lines (the section totals and balances alone are four)."""
_TARGET_USE_TITLE = "целевом использовании"
_TARGET_USE_OKUD = ("0710003", "0710006")
_ACTIVE = ("11", "12", "1600")
_PASSIVE = ("13", "14", "15", "1700")


@dataclass(frozen=True, slots=True)
class SheetFailure:
    """Recognising ``sheet`` raised ``error_type``: ``message``; the other sheets went on."""

    sheet: str
    error_type: str
    message: str

    def warning(self) -> Json:
        """The file-level warning TABLE_PARSE_FAILED for this sheet."""
        return {
            "code": "TABLE_PARSE_FAILED",
            "severity": "error",
            "message": f"Лист «{self.sheet}» не разобран: {self.error_type}: {self.message}"[:500],
            "locator": {"sheet": self.sheet},
        }


@dataclass(frozen=True, slots=True)
class StatementsResult:
    """Contract-shaped statementDocuments, sheets that hold none, and sheets that failed."""

    documents: list[Json] = field(default_factory=list)
    other_sheets: list[str] = field(default_factory=list)
    failures: list[SheetFailure] = field(default_factory=list)
    statements_version: str = statements_version
    said: dict[str, str] = field(default_factory=dict)
    """Each other sheet's SHEET_OTHER message: what it showed, what to export instead."""

    def file_warnings(self) -> list[Json]:
        """SHEET_OTHER (info) for every other sheet, TABLE_PARSE_FAILED (error) per failure."""
        other = [
            {
                "code": "SHEET_OTHER",
                "severity": "info",
                "message": self.said[name],
                "locator": {"sheet": name},
            }
            for name in self.other_sheets
        ]
        return other + [f.warning() for f in self.failures]


@dataclass(slots=True)
class _Item:
    kind: DocumentKind
    part: Part
    titled: bool


def _disclosure(sheet: Sheet, segment: Segment) -> Part:
    """A disclosure is header-only (decision 0005), except the НКО target-use report, whose
    lines (6100 … 6400) are read like a statement's (decision 0017): by their codes, or, in a
    form without a «Код» column, by their names (at least ``TARGET_USE_NAMES`` distinct lines;
    codes inferred, as in a balance without codes). A report that shows itself as one (title,
    ОКУД) but gives neither says so."""
    last = min(segment.last_row, segment.first_row + _DISCLOSURE_HEADER_ROWS)
    part = Part(
        sheet, segment.first_row, segment.last_row, read_header(sheet, segment.first_row, last)
    )
    layout = locate_table(sheet, segment.first_row, segment.last_row)
    lines = [] if layout is None else read_lines(sheet, layout, segment.kind)
    found = {line.code for line in lines if line.code is not None and target_use_line(line.code)}
    coded = layout is not None and layout.code_col is not None
    if found and (coded or len(found) >= TARGET_USE_NAMES):
        part.layout, part.lines = layout, lines
    elif _is_target_use(sheet, segment, part):
        part.notes.append(_target_use_unread(len(found)))
    return part


def _is_target_use(sheet: Sheet, segment: Segment, part: Part) -> bool:
    okud = part.header.get("okud").value
    if okud in _TARGET_USE_OKUD:
        return True
    rows = sheet.rows[segment.first_row : segment.first_row + _DISCLOSURE_HEADER_ROWS]
    return any(_TARGET_USE_TITLE in fold(cell_text(value)) for row in rows for value in row)


def _target_use_unread(names: int) -> DocumentWarning:
    message = (
        "Отчет о целевом использовании средств: строки не прочитаны — нет столбца «Код» с "
        f"кодами 6100–6400, а наименований строк формы найдено {names} (нужно не меньше "
        f"{TARGET_USE_NAMES}); документ только с шапкой; выгрузите отчёт с кодами строк"
    )
    return DocumentWarning(StatementWarning.TARGET_USE_LINES_UNREAD, message)


def _part(sheet: Sheet, segment: Segment) -> Part:
    if segment.kind == "DISCLOSURE":
        return _disclosure(sheet, segment)
    layout = locate_table(
        sheet, segment.first_row, segment.last_row, legacy_income=segment.kind == "INCOME"
    )
    header_end = segment.last_row
    if layout is not None:
        header_end = layout.header_row if layout.header_row is not None else layout.data_start
    header = read_header(sheet, segment.first_row, header_end)
    part = Part(sheet, segment.first_row, segment.last_row, header, layout)
    if layout is None:
        return part
    lines = read_lines(sheet, layout, segment.kind)
    if layout.code_col is None:  # matched by name: decide the variant first, then match again
        variant = detect_form_variant(segment.kind, [], [line.name for line in lines])
        if variant is not None:
            lines = read_lines(sheet, layout, segment.kind, variant)
    part.lines = lines
    return part


def _codes(part: Part) -> list[str]:
    return [line.code for line in part.lines if line.status == "ok" and line.code]


def _only(part: Part, prefixes: tuple[str, ...], others: tuple[str, ...]) -> bool:
    codes = _codes(part)
    return (
        bool(codes)
        and any(c.startswith(prefixes) for c in codes)
        and not any(c.startswith(others) for c in codes)
    )


def _group(items: list[_Item]) -> list[tuple[DocumentKind, list[Part]]]:
    """Items in workbook order; an актив-only balance followed by a пассив-only one is one."""
    groups: list[tuple[DocumentKind, list[Part]]] = []
    i = 0
    while i < len(items):
        item = items[i]
        following = items[i + 1] if i + 1 < len(items) else None
        if (
            item.kind == "BALANCE"
            and following is not None
            and following.kind == "BALANCE"
            and _only(item.part, _ACTIVE, _PASSIVE)
            and _only(following.part, _PASSIVE, _ACTIVE)
        ):
            groups.append(("BALANCE", [item.part, following.part]))
            i += 2
            continue
        groups.append((item.kind, [item.part]))
        i += 1
    return groups


def _fallback(items: list[_Item], others: list[SheetHeader]) -> SheetHeader | None:
    for header in [it.part.header for it in items] + others:
        inn = header.get("inn")
        if inn.value is not None and not inn.review:
            return header
    return None


def _failure(sheet_name: str, exc: BaseException) -> SheetFailure:
    return SheetFailure(sheet_name, type(exc).__name__, str(exc) or type(exc).__name__)


def recognize_statements(sheets: list[Sheet]) -> StatementsResult:
    """Every balance, ОФР and disclosure in ``sheets``, as contract statementDocuments."""
    items: list[_Item] = []
    other: list[str] = []
    other_headers: list[SheetHeader] = []
    failures: list[SheetFailure] = []
    said: dict[str, str] = {}
    for sheet in sheets:
        try:
            segments = classify_sheet(sheet)
            if not segments:
                other_headers.append(
                    read_header(sheet, 0, min(len(sheet.rows), _DISCLOSURE_HEADER_ROWS))
                )
                other.append(sheet.name)
                said[sheet.name] = other_sheet_message(sheet)
                continue
            items.extend(_Item(s.kind, _part(sheet, s), s.titled) for s in segments)
        except Exception as exc:  # one broken sheet must not stop the others
            failures.append(_failure(sheet.name, exc))
    fallback = _fallback(items, other_headers)
    documents: list[Json] = []
    for kind, parts in _group(items):
        try:
            read = read_statement(kind, parts, fallback)
            if read.is_empty_form:
                _no_lines(kind, parts, other, said)
                continue
            documents.append(build_document(read))
        except Exception as exc:
            failures.extend(_failure(p.sheet.name, exc) for p in parts)
    return StatementsResult(documents, other, failures, said=said)


def _no_lines(
    kind: DocumentKind, parts: list[Part], other: list[str], said: dict[str, str]
) -> None:
    """A balance / ОФР without an amount is no document: its sheets are «other», saying why."""
    for part in parts:
        if part.sheet.name in other:
            continue
        other.append(part.sheet.name)
        said[part.sheet.name] = empty_form_message(part.sheet, kind)
