"""Which statement a sheet holds, and where, by its title, ОКУД and the codes it prints.

Titles and ОКУД decide; a sheet without either is a balance or an ОФР when it prints enough
catalogue codes of that form (a continuation sheet of a split balance has codes 13xx–17xx and
no title), or, with no codes either, enough catalogue line names (``SHEET_NAMES`` distinct
lines of one form: a hand-made balance), and «other» otherwise (the rule:
``arm_statements.forms``). One sheet may hold several forms one under another: each title
starts a segment.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.arm_statements import fold
from services.arm_statements.forms import (
    FormEvidence,
    FormKind,
    code_form,
    form_kind,
    names_kind,
    okud_in_cells,
    okud_kind,
    title_kind,
)
from services.excel.model import Sheet
from services.excel.text import cell_text
from services.tabular_parser.statements._table import (
    code_column_codes,
    is_notes_header,
)

__all__ = [
    "SHEET_NAMES",
    "DocumentKind",
    "Segment",
    "classify_sheet",
    "code_document_type",
    "name_texts",
]

DocumentKind = FormKind
_MARKER_GAP = 8  # a title and its ОКУД within this many rows are one form
SHEET_NAMES = 5
"""Distinct catalogue lines matched by name that make a sheet without codes a form."""
_NAME_ROWS = 400


@dataclass(frozen=True, slots=True)
class Segment:
    """Rows ``first_row`` ≤ row < ``last_row`` of a sheet hold one form of ``kind``."""

    kind: DocumentKind
    first_row: int
    last_row: int
    titled: bool


def code_document_type(code: str) -> str | None:
    """BALANCE / INCOME of a catalogue code (arm_statements.forms.code_form)."""
    return code_form(code)


def _markers(sheet: Sheet) -> list[tuple[int, DocumentKind]]:
    found: list[tuple[int, DocumentKind]] = []
    for row, line in enumerate(sheet.rows):
        cells = [fold(cell_text(v)) for v in line]
        cells = [s for s in cells if s]
        for s in cells:
            if is_notes_header(s):  # «Пояснения к строкам» heads a column, titles no form
                continue
            kind = title_kind(s)
            if kind is not None:
                found.append((row, kind))
        by_okud = okud_kind(okud_in_cells(cells))
        if by_okud is not None:
            found.append((row, by_okud))
    return found


def _codes(sheet: Sheet) -> tuple[str, ...]:
    """The catalogue codes of the sheet's code columns (issue 15 item 1): the table reader's
    rule, so an amount or an account number equal to a code counts for nothing."""
    return tuple(code_column_codes(sheet))


def name_texts(sheet: Sheet) -> tuple[str, ...]:
    """Texts of the first rows that could be line names (letters, not a number)."""
    texts = (
        value.strip()
        for line in sheet.rows[:_NAME_ROWS]
        for value in line
        if isinstance(value, str)
    )
    return tuple(text for text in texts if sum(ch.isalpha() for ch in text) >= 3)


def _name_hint(name: str) -> DocumentKind | None:
    s = fold(name)
    if "баланс" in s:
        return "BALANCE"
    if "офр" in s or "финансов" in s or "прибыл" in s:
        return "INCOME"
    if s.startswith("пояснени"):
        return "DISCLOSURE"
    return None


def classify_sheet(sheet: Sheet) -> list[Segment]:
    """The forms a sheet holds, in row order; empty for a sheet that is none of them."""
    end = len(sheet.rows)
    markers = _markers(sheet)
    if markers:
        starts: list[tuple[int, DocumentKind]] = []
        for row, kind in markers:
            if starts and starts[-1][1] == kind and row - starts[-1][0] <= _MARKER_GAP:
                continue
            if starts and starts[-1][1] == kind:
                continue  # the same form named again further down (a footer, a repeat)
            starts.append((row, kind))
        segments: list[Segment] = []
        for i, (row, kind) in enumerate(starts):
            first = 0 if i == 0 else row
            last = starts[i + 1][0] if i + 1 < len(starts) else end
            segments.append(Segment(kind, first, last, titled=True))
        return segments
    hint = _name_hint(sheet.name)
    by_codes = form_kind(FormEvidence(codes=_codes(sheet), hint=hint))
    if by_codes is not None:
        return [Segment(by_codes, 0, end, titled=False)]
    if hint == "DISCLOSURE":
        return [Segment("DISCLOSURE", 0, end, titled=False)]
    by_names = names_kind(name_texts(sheet), minimum=SHEET_NAMES)
    if by_names is not None:
        return [Segment(by_names, 0, end, titled=False)]
    return []
