"""Where a document's review stands: recognised, corrected or reviewed, and what changed.

The recognised document (`GET /documents/{id}`, `/normalized`) is the service's message and
keeps its status; the corrected one (`/corrected`, the pages, the export) carries the status
of the corrected values and this summary (docs/review-page.md «Статус после проверки»):

- `recognised`: no correction yet;
- `corrected`: corrections, and no review mark after the last of them (a correction made
  after a review mark reopens the review);
- `reviewed`: an analyst marked the document reviewed after every correction.

`changes` are the standing corrections, one per place (a value, a line's code, a header
field): what was recognised there, what it is now, who made the last change and when.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Literal

from services.arm_core.db.models import Correction, CorrectionKind
from services.arm_core.documents.corrections import CorrectedDocument, doubts_left, statement_lines
from services.arm_core.documents.read import DocumentBody

__all__ = ["Change", "Review", "ReviewState", "review_of"]

ReviewState = Literal["recognised", "corrected", "reviewed"]
_Place = tuple[str, int | None, int | None, str | None]


@dataclass(frozen=True, slots=True)
class Change:
    """The standing correction of one place; `recognised` is the value before any analyst."""

    kind: str
    line: int | None
    ref: str | None
    column_index: int | None
    field: str | None
    recognised: str | None
    value: str | None
    author: str
    at: dt.datetime


@dataclass(frozen=True, slots=True)
class Review:
    """A document's review: its state, both statuses, the doubts left, the standing changes.

    `doubts_left` counts the values, lines and header fields still flagged (None: not counted,
    an ОСВ); `confirmed_doubts`: how many of them the reviewer knowingly left (the count the
    review mark confirmed; None when nothing was left in doubt or the document is not
    reviewed)."""

    state: ReviewState
    recognised_status: str | None
    status: str | None
    doubts_left: int | None
    changes: tuple[Change, ...]
    reviewed_by: str | None
    reviewed_at: dt.datetime | None
    confirmed_doubts: int | None = None


def _place(correction: Correction) -> _Place:
    if correction.kind in (CorrectionKind.VALUE.value, CorrectionKind.CONFIRM.value):
        return ("value", correction.line, correction.column_index, None)
    return (correction.kind, correction.line, None, correction.field)


def _changes(document: DocumentBody, corrections: tuple[Correction, ...]) -> list[Change]:
    first: dict[_Place, Correction] = {}
    last: dict[_Place, Correction] = {}
    for correction in corrections:
        if correction.kind == CorrectionKind.REVIEWED.value:
            continue
        place = _place(correction)
        first.setdefault(place, correction)
        last[place] = correction
    lines = statement_lines(document)
    out: list[Change] = []
    for place, latest in last.items():
        line = latest.line
        ref = lines[line].get("ref") if line is not None and 0 <= line < len(lines) else None
        out.append(
            Change(
                kind=latest.kind,
                line=line,
                ref=ref,
                column_index=latest.column_index,
                field=latest.field,
                recognised=first[place].old_value,
                value=latest.new_value,
                author=latest.author,
                at=latest.created_at,
            )
        )
    return out


def review_of(corrected: CorrectedDocument[DocumentBody]) -> Review:
    """The review summary of a corrected document."""
    corrections = corrected.corrections
    marks = [i for i, c in enumerate(corrections) if c.kind == CorrectionKind.REVIEWED.value]
    edits = [i for i, c in enumerate(corrections) if c.kind != CorrectionKind.REVIEWED.value]
    state: ReviewState = "recognised"
    if marks and (not edits or marks[-1] > edits[-1]):
        state = "reviewed"
    elif corrections:
        state = "corrected"
    mark = corrections[marks[-1]] if state == "reviewed" else None
    document = corrected.document
    return Review(
        state=state,
        recognised_status=corrected.recognised_status,
        status=document.get("status"),
        doubts_left=doubts_left(document),
        changes=tuple(_changes(document, corrections)),
        reviewed_by=mark.author if mark else None,
        reviewed_at=mark.created_at if mark else None,
        confirmed_doubts=int(mark.new_value) if mark and mark.new_value else None,
    )
