"""Line names wrapped over two or more rows, joined back to their line.

Excel exports and typed-in forms often break a long name over rows: the row with the code and
values carries only part of the name, the rest sits in a row above («Налог на добавленную
стоимость по» / «приобретенным ценностям | 1220 | …») or below («Доходные вложения в
материальные | 1160 | …» / «ценности»). The rule, conservative because a wrong join corrupts
a name while a missed one only shortens it:

1. A *fragment* is a row of the table that prints one text, in the name columns, and nothing
   else (no code, no amount), with at least two letters, that is not a heading. *Headings*
   are never joined: a roman-numbered section («I. ВНЕОБОРОТНЫЕ АКТИВЫ», «Раздел II»), an
   arabic-numbered one («1. Нематериальные активы» — a number, a dot, a capital), a text in
   capitals only («АКТИВ», «КАПИТАЛ И РЕЗЕРВЫ»), a text ending in «:» («в том числе:»,
   «Денежные средства, направленные:»), or a known heading word («Пояснения», «Справочно»,
   «в том числе», «из них», «Итого …», «Наименование показателя», «Раздел»).
2. Consecutive fragments form a run; a fragment that neither *opens* as a continuation nor
   follows a *broken* one starts a new piece. A run of more than two pieces is left alone.
3. A piece *ends* the line directly above it (no row between, same name column) when the
   text reads on across the break there: the piece *opens* as a continuation (a lower-case
   letter, «(», «,», a dash), or the line's name is *broken* (ends with a hyphen, a comma, a
   preposition or conjunction, or leaves a bracket open), or the line prints no name at all.
4. A piece *begins* the line directly below it when the piece is broken, or the line's name
   opens as a continuation and is not a sub-line of its own («в т.ч. …», «из них …»), or the
   line prints no name at all.
5. A single piece joins only when exactly one of 3 and 4 holds. When both hold and the
   piece is one row, a name never ends broken: a broken row cannot end the line above
   («отлож-» between «текущий налог на прибыль | 2411» and «енный налог | 2412» begins 2412),
   and under a broken line the row cannot begin the line below. Otherwise both holding is
   left alone (lower-case sub-lines: «отложенный налог» between «текущий налог на прибыль |
   2411» and «на прибыль | 2412» reads either way), and so is neither holding: a heading
   that slipped through rule 1 («Движение денежных средств по текущей деятельности» between
   two coded lines: a capital first, a full word last). Of two pieces, the first may only
   end the line above and the second only begin the line below.

Texts are joined with one space; a hyphen after a letter at the end of a row followed by a
lower-case letter is a break inside a word and is dropped («Нематериаль-» + «ные активы» →
«Нематериальные активы»), before a capital it is kept without a space («Северо-» + «Западный»).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from services.arm_statements import fold

__all__ = ["NameRow", "WrappedNames", "join_wrapped_names"]

_ROMAN_SECTION = re.compile(r"^(?:[Рр]аздел\s+)?[IVXІХ]{1,5}(?:\s*[.)]|\s)\s*\S")
_NUMBERED_SECTION = re.compile(r"^\d{1,2}(?:\.\d{1,2})*\.\s*[A-ZА-ЯЁ]")
_HEADING_WORDS = (
    "пояснени",
    "справочно",
    "в том числе",
    "в т.ч",
    "в т. ч",
    "из них",
    "итого",
    "наименование показател",
    "раздел ",
    "дополнительные строки",
)
_HEADING_EXACT = frozenset({"актив", "пассив", "раздел"})
_SUB_LINE = ("в том числе", "в т.ч", "в т. ч", "в т ч", "из них", "из него", "включая")
# Words a line of text cannot end on: conjunctions and prepositions.
_CONNECTIVES = frozenset(
    {"и", "или", "либо", "а", "в", "во", "на", "по", "от", "с", "со", "к", "ко", "за", "для"}
    | {"из", "о", "об", "при", "до", "без", "под", "над", "также", "не", "через", "кроме"}
    | {"между"}
)
_HYPHENS = "-\u2010\u2011\u00ad"
_OPENING_MARKS = "(,;)-\u2013\u2014"


@dataclass(frozen=True, slots=True)
class NameRow:
    """One row of a statement table as far as its name is concerned.

    ``line``: the row is a line of its own (prints a code or an amount, or its name is a
    catalogue line); ``name_only``: the row prints its name text and nothing else.
    """

    row: int
    col: int | None
    text: str | None
    line: bool
    name_only: bool


def _is_heading(text: str) -> bool:
    stripped = text.strip()
    folded = fold(stripped)
    letters = [ch for ch in stripped if ch.isalpha()]
    return bool(
        _ROMAN_SECTION.match(stripped)
        or _NUMBERED_SECTION.match(stripped)
        or (len(letters) >= 2 and all(ch.isupper() for ch in letters))
        or stripped.endswith(":")
        or folded in _HEADING_EXACT
        or folded.startswith(_HEADING_WORDS)
    )


def _is_fragment(row: NameRow) -> bool:
    return (
        not row.line
        and row.name_only
        and row.text is not None
        and sum(ch.isalpha() for ch in row.text) >= 2
        and not _is_heading(row.text)
    )


def _opens(text: str) -> bool:
    """The text reads as the continuation of the one before it."""
    stripped = text.lstrip()
    if not stripped:
        return False
    first = stripped[0]
    return (first.isalpha() and first.islower()) or first in _OPENING_MARKS


def _breaks(text: str) -> bool:
    """The text stops mid-phrase: a hyphenated word, a comma, a preposition, an open bracket."""
    stripped = text.rstrip()
    if not stripped:
        return False
    if stripped[-1] in _HYPHENS and len(stripped) > 1 and stripped[-2].isalpha():
        return True
    if stripped[-1] == "," or stripped.count("(") > stripped.count(")"):
        return True
    words = fold(stripped).split()
    return bool(words) and words[-1] in _CONNECTIVES


def _sub_line(text: str) -> bool:
    return fold(text).startswith(_SUB_LINE)


def _same_column(line: NameRow, piece: Sequence[NameRow]) -> bool:
    return line.col is None or line.col == piece[0].col


def _ends(line: NameRow | None, piece: Sequence[NameRow]) -> bool:
    """``piece`` (right under ``line``) reads as the rest of the line's name."""
    if line is None or not _same_column(line, piece):
        return False
    return line.text is None or _opens(piece[0].text or "") or _breaks(line.text)


def _begins(piece: Sequence[NameRow], line: NameRow | None) -> bool:
    """``piece`` (right above ``line``) reads as the beginning of the line's name."""
    if line is None or not _same_column(line, piece):
        return False
    if line.text is None or _breaks(piece[-1].text or ""):
        return True
    return _opens(line.text) and not _sub_line(line.text)


def _pieces(run: Sequence[NameRow]) -> list[list[NameRow]]:
    pieces: list[list[NameRow]] = [[run[0]]]
    for before, row in pairwise(run):
        reads_on = before.col == row.col and (_opens(row.text or "") or _breaks(before.text or ""))
        if reads_on:
            pieces[-1].append(row)
        else:
            pieces.append([row])
    return pieces


def _runs(rows: Sequence[NameRow]) -> list[list[NameRow]]:
    runs: list[list[NameRow]] = []
    for row in rows:
        if not _is_fragment(row):
            continue
        if runs and runs[-1][-1].row == row.row - 1:
            runs[-1].append(row)
        else:
            runs.append([row])
    return runs


def _join_texts(texts: Sequence[str]) -> str:
    """Row texts of one name as one text: one space between, a word broken by a hyphen mended."""
    joined = texts[0].strip()
    for text in texts[1:]:
        part = text.strip()
        if not part:
            continue
        if len(joined) > 1 and joined[-1] in _HYPHENS and joined[-2].isalpha():
            if (part[0].isalpha() and part[0].islower()) or joined[-1] == "\u00ad":
                joined = joined[:-1] + part
            else:
                joined += part
        else:
            joined = f"{joined} {part}" if joined else part
    return joined


@dataclass(frozen=True, slots=True)
class WrappedNames:
    """``names``: line row → its whole name (only lines whose name wraps); ``fragments``: the
    rows joined into those names, which are no rows of their own."""

    names: dict[int, str]
    fragments: frozenset[int]


def _attachments(
    run: Sequence[NameRow], up: NameRow | None, down: NameRow | None
) -> tuple[list[NameRow], list[NameRow]]:
    """The rows of ``run`` that end the name of ``up`` and those that begin the name of ``down``."""
    pieces = _pieces(run)
    if len(pieces) == 1:
        piece = pieces[0]
        ends, begins = _ends(up, piece), _begins(piece, down)
        if ends and begins and len(piece) == 1:  # a name never ends broken
            ends = not _breaks(piece[0].text or "")
            begins = not (up is not None and _breaks(up.text or ""))
        if ends == begins:
            return [], []
        return (piece, []) if ends else ([], piece)
    if len(pieces) == 2:
        first, last = pieces
        return (first if _ends(up, first) else [], last if _begins(last, down) else [])
    return [], []


def join_wrapped_names(rows: Sequence[NameRow]) -> WrappedNames:
    """The lines among ``rows`` (the table's rows, in order) whose name wraps onto neighbours."""
    by_row = {r.row: r for r in rows}
    above: dict[int, list[NameRow]] = {}
    below: dict[int, list[NameRow]] = {}
    for run in _runs(rows):
        up = by_row.get(run[0].row - 1)
        down = by_row.get(run[-1].row + 1)
        up = up if up is not None and up.line else None
        down = down if down is not None and down.line else None
        ending, beginning = _attachments(run, up, down)
        if ending and up is not None:
            below[up.row] = ending
        if beginning and down is not None:
            above[down.row] = beginning
    names: dict[int, str] = {}
    for row in sorted(above.keys() | below.keys()):
        parts = [*above.get(row, []), by_row[row], *below.get(row, [])]
        names[row] = _join_texts([p.text for p in parts if p.text])
    used = {r.row for parts in (*above.values(), *below.values()) for r in parts}
    return WrappedNames(names, frozenset(used))
