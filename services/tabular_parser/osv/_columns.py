"""The two-row ОСВ header, found wherever it is and mapped by its texts, never by position.

«Счет» | «Сальдо на начало периода» | «Обороты за период» | «Сальдо на конец периода», then
«Код» | «Наименование» | Дебет | Кредит ×3. Each group is merged over its Дебет and Кредит
cells, sometimes over an empty spacer column too, so a sum column is a *span*: its value is
the first non-empty cell of the span.

A balance sheet of ЕПС (a non-credit financial organisation's chart) prints one balance column
per group («Входящие остатки», «Обороты-дебет», «Обороты-кредит», «Исходящие остатки», each
over руб. / вал. / итого) and the account's side («…Актив», «…Пассив.») in a column of its own:
the итого column is the sum, its side says debit or credit (`_sided_layout`), руб. and вал.
go to `extra`.

A bank's ведомость names the balance sides «Актив» / «Пассив» instead of Дебет / Кредит. 1C's
«Обороты счета» prints the six sums on one header row instead («Нач. сальдо деб.», «Оборот Дт»,
«Кон. сальдо кред.» …) with the corresponding accounts' columns between the turnovers: those
are `extra` columns named «<turnover header>: <corr. account>» (`_one_row_layout`).
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from dataclasses import dataclass

from services.contract.osv_row import OSV_SUM_FIELDS
from services.excel.model import CellRange, CellValue, Sheet, column_letters

from ._accounts import account_code
from ._cells import cell_text

__all__ = ["SUM_FIELDS", "Column", "Layout", "find_layout", "layout_at"]

SUM_FIELDS = OSV_SUM_FIELDS  # the contract row's six sums, in its order
_GROUPS = (
    re.compile(
        r"сальдо\s+на\s+начало|начальн\w*\s+сальдо|входящ\w*\s+сальдо|сальдо\s+(?:начальн|входящ)",
        re.IGNORECASE,
    ),
    re.compile(r"оборот", re.IGNORECASE),
    re.compile(
        r"сальдо\s+на\s+конец|конечн\w*\s+сальдо|исходящ\w*\s+сальдо|сальдо\s+(?:конечн|исходящ)",
        re.IGNORECASE,
    ),
)
_DEBIT = ("дебет", "дт", "актив")
_CREDIT = ("кредит", "кт", "пассив")
# One header row with the six sums: the group of each, and its side.
# «Сальдо начальное Дт» (a flat 1C export) names its group after the word «сальдо».
_OPENING = re.compile(
    r"сальдо\s+на\s+начало|нач\w*\.?\s*сальдо|входящ\w*\s+сальдо|сальдо\s+(?:нач|входящ)", re.I
)
_CLOSING = re.compile(
    r"сальдо\s+на\s+конец|кон\w*\.?\s*сальдо|исходящ\w*\s+сальдо|сальдо\s+(?:кон|исходящ)", re.I
)
_TURNOVER = re.compile(r"оборот", re.IGNORECASE)
_DEBIT_WORD = re.compile(r"(?<!\w)(?:дт|деб\w*)(?!\w)", re.IGNORECASE)
_CREDIT_WORD = re.compile(r"(?<!\w)(?:кт|кред\w*)(?!\w)", re.IGNORECASE)
_SIDED_GROUPS = (
    re.compile(r"входящ\w*\s+остат|остат\w*\s+на\s+начало", re.IGNORECASE),
    re.compile(r"оборот\w*\W+(?:по\s+)?дебет", re.IGNORECASE),
    re.compile(r"оборот\w*\W+(?:по\s+)?кредит", re.IGNORECASE),
    re.compile(r"исходящ\w*\s+остат|остат\w*\s+на\s+конец", re.IGNORECASE),
)
_SIDE = re.compile(r"актив|пассив", re.IGNORECASE)
_SIDE_ROWS = 30  # body rows looked at to find the side column
_TOTAL_SUB = "итого"
_ACCOUNT_HEADERS = ("б/сч", "бал. сч", "балансов", "№ сч", "номер сч")
_SCAN_ROWS = 200
_SUBHEADER_DEPTH = 3
_KIND_ROWS = 3


@dataclass(frozen=True, slots=True)
class Column:
    index: int
    header: str


@dataclass(frozen=True, slots=True)
class Layout:
    header_row: int
    header_end: int
    first_col: int
    last_col: int
    sums: tuple[tuple[int, int], ...]  # one inclusive column span per SUM_FIELDS entry
    sum_labels: tuple[str, ...]
    code_col: int | None
    name_col: int | None
    combined_col: int | None  # one «Счет» column holding codes and names (name_col: names of codes)
    inn_col: int | None
    indicator_col: int | None
    extra: tuple[Column, ...]
    subconto_kinds: tuple[str, ...]
    side_col: int | None = None  # «Актив» / «Пассив» per row: balances are one column a side


def find_layout(sheet: Sheet, start: int = 0) -> Layout | None:
    """The first ОСВ table header in the `_SCAN_ROWS` rows from `start`, or None.

    `start` 0 looks at the sheet's first rows; a later start looks for the next table below
    one already read, so only the rows after that table are searched.
    """
    for row in range(start, min(len(sheet.rows), start + _SCAN_ROWS)):
        layout = layout_at(sheet, row)
        if layout is not None:
            return layout
    return None


def layout_at(sheet: Sheet, row: int) -> Layout | None:
    """The ОСВ table header whose group row is `row`, or None when the row starts none."""
    cells = sheet.rows[row]
    groups = _group_columns(cells)
    if groups is not None and (layout := _layout_at(sheet, row, groups)) is not None:
        return layout
    sums = _one_row_sums(cells)
    if sums is not None:
        return _one_row_layout(sheet, row, sums)
    sided = _group_columns(cells, _SIDED_GROUPS)
    return None if sided is None else _sided_layout(sheet, row, sided)


def _group_columns(
    cells: list[CellValue], patterns: tuple[re.Pattern[str], ...] = _GROUPS
) -> list[int] | None:
    """The first column matching each pattern, when all match left to right in that order."""
    found: list[int | None] = [None] * len(patterns)
    for col, value in enumerate(cells):
        if not isinstance(value, str) or len(value) < 6:
            continue
        for g, pattern in enumerate(patterns):
            if found[g] is None and pattern.search(value):
                found[g] = col
                break
    if None in found:
        return None
    cols = [c for c in found if c is not None]
    return cols if all(left < right for left, right in itertools.pairwise(cols)) else None


def _layout_at(sheet: Sheet, row: int, groups: list[int]) -> Layout | None:
    window = row + _SUBHEADER_DEPTH + _KIND_ROWS
    covering = _merges_in_rows(sheet.merged, row, window)
    merged_ends: list[int | None] = []
    search_ends: list[int] = []
    for g, col in enumerate(groups):
        merged = covering.get((row, col))
        merged_end = merged.last_col if merged is not None and merged.first_col == col else None
        merged_ends.append(merged_end)
        if merged_end is not None:
            search_ends.append(merged_end)
        elif g + 1 < len(groups):
            search_ends.append(groups[g + 1] - 1)
        else:
            search_ends.append(col + _SUBHEADER_DEPTH)
    unmerged = all(end is None for end in merged_ends)
    for sub in range(row + 1, min(row + 1 + _SUBHEADER_DEPTH, len(sheet.rows))):
        pairs = _debit_credit(sheet.rows[sub], groups, search_ends)
        if pairs is None and unmerged:
            pairs = _pairs_by_position(sheet.rows[sub], groups[0])
        if pairs is not None:
            return _build(sheet, row, sub, groups, merged_ends, pairs, covering)
    return None


def _pairs_by_position(cells: list[CellValue], start: int) -> list[tuple[int, int]] | None:
    """Group titles in consecutive unmerged cells (a 1C ОСВ pasted into XLS) over a full
    Дебет | Кредит row: the n-th title owns the n-th pair from its first column on, so the
    titles attach to their pairs by position, not by the merge Excel lost."""
    pairs: list[tuple[int, int]] = []
    debit: int | None = None
    for col in range(start, len(cells)):
        text = cell_text(cells[col]).lower()
        if text.startswith(_DEBIT) and debit is None:
            debit = col
        elif text.startswith(_CREDIT) and debit is not None:
            pairs.append((debit, col))
            debit = None
        elif text and debit is not None:
            return None  # a debit not followed by its credit: no pair row
        if len(pairs) == len(_GROUPS):
            return pairs
    return None


def _debit_credit(
    cells: list[CellValue], groups: list[int], search_ends: list[int]
) -> list[tuple[int, int]] | None:
    pairs = []
    for start, end in zip(groups, search_ends, strict=True):
        debit = credit = None
        for col in range(start, min(end, len(cells) - 1) + 1):
            text = cell_text(cells[col]).lower()
            if debit is None and text.startswith(_DEBIT):
                debit = col
            elif credit is None and text.startswith(_CREDIT):
                credit = col
        if debit is None or credit is None or credit <= debit:
            return None
        pairs.append((debit, credit))
    return pairs


def _merges_in_rows(
    merged: list[CellRange], first: int, last: int
) -> dict[tuple[int, int], CellRange]:
    """Every cell of rows [first, last] that a merged range covers → that range."""
    covering: dict[tuple[int, int], CellRange] = {}
    for rng in merged:
        if rng.last_row < first or rng.first_row > last:
            continue
        for r in range(max(rng.first_row, first), min(rng.last_row, last) + 1):
            for c in range(rng.first_col, rng.last_col + 1):
                covering[(r, c)] = rng
    return covering


def _build(
    sheet: Sheet,
    row: int,
    sub: int,
    groups: list[int],
    merged_ends: list[int | None],
    pairs: list[tuple[int, int]],
    covering: dict[tuple[int, int], CellRange],
) -> Layout:
    sums: list[tuple[int, int]] = []
    labels: list[str] = []
    header_end = sub
    for g, (debit, credit) in enumerate(pairs):
        credit_merge = covering.get((sub, credit))
        group_end = merged_ends[g]
        if credit_merge is not None and credit_merge.first_col == credit:
            credit_end = credit_merge.last_col
        else:
            credit_end = group_end if group_end is not None and group_end > credit else credit
        sums += [(debit, credit - 1), (credit, credit_end)]
        group_text = cell_text(sheet.cell(row, groups[g]))
        labels += [
            f"{group_text} {cell_text(sheet.cell(sub, debit))}",
            f"{group_text} {cell_text(sheet.cell(sub, credit))}",
        ]
        for col in (debit, credit):
            if (merged := covering.get((sub, col))) is not None:
                header_end = max(header_end, merged.last_row)
    header_end = min(header_end, sub + _KIND_ROWS, len(sheet.rows) - 1)
    in_sums = {c for start, end in sums for c in range(start, end + 1)}
    used = [
        col
        for r in range(row, header_end + 1)
        for col, value in enumerate(sheet.rows[r])
        if cell_text(value)
    ]
    first_col = min(min(used), groups[0])
    last_col = max(max(used), sums[-1][1])
    return _labelled(
        sheet, row, header_end, (first_col, last_col), (sums, labels), covering, in_sums, []
    )


def _labelled(
    sheet: Sheet,
    row: int,
    header_end: int,
    bounds: tuple[int, int],
    sums_and_labels: tuple[list[tuple[int, int]], list[str]],
    covering: dict[tuple[int, int], CellRange],
    taken: set[int],
    extra: list[Column],
) -> Layout:
    """The layout, once the sum columns are known: every other headed column of
    `bounds` (first, last) is read by its header texts (Код, Наименование, Показатели, ИНН,
    Счет…); columns in `taken` are sums or already in `extra`."""
    first_col, last_col = bounds
    sums, labels = sums_and_labels
    code_col = name_col = combined_col = inn_col = indicator_col = None
    kinds: list[str] = []
    extra = list(extra)
    for col in range(first_col, last_col + 1):
        if col in taken:
            continue
        texts = _column_texts(sheet, row, header_end, col, covering)
        lowered = [t.lower() for t in texts]
        if any(t.startswith("код") or t.startswith(_ACCOUNT_HEADERS) for t in lowered):
            code_col = col
            if lowered[0].startswith("сч"):
                kinds += [
                    t
                    for t, low in zip(texts[1:], lowered[1:], strict=True)
                    if not low.startswith("код")
                ]
        elif any(t.startswith("наименование") for t in lowered):
            name_col = col
        elif any(t.startswith("показ") for t in lowered):
            indicator_col = col
        elif any(t == "инн" or t.startswith("инн ") for t in lowered):
            inn_col = col
        elif lowered and lowered[0].startswith(("сч", "субконто")) and combined_col is None:
            combined_col = col
            kinds += texts[1:]
        elif texts:
            extra.append(Column(col, texts[-1]))
    if code_col is None and name_col is None and combined_col is None:
        extras = {c.index for c in extra}
        if first_col not in extras and first_col not in (inn_col, indicator_col):
            combined_col = first_col
    if combined_col is not None:
        if name_col is None:
            name_col = _under_same_merge(row, combined_col, covering, taken)
        header_end = _kind_rows(sheet, header_end, combined_col, kinds, bounds)
    return Layout(
        header_row=row,
        header_end=header_end,
        first_col=first_col,
        last_col=last_col,
        sums=tuple(sums),
        sum_labels=tuple(labels),
        code_col=code_col,
        name_col=name_col,
        combined_col=combined_col,
        inn_col=inn_col,
        indicator_col=indicator_col,
        extra=_unique_headers(extra),
        subconto_kinds=tuple(kinds),
    )


def _one_row_sums(cells: list[CellValue]) -> list[int] | None:
    """The columns of the six sums when one header row names them all, in SUM_FIELDS order."""
    found: list[int | None] = [None] * len(SUM_FIELDS)
    for col, value in enumerate(cells):
        if not isinstance(value, str) or len(value) < 5:
            continue
        if _OPENING.search(value):
            group = 0
        elif _CLOSING.search(value):
            group = 4
        elif _TURNOVER.search(value):
            group = 2
        else:
            continue
        side = 0 if _DEBIT_WORD.search(value) else 1 if _CREDIT_WORD.search(value) else None
        if side is not None and found[group + side] is None:
            found[group + side] = col
    if None in found:
        return None
    cols = [c for c in found if c is not None]
    return cols if cols == sorted(cols) and len(set(cols)) == len(cols) else None


def _one_row_layout(sheet: Sheet, row: int, sum_cols: list[int]) -> Layout:
    """«Обороты счета»: each sum spans up to the next header cell; the headed cells between
    and after the turnovers are the corresponding accounts' columns (`extra`)."""
    cells = sheet.rows[row]
    headed = [c for c, v in enumerate(cells) if cell_text(v)]
    last_col = max(headed[-1], sum_cols[-1])
    sums: list[tuple[int, int]] = []
    labels: list[str] = []
    for col in sum_cols:
        after = [c for c in headed if c > col]
        sums.append((col, after[0] - 1 if after else col))
        labels.append(cell_text(cells[col]))
    in_sums = {c for start, end in sums for c in range(start, end + 1)}
    extra: list[Column] = []
    for col in headed:
        if sum_cols[2] < col < sum_cols[4] and col not in in_sums:
            turnover = labels[2] if col < sum_cols[3] else labels[3]
            code = account_code(cells[col], cell_text(cells[col]), own_column=True)
            extra.append(Column(col, f"{turnover}: {code or cell_text(cells[col])}"))
    taken = in_sums | {c.index for c in extra}
    texts = [c for c in headed if c < sum_cols[0] and isinstance(cells[c], str)]
    first_col = texts[0] if texts else sum_cols[0]
    covering = _merges_in_rows(sheet.merged, row, row + _KIND_ROWS)
    return _labelled(sheet, row, row, (first_col, last_col), (sums, labels), covering, taken, extra)


def _sided_layout(sheet: Sheet, row: int, groups: list[int]) -> Layout | None:
    """One sum column per group (its «итого» sub-column, else its first), the side column
    found in the body; None without a side column (debit and credit cannot be told)."""
    covering = _merges_in_rows(sheet.merged, row, row + _SUBHEADER_DEPTH)
    sub = row + 1
    spans: list[tuple[int, int]] = []
    extra: list[Column] = []
    for g, col in enumerate(groups):
        merged = covering.get((row, col))
        end = merged.last_col if merged is not None and merged.first_col == col else col
        if g + 1 < len(groups):
            end = min(end, groups[g + 1] - 1)
        group_text = cell_text(sheet.cell(row, col))
        subs = {c: cell_text(sheet.cell(sub, c)) for c in range(col, end + 1)}
        total = next((c for c, t in subs.items() if t.lower().startswith(_TOTAL_SUB)), col)
        spans.append((total, total))
        extra += [Column(c, f"{group_text} {t}") for c, t in subs.items() if t and c != total]
    header_end = (
        _numbering_row(sheet, sub) if any(cell_text(sheet.cell(sub, c)) for c in groups) else row
    )
    side_col = _side_column(sheet, header_end, groups[0])
    if side_col is None:
        return None
    opening, debit, credit, closing = spans
    sums = [opening, opening, debit, credit, closing, closing]
    labels = [cell_text(sheet.cell(row, c)) for c in groups]
    sum_labels = [labels[0], labels[0], labels[1], labels[2], labels[3], labels[3]]
    headed = [c for r in range(row, sub + 1) for c, v in enumerate(sheet.rows[r]) if cell_text(v)]
    first_col = min(min(headed), side_col)
    last_col = max(headed)
    extra.insert(0, Column(side_col, cell_text(sheet.cell(row, side_col)) or "Сторона"))
    taken = {c for span in spans for c in span} | {c.index for c in extra}
    layout = _labelled(  # the header texts of its rows, not the numbering row under them
        sheet, row, sub, (first_col, last_col), (sums, sum_labels), covering, taken, extra
    )
    header_end = max(header_end, layout.header_end)
    return dataclasses.replace(layout, side_col=side_col, header_end=header_end)


def _numbering_row(sheet: Sheet, sub: int) -> int:
    """The sub-header row, or the row under it when that one only numbers the columns
    («0», «1», «2» …, as forms print under their header)."""
    nxt = sub + 1
    texts = [cell_text(v) for v in sheet.rows[nxt]] if nxt < len(sheet.rows) else []
    numbers = [t for t in texts if t]
    if numbers and all(t.isdigit() for t in numbers) and len(numbers) >= len(texts) // 2:
        return nxt
    return sub


def _side_column(sheet: Sheet, header_end: int, before: int) -> int | None:
    """The column left of `before` whose body cells name the side (…Актив / …Пассив)."""
    rows = sheet.rows[header_end + 1 : header_end + 1 + _SIDE_ROWS]
    for col in range(before):
        texts = [cell_text(r[col]) for r in rows if col < len(r) and cell_text(r[col])]
        if texts and sum(1 for t in texts if _SIDE.search(t)) * 2 > len(texts):
            return col
    return None


def _under_same_merge(
    row: int, col: int, covering: dict[tuple[int, int], CellRange], in_sums: set[int]
) -> int | None:
    """The column right of «Счет» under the same merged header cell: the names of the codes."""
    merged = covering.get((row, col))
    if merged is None or merged.first_col != col or merged.last_col == col:
        return None
    nxt = col + 1
    return None if nxt in in_sums else nxt


def _column_texts(
    sheet: Sheet, row: int, end: int, col: int, covering: dict[tuple[int, int], CellRange]
) -> list[str]:
    """Header texts written in this column itself (a merge started elsewhere is its parent's)."""
    texts = []
    for r in range(row, end + 1):
        merged = covering.get((r, col))
        if merged is not None and (merged.first_row != r or merged.first_col != col):
            continue
        if text := cell_text(sheet.cell(r, col)):
            texts.append(text)
    return texts


def _kind_rows(
    sheet: Sheet, header_end: int, col: int, kinds: list[str], bounds: tuple[int, int]
) -> int:
    """Subconto kinds 1C writes under «Счет» on rows of their own when Дебет is not merged down
    (a cell outside the table's columns `bounds`, e.g. a level column, does not count)."""
    for _ in range(_KIND_ROWS):
        nxt = header_end + 1
        if nxt >= len(sheet.rows):
            break
        cells = sheet.rows[nxt]
        text = cell_text(sheet.cell(nxt, col))
        first, last = bounds
        others = any(cell_text(v) for c, v in enumerate(cells) if c != col and first <= c <= last)
        if not text or others or text.lower().startswith("итого"):
            break
        if account_code(sheet.cell(nxt, col), text, own_column=False) is not None:
            break
        kinds.append(text)
        header_end = nxt
    return header_end


def _unique_headers(columns: list[Column]) -> tuple[Column, ...]:
    seen: dict[str, int] = {}
    for column in columns:
        seen[column.header] = seen.get(column.header, 0) + 1
    unique = []
    for column in columns:
        if seen[column.header] > 1:
            column = Column(column.index, f"{column.header} ({column_letters(column.index)})")
        unique.append(column)
    return tuple(unique)
