"""Which statement a sheet holds, and where, by its title, ОКУД and the codes it prints.

Titles and ОКУД decide; a sheet without either is a balance or an ОФР when it prints enough
catalogue codes of that form (a continuation sheet of a split balance has codes 13xx–17xx and
no title), and «other» otherwise. One sheet may hold several forms one under another: each
title starts a segment.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from services.arm_statements import LINES, fold, parent_code
from services.tabular_parser.excel.model import Sheet
from services.tabular_parser.excel.text import cell_text
from services.tabular_parser.statements._table import code_column_codes, is_notes_header

__all__ = ["DocumentKind", "Segment", "classify_sheet", "code_document_type"]

DocumentKind = Literal["BALANCE", "INCOME", "DISCLOSURE"]

_TITLES: tuple[tuple[re.Pattern[str], DocumentKind], ...] = (
    (re.compile(r"^(упрощенн\w*\s+)?бухгалтерск\w*\s+баланс"), "BALANCE"),
    (re.compile(r"^(упрощенн\w*\s+)?отчет\s+о\s+финансовых\s+результатах"), "INCOME"),
    (re.compile(r"^пояснени\w*\s+к\s+"), "DISCLOSURE"),
    (
        re.compile(
            r"^отчет\s+об?\s+(изменени\w*\s+капитала|движении\s+денежных|целевом\s+использ)"
        ),
        "DISCLOSURE",
    ),
)
_OKUD: dict[str, DocumentKind] = {
    "0710001": "BALANCE",
    "0710002": "INCOME",
    "0710003": "DISCLOSURE",
    "0710004": "DISCLOSURE",
    "0710005": "DISCLOSURE",
    "0710006": "DISCLOSURE",
}
_MIN_CODES = 3
_MARKER_GAP = 8  # a title and its ОКУД within this many rows are one form


@dataclass(frozen=True, slots=True)
class Segment:
    """Rows ``first_row`` ≤ row < ``last_row`` of a sheet hold one form of ``kind``."""

    kind: DocumentKind
    first_row: int
    last_row: int
    titled: bool


def code_document_type(code: str) -> str | None:
    own = code if code in LINES else parent_code(code)
    return None if own is None else LINES[own].document_type


def _okud_in_row(cells: list[str]) -> str | None:
    for i, s in enumerate(cells):
        if "окуд" in s:
            digits = re.sub(r"\D", "", s.split("окуд", 1)[1])
            if not digits:
                digits = next(
                    (re.sub(r"\D", "", t) for t in cells[i + 1 :] if re.sub(r"\D", "", t)), ""
                )
            if digits:
                return digits.zfill(7) if len(digits) == 6 else digits
    return None


def _markers(sheet: Sheet) -> list[tuple[int, DocumentKind]]:
    found: list[tuple[int, DocumentKind]] = []
    for row, line in enumerate(sheet.rows):
        cells = [fold(cell_text(v)) for v in line]
        cells = [s for s in cells if s]
        for s in cells:
            if is_notes_header(s):  # «Пояснения к строкам» heads a column, titles no form
                continue
            for pattern, kind in _TITLES:
                if len(s) < 200 and pattern.match(s):
                    found.append((row, kind))
        okud = _okud_in_row(cells)
        if okud in _OKUD:
            found.append((row, _OKUD[okud]))
    return found


def _kind_by_codes(sheet: Sheet, hinted: DocumentKind | None) -> DocumentKind | None:
    counts = {"BALANCE": 0, "INCOME": 0}
    for text in code_column_codes(sheet):  # an amount equal to a code counts for nothing
        kind = code_document_type(text)
        if kind in counts:
            counts[kind] += 1
    best = max(counts, key=lambda k: counts[k])
    other = "INCOME" if best == "BALANCE" else "BALANCE"
    threshold = 1 if hinted == best else _MIN_CODES
    if counts[best] >= threshold and counts[best] > counts[other]:
        return "BALANCE" if best == "BALANCE" else "INCOME"
    return None


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
    by_codes = _kind_by_codes(sheet, hint)
    if by_codes is not None:
        return [Segment(by_codes, 0, end, titled=False)]
    if hint == "DISCLOSURE":
        return [Segment("DISCLOSURE", 0, end, titled=False)]
    return []
