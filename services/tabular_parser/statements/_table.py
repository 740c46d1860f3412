"""Where the table of a statement sheet is: header rows, the code column, names, value columns.

Real layouts differ: 1C prints «Пояснения | Наименование показателя | Код | На 31 декабря …»;
ГИР БО exports put «Код строки» anywhere from column 7 to 18 and, because their merged ranges
differ row by row, print codes and values right of their header cell; forms 0420002/0420003
print «Номер строки | Наименование | Пояснения к строкам | …» under two-level headers. So the
code column is the column inside the «Код» header's merged range where most cells are catalogue
codes, else a column whose cells are codes and that no other header stands over (never an
amount column: decision 0006); a notes column is no value column; a value column owns every
cell from its header to the next header, the last one to the table's right edge (a cell past a
gap of more than ``_COL_GAP`` empty columns is no part of the table: a stray at XFD36 is not
glued to the line's value, decision 0008); the table ends at the signature footer.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from services.arm_statements import (
    LEGACY_INCOME_MAPPED,
    classify_code,
    fold,
    parse_period_label,
    target_use_line,
)
from services.excel.model import CellRange, Sheet
from services.excel.text import cell_text

__all__ = [
    "TableLayout",
    "ValueColumn",
    "code_column_codes",
    "is_catalogue_code",
    "is_notes_header",
    "locate_table",
]

_NAME_HEADER = re.compile(r"^(наименование(\s+показател\w*)?|показатель)\s*\d?$")
_CODE_HEADER = re.compile(r"^код(\s+(строки|показателя|стр\.?))?\s*\d?$")
_CODE = re.compile(r"^\d{4,5}$")
# A notes column: «Пояснения», «Пояснения к строкам», «Примечания», «Номер пояснения», «№ пояснения».
_NOTES_HEADER = re.compile(
    r"^(номер\s+|№\s*)?(пояснени|примечани)\w*(\s+к\s+(строк|показател)\w*)?\s*\d?$"
)
_CODE_SHARE = 0.8  # a header-less code column: at least this share of its cells are codes
_MAX_HEADER_ROWS = 4
_COL_GAP = 30  # empty columns that end a table; real layouts leave at most 13 between cells
# The tail of a label split over cells of blank forms: « г.8», «20», «года».
_FRAGMENT = re.compile(r"^(г\.?|год\w*)\s*\d{0,2}$|^\d{2,4}$")
_STOP = ("руководитель", "главный бухгалтер", "(подпись)", "индивидуальный предприниматель")
_SIGNATURE_BLANK = re.compile(r"^_{3,}$")
ADDITIONAL = "дополнительные строки"


@dataclass(slots=True)
class ValueColumn:
    """A value column: its cells span ``start``..``end``; ``index`` is set from the data."""

    start: int
    end: int
    label: str | None
    index: int
    label_end: int = -1


@dataclass(slots=True)
class TableLayout:
    header_row: int | None
    data_start: int
    end_row: int  # exclusive
    code_lo: int | None
    code_hi: int | None
    code_col: int | None
    name_start: int
    name_end: int
    columns: list[ValueColumn] = field(default_factory=list)
    additional_row: int | None = None
    first_col: int = 0
    last_col: int = 0


def is_catalogue_code(text: str) -> bool:
    """A code some form prints: a catalogue line, a break-down of one, or a target-use line."""
    return bool(_CODE.match(text)) and (
        classify_code(text) in ("catalogue", "org_added") or target_use_line(text) is not None
    )


def is_notes_header(folded: str) -> bool:
    """The (folded) text heads a notes column («Пояснения к строкам»), not a disclosure."""
    return bool(_NOTES_HEADER.match(folded))


def _merged_at(sheet: Sheet, row: int, col: int) -> CellRange:
    for rng in sheet.merged:
        if rng.first_row <= row <= rng.last_row and rng.first_col <= col <= rng.last_col:
            return rng
    return CellRange(row, col, row, col)


def _texts(sheet: Sheet, row: int) -> list[tuple[int, str]]:
    if row >= len(sheet.rows):
        return []
    return [(c, t) for c, v in enumerate(sheet.rows[row]) if (t := cell_text(v))]


def _find(sheet: Sheet, first: int, last: int, pattern: re.Pattern[str]) -> tuple[int, int] | None:
    for row in range(first, min(last, len(sheet.rows))):
        for col, text in _texts(sheet, row):
            if pattern.match(fold(text)):
                return row, col
    return None


def is_legacy_income_code(text: str) -> bool:
    """A code the pre-2011 (67n) «Отчет о прибылях и убытках» printed (010 … 190)."""
    return text in LEGACY_INCOME_MAPPED


def _code_counts(
    sheet: Sheet, first: int, last: int, is_code: Callable[[str], bool] = is_catalogue_code
) -> dict[int, int]:
    counts: dict[int, int] = {}
    for row in range(first, min(last, len(sheet.rows))):
        for col, text in _texts(sheet, row):
            if is_code(text):
                counts[col] = counts.get(col, 0) + 1
    return counts


def _header_text(sheet: Sheet, header_row: int, col: int) -> str:
    """What the header row prints over ``col`` (a merged header cell counts for every column)."""
    rng = _merged_at(sheet, header_row, col)
    return cell_text(sheet.cell(rng.first_row, rng.first_col))


def _reads_as_code_column(
    sheet: Sheet,
    first: int,
    last: int,
    col: int,
    header_row: int | None,
    is_code: Callable[[str], bool] = is_catalogue_code,
) -> bool:
    """``col`` is a code column without a «Код» header: between its first and last code most of
    its filled cells are codes (an amount column holds many other numbers), most code rows
    print a figure right of it, and no other header stands over it («Сумма», «Б/сч»; the name
    header merged over it is no other header)."""
    code_rows = [r for r in range(first, last) if is_code(cell_text(sheet.cell(r, col)))]
    if len(code_rows) < 2:
        return False
    filled = sum(1 for r in range(code_rows[0], code_rows[-1] + 1) if cell_text(sheet.cell(r, col)))
    if len(code_rows) < _CODE_SHARE * filled:
        return False
    figured = sum(
        1
        for r in code_rows
        if any(c > col and any(ch.isdigit() for ch in t) for c, t in _texts(sheet, r))
    )
    if 2 * figured < len(code_rows):
        return False
    if header_row is None:
        return True
    head = fold(_header_text(sheet, header_row, col))
    return not head or bool(_CODE_HEADER.match(head) or _NAME_HEADER.match(head))


def _headerless_code_column(
    sheet: Sheet,
    first: int,
    last: int,
    header_row: int | None,
    is_code: Callable[[str], bool] = is_catalogue_code,
) -> int | None:
    counts = _code_counts(sheet, first, last, is_code)
    for col in sorted(counts, key=lambda c: (-counts[c], c)):
        if _reads_as_code_column(sheet, first, last, col, header_row, is_code):
            return col
    return None


def _legacy_income_table(
    sheet: Sheet, first_row: int, last_row: int
) -> tuple[int, int, int] | None:
    """(code column, header row, end row) of a pre-2011 «Отчет о прибылях и убытках» printed
    without «Наименование» / «Код» headers: a column of its 3-digit codes (010 … 190) under the
    title row, which labels the value columns; the table ends where another table's «Код»
    header starts (a workbook of several legacy forms one under another)."""
    end = next(
        (
            row
            for row in range(first_row + 1, last_row)
            if any(_CODE_HEADER.match(fold(t)) for _, t in _texts(sheet, row))
        ),
        last_row,
    )
    code_col = _headerless_code_column(sheet, first_row, end, None, is_legacy_income_code)
    return None if code_col is None else (code_col, first_row, end)


def code_column_codes(sheet: Sheet) -> list[str]:
    """The catalogue codes printed in the sheet's code columns (columns that read as code
    columns by the rule of `locate_table`), never an amount that happens to equal a code."""
    last = len(sheet.rows)
    counts = _code_counts(sheet, 0, last)
    columns = [
        c for c, n in counts.items() if n >= 2 and _reads_as_code_column(sheet, 0, last, c, None)
    ]
    return [
        text
        for row in range(last)
        for col in columns
        if is_catalogue_code(text := cell_text(sheet.cell(row, col)))
    ]


def _has_name_text(sheet: Sheet, row: int, lo: int, hi: int) -> bool:
    return any(
        lo <= c <= hi and any(ch.isalpha() for ch in t) and not _CODE_HEADER.match(fold(t))
        for c, t in _texts(sheet, row)
    )


def _is_numbering_row(cells: list[tuple[int, str]]) -> bool:
    return len(cells) >= 3 and all(t.isdigit() and len(t) <= 2 for _, t in cells)


def _signs(sheet: Sheet, row: int) -> bool:
    """The row is a signature line: a blank «_____» to sign on, or a row of captions only
    «(должность руководителя) | (подпись) | …» under it."""
    if any(_SIGNATURE_BLANK.match(t) for _, t in _texts(sheet, row)):
        return True
    captions = [fold(t) for _, t in _texts(sheet, row + 1)]
    return "(подпись)" in captions and all(c.startswith("(") and c.endswith(")") for c in captions)


def _stop_row(sheet: Sheet, first: int, last: int) -> tuple[int, int | None]:
    for row in range(first, min(last, len(sheet.rows))):
        for _, text in _texts(sheet, row):
            s = fold(text)
            if s.startswith(ADDITIONAL):
                return row, row
            if s.startswith(_STOP):
                return row, None
        if _signs(sheet, row):
            return row, None
    return min(last, len(sheet.rows)), None


@dataclass(slots=True)
class _Group:
    start: int
    end: int
    parts: list[str]
    notes: bool = False


def _sub_headers(
    lower: list[tuple[int, int, int, str]], start: int, end: int
) -> list[tuple[int, int, int, str]]:
    """The cells of the header row right under a group header «Данные за квартал» spanning
    ``start``..``end``, when they name two or more columns of their own."""
    if end <= start:
        return []
    inside = [x for x in lower if start <= x[1] <= end]
    if not inside:
        return []
    row = min(x[0] for x in inside)
    sub = sorted(x for x in inside if x[0] == row)
    if len({x[1] for x in sub}) < 2 or any(_FRAGMENT.match(fold(x[3])) for x in sub):
        return []
    return sub


def _columns(
    sheet: Sheet, header_rows: list[int], value_start: int, width: int
) -> list[ValueColumn]:
    """One value column per header cell of the lowest level: a group header over several
    sub-headers (dated or not) gives one column per sub-header, labelled «group sub»; a notes
    header («Пояснения») bounds its neighbours but is no value column."""
    cells: list[tuple[int, int, int, str]] = []  # row, start, end, text
    groups: list[_Group] = []
    for row in header_rows:
        every = _texts(sheet, row)
        if _is_numbering_row(every):
            continue
        for col, text in every:
            if col < value_start:
                continue
            end = max(col, _merged_at(sheet, row, col).last_col)
            if is_notes_header(fold(text)):
                groups.append(_Group(col, end, [text], notes=True))
            else:
                cells.append((row, col, end, text))
    if not cells:
        return []
    top = min(r for r, *_ in cells)
    lower = [c for c in cells if c[0] != top]
    taken: set[tuple[int, int]] = set()
    tops = sorted(c for c in cells if c[0] == top)
    bounds = sorted([c[1] for c in tops] + [g.start for g in groups] + [width])
    for _, start, end, text in tops:
        values = [g for g in groups if not g.notes]
        # «За 20» | « г.8»: one label in two cells; «6» | «12» | «18» are three labels.
        if (
            values
            and _FRAGMENT.match(fold(text))
            and any(ch.isalpha() for ch in values[-1].parts[-1])
        ):
            values[-1].parts.append(text)
            values[-1].end = max(values[-1].end, end)
            continue
        dated = [x for x in lower if start <= x[1] <= end and parse_period_label(x[3])[0] != "none"]
        sub = dated if len(dated) >= 2 else _sub_headers(lower, start, end)
        if not sub and end == start:  # unmerged: it reaches to the next header cell of its row
            reach = next(b for b in bounds if b > start) - 1
            sub = _sub_headers(lower, start, reach)
            sub = sub if sub and sub[0][1] == start else []  # the first right under it
        if sub:
            groups.extend(_Group(s, e, [text, t]) for _, s, e, t in sub)
            taken.update((r, s) for r, s, _, _ in sub)
        else:
            groups.append(_Group(start, end, [text]))
    groups.sort(key=lambda g: g.start)
    for r, s, _e, t in lower:
        if (r, s) in taken:
            continue
        owner = max((i for i, g in enumerate(groups) if g.start <= s), default=0)
        if t not in groups[owner].parts:
            groups[owner].parts.append(t)
    columns: list[ValueColumn] = []
    for i, group in enumerate(groups):
        if group.notes:
            continue
        stop = groups[i + 1].start - 1 if i + 1 < len(groups) else width - 1
        label = " ".join(" ".join(group.parts).split())
        columns.append(
            ValueColumn(group.start, max(group.start, stop), label, group.start, group.end)
        )
    return columns


def _table_width(sheet: Sheet, first_row: int, last_row: int) -> int:
    """One past the table's rightmost column: its used columns from the left until a gap of more
    than ``_COL_GAP`` empty ones (what lies past the gap is a stray, not a column)."""
    used = sorted({c for row in range(first_row, last_row) for c, _ in _texts(sheet, row)})
    width = used[0] + 1 if used else 0
    for col in used:
        if col - width > _COL_GAP:
            break
        width = col + 1
    return width


def locate_table(
    sheet: Sheet, first_row: int, last_row: int, *, legacy_income: bool = False
) -> TableLayout | None:
    """The table of a statement in rows ``first_row`` ≤ row < ``last_row``, or None.

    ``legacy_income``: an ОФР segment, which may be the pre-2011 «Отчет о прибылях и убытках»
    printed without headers (``_legacy_income_table``)."""
    last_row = min(last_row, len(sheet.rows))
    width = _table_width(sheet, first_row, last_row)
    name_hdr = _find(sheet, first_row, last_row, _NAME_HEADER)
    code_hdr = _find(sheet, first_row, last_row, _CODE_HEADER)
    header_row = min((h[0] for h in (name_hdr, code_hdr) if h is not None), default=None)
    body_first = header_row + 1 if header_row is not None else first_row
    stop, additional = _stop_row(sheet, body_first, last_row)

    code_lo = code_hi = code_col = None
    if code_hdr is not None:
        rng = _merged_at(sheet, *code_hdr)
        code_lo, code_hi = code_hdr[1], max(code_hdr[1], rng.last_col)
        counts = _code_counts(sheet, body_first, stop)
        inside = {c: n for c, n in counts.items() if code_lo <= c <= code_hi}
        if inside:
            code_col = max(inside, key=lambda c: (inside[c], -c))
    if code_col is None:
        code_col = _headerless_code_column(sheet, body_first, stop, header_row)
        if code_col is not None:
            code_lo = code_hi = code_col
    if name_hdr is None and code_col is None and legacy_income:
        legacy = _legacy_income_table(sheet, first_row, stop)
        if legacy is not None:
            code_col, header_row, stop = legacy
            code_lo = code_hi = code_col
    if name_hdr is None and code_col is None:
        return None

    if name_hdr is not None:
        name_start = name_hdr[1]
        name_end = max(name_start, _merged_at(sheet, *name_hdr).last_col)
    else:
        assert code_col is not None
        long_texts: dict[int, int] = {}
        for row in range(body_first, stop):
            for c, t in _texts(sheet, row):
                if c < code_col and sum(ch.isalpha() for ch in t) >= 5:
                    long_texts[c] = long_texts.get(c, 0) + 1
        name_start = max(long_texts, key=lambda c: (long_texts[c], -c)) if long_texts else 0
        name_end = name_start
    if code_lo is not None and code_lo > name_start:
        name_end = max(name_end, code_lo - 1)
    value_start = max(code_hi if code_hi is not None else -1, name_end) + 1

    header_rows: list[int] = []
    data_start = body_first
    if header_row is not None:
        row = header_row
        while row < stop and len(header_rows) < _MAX_HEADER_ROWS:
            coded = code_col is not None and is_catalogue_code(cell_text(sheet.cell(row, code_col)))
            if row > header_row and (coded or _has_name_text(sheet, row, name_start, name_end)):
                break
            header_rows.append(row)
            row += 1
        data_start = row
    columns = _columns(sheet, header_rows, value_start, width)
    if not columns and header_row is None:
        columns = _columns_from_data(sheet, data_start, stop, value_start, width)
    first_col = min(name_start, code_lo if code_lo is not None else name_start)
    if header_row is not None:
        first_col = min([first_col] + [c for c, _ in _texts(sheet, header_row)])
    return TableLayout(
        header_row=header_row,
        data_start=data_start,
        end_row=stop,
        code_lo=code_lo,
        code_hi=code_hi,
        code_col=code_col,
        name_start=name_start,
        name_end=name_end,
        columns=columns,
        additional_row=additional,
        first_col=first_col,
        last_col=max([c.label_end for c in columns] + [value_start - 1, name_end]),
    )


def _columns_from_data(
    sheet: Sheet, first: int, last: int, value_start: int, width: int
) -> list[ValueColumn]:
    """Unlabelled value columns (a continuation sheet without a header): every column right of
    the codes that holds a number somewhere."""
    used = sorted(
        {
            c
            for row in range(first, last)
            for c, v in enumerate(sheet.rows[row] if row < len(sheet.rows) else [])
            if value_start <= c < width
            and (
                (isinstance(v, int | float) and not isinstance(v, bool))
                or (isinstance(v, str) and any(ch.isdigit() for ch in v))
            )
        }
    )
    return [ValueColumn(c, c, None, c) for c in used]
