"""The body of an ОСВ: one entry per account, subaccount, subconto and the «Итого» row.

A row that carries only another «Показатели» indicator (НУ, ПР, ВР, Кол., Вал.) belongs to
the entity above it: money is the БУ row, the other indicators' values are kept in that
entity's `extra` under «<indicator>: <column>» so nothing printed is lost. Without a
«Показатели» column, a row labelled «Количество» (or «Валютная сумма») is such a row too.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from dataclasses import dataclass, field

from services.excel.model import CellValue, Sheet
from services.excel.text import column_texts, squash
from services.excel.values import format_kopecks, parse_kopecks, span_kopecks

from ._accounts import account_code
from ._cells import cell_text
from ._columns import SUM_FIELDS, Layout, layout_at
from ._footer import FOOTER_RE, FOOTER_STARTS

__all__ = ["Body", "Entry", "Issue", "read_body"]

_EMPTY_AMOUNTS = frozenset({"", "-", "(-)", "—", "–"})
_MONEY_INDICATOR = "бу"
# Rows that carry another measure of the entity above when there is no «Показатели» column.
_QUANTITY = "кол"
_SIDE_RE = re.compile(r"актив|пассив", re.IGNORECASE)
_SECTION_TOTAL = re.compile(r"итого\s+по\s+(?:активу|пассиву)", re.IGNORECASE)
_ROUNDED = "OSV_VALUE_ROUNDED"
_KOPECK_ULP = 0.0005  # a float whose spacing is wider cannot tell kopecks apart exactly
_INDICATOR_ROWS = frozenset({"количество", "кол.", "валютная сумма", "вал. сумма", "в валюте"})
_INDICATOR_CHARS = max(map(len, _INDICATOR_ROWS))
_SUMS = len(SUM_FIELDS)
_EXACT_FLOAT = 1e13  # see `parse_kopecks`: below it, round(x * 100) / 100 == x means exact


@dataclass(slots=True)
class Entry:
    """One body row; `values` are the six sums in whole kopecks (exact ints), None when empty."""

    row_index: int
    kind: str
    account: str | None
    name: str | None
    inn: str | None
    values: list[int | None]
    extra: dict[str, str | None] = field(default_factory=dict)
    outline: int = 0
    level: int = 0
    parent: int = -1
    heading: bool = False  # text that is no code in the code column («КЛАСС 1 …», «БАЛАНС»)
    rounded: int = 0  # bit k: sum k had a fraction of a kopeck and was rounded


@dataclass(frozen=True, slots=True)
class Issue:
    """Something worth a document warning, before refs exist."""

    code: str
    message: str
    row_index: int | None = None
    column_index: int | None = None


@dataclass(slots=True)
class Body:
    entries: list[Entry]
    total: int | None  # index of the «Итого» entry
    last_row: int
    issues: list[Issue]
    subtotals: frozenset[int] = frozenset()  # «Итого по активу» entries before `total`


def read_body(sheet: Sheet, layout: Layout) -> Body:
    """Walk the rows after the header until «Итого», a signature footer or the next table.

    The next table's header ends a body that has neither «Итого» nor footer (several ОСВ on
    one sheet); the value-less rows read just above that header are its title block, so they
    are taken back out of this body (`_give_back_title_block`).
    """
    entries: list[Entry] = []
    issues: list[Issue] = []
    total: int | None = None
    sections: list[int] = []
    last_row = layout.header_end
    current: Entry | None = None
    rows, outline_levels, indicator_col = sheet.rows, sheet.outline_levels, layout.indicator_col
    code_col, name_col, inn_col = layout.code_col, layout.name_col, layout.inn_col
    sums, plain_empty = layout.sums, not sheet.formula_cells
    extras = tuple((column.index, column.header) for column in layout.extra)
    for r in range(layout.header_end + 1, len(rows)):
        cells = rows[r]
        if not cells:
            continue
        last = cells[-1]  # the reader trims empty tails: a value last means a row with values
        if (last is None or last == "") and cells.count(None) + cells.count("") == len(cells):
            continue
        width = len(cells)
        code = cells[code_col] if code_col is not None and code_col < width else None
        if code_col is not None and (code is None or code == ""):
            # an empty Код: a subconto row, most rows of a large sheet (`_label`, inlined)
            shown = cells[name_col] if name_col is not None and name_col < width else None
            account = None
            name = (squash(shown) if type(shown) is str else _text(shown)) or None
        else:
            account, name = _label(cells, layout)
        label = name or account or ""
        if account is None and label[:2].lower() in FOOTER_STARTS and FOOTER_RE.match(label):
            break  # a signature footer without an Итого above it
        mark = len(issues)
        values = _amounts(sheet, r, cells, sums, plain_empty, issues)
        rounded = _rounded_bits(issues, mark, layout) if len(issues) > mark else 0
        if layout.side_col is not None:
            _one_side(values, _text_at(cells, layout.side_col), r, issues)
        if label[:1] in "Ии" and label[:5].lower() == "итого":
            total = len(entries)
            extra = _extra(cells, extras, indicator_col)
            entries.append(Entry(r, "total", None, label, None, values, extra))
            entries[-1].rounded = rounded
            last_row = r
            if layout.side_col is not None and _SECTION_TOTAL.match(label):
                sections.append(total)  # «Итого по активу»: the пассив section follows
                continue
            last_row = _total_indicators(sheet, layout, r, entries[-1], issues)
            break
        if account is None and values.count(None) == _SUMS and layout_at(sheet, r) is not None:
            # the next table's header under a table without «Итого» or footer
            last_row = _give_back_title_block(sheet, layout, r, entries, issues)
            break
        indicator = "" if indicator_col is None else _text_at(cells, indicator_col)
        if (
            current is not None
            and indicator
            and account is None
            and name is None
            and outline_levels.get(r, 0) == current.outline
        ):  # (a row one outline level deeper is an unnamed subconto of its own)
            _fold_indicator(current, indicator, values, layout, cells)
            if indicator.lower().startswith(_QUANTITY):
                _keep_rounding_of_money(issues, r)
            last_row = r
            continue
        if (
            current is not None
            and indicator_col is None
            and account is None
            and name is not None
            and len(name) <= _INDICATOR_CHARS
            and name.lower() in _INDICATOR_ROWS
        ):  # «Обороты счета» prints the quantity on a row of its own, named in the label column
            _fold_indicator(current, name, values, layout, cells)
            _keep_rounding_of_money(issues, r)
            last_row = r
            continue
        extra = _extra(cells, extras, indicator_col)
        shown = cells[inn_col] if inn_col is not None and inn_col < width else None
        inn: str | None
        if type(shown) is str:  # `_inn` of a text cell, inlined (most rows of a large sheet)
            digits = squash(shown)
            inn = ("0" + digits if len(digits) in (9, 11) and digits.isdigit() else digits) or None
        else:
            inn = _inn(shown)
        if (
            label == ""
            and inn is None
            and all(v is None for v in values)
            and all(v is None for v in extra.values())
        ):
            continue
        moved: list[int | None] | None = None
        if indicator and indicator.lower() != _MONEY_INDICATOR:
            # An entity whose first row is not БУ: its money is unknown, its values kept aside.
            moved, values = values, [None] * len(values)
        kind = "subconto" if account is None else "subaccount" if "." in account else "account"
        current = Entry(r, kind, account, name, inn, values, extra, outline_levels.get(r, 0))
        if account is None and code_col is not None and code is not None and code != "":
            current.heading = True
        current.rounded = rounded
        if moved is not None:
            _fold_indicator(current, indicator, moved, layout, cells)
        entries.append(current)
        last_row = r
    if sections and sections[-1] == total:
        sections.pop()
    return Body(entries, total, last_row, _one_rounding_issue(issues), frozenset(sections))


def _one_side(values: list[int | None], side: str, row: int, issues: list[Issue]) -> None:
    """Balances printed one column a side: «…Актив» keeps them as debit, «…Пассив» as credit
    (both spans read the same column); without a side they cannot be placed and stay empty."""
    found = _SIDE_RE.findall(side)
    kept = found[-1].lower() if found else None
    if kept is None and any(v is not None for v in values[0::4]):
        issues.append(
            Issue(
                "OSV_SIDE_UNKNOWN",
                f"Сальдо без стороны «Актив» / «Пассив» («{side}»): не разнесено",
                row,
            )
        )
    for debit in (0, 4):
        if kept != "актив":
            values[debit] = None
        if kept != "пассив":
            values[debit + 1] = None


def _total_indicators(
    sheet: Sheet, layout: Layout, row: int, total: Entry, issues: list[Issue]
) -> int:
    """The «Кол.» / «НУ» rows 1C prints under «Итого» are the total's (folded into its
    `extra`, as under any entity); the last row of the body."""
    col = layout.indicator_col
    if col is None:
        return row
    while row + 1 < len(sheet.rows):
        cells = sheet.rows[row + 1]
        indicator = _text_at(cells, col)
        account, name = _label(cells, layout)
        if not indicator or account is not None or name is not None:
            break
        values = _amounts(sheet, row + 1, cells, layout.sums, not sheet.formula_cells, issues)
        _fold_indicator(total, indicator, values, layout, cells)
        if indicator.lower().startswith(_QUANTITY):
            _keep_rounding_of_money(issues, row + 1)
        row += 1
    return row


def _rounded_bits(issues: list[Issue], mark: int, layout: Layout) -> int:
    """The sums of this row (issues from `mark` on) that were rounded, as a bit mask."""
    bits = 0
    for issue in issues[mark:]:
        if issue.code != _ROUNDED or issue.column_index is None:
            continue
        for k, (start, end) in enumerate(layout.sums):
            if start <= issue.column_index <= end:
                bits |= 1 << k
    return bits


def _keep_rounding_of_money(issues: list[Issue], row: int) -> None:
    """A quantity row's digits are kept as printed (`_fold_indicator`): nothing was rounded."""
    issues[:] = [i for i in issues if i.code != _ROUNDED or i.row_index != row]


def _one_rounding_issue(issues: list[Issue]) -> list[Issue]:
    """Sums with fractions of a kopeck (a bank's export may print 74975624165.88272): one
    warning for the table, at the first such cell, with how many there are."""
    rounded = [issue for issue in issues if issue.code == _ROUNDED]
    if not rounded:
        return issues
    first = rounded[0]
    message = (
        f"Сумм с долями копейки: {len(rounded)}, округлены до копеек (половина — вверх), "
        f"первая: {first.message}; контрольные суммы допускают полкопейки на округлённую сумму"
    )
    kept = [issue for issue in issues if issue.code != _ROUNDED]
    return [*kept, Issue(_ROUNDED, message, first.row_index, first.column_index)]


def _give_back_title_block(
    sheet: Sheet, layout: Layout, next_header: int, entries: list[Entry], issues: list[Issue]
) -> int:
    """Drop the trailing entries without sums (the next table's title block); the new last row."""
    stop = next_header
    while entries and _label_only(entries[-1]):
        stop = entries.pop().row_index
    last_row = entries[-1].row_index if entries else layout.header_end
    if entries and layout.indicator_col is not None:
        # the indicator rows folded into the last kept entity still belong to the body
        while last_row + 1 < stop and _text_at(sheet.rows[last_row + 1], layout.indicator_col):
            last_row += 1
    issues[:] = [i for i in issues if i.row_index is None or i.row_index <= last_row]
    return last_row


def _label_only(entry: Entry) -> bool:
    """No sum at all: a title-block line (organisation, title, «Выводимые данные: …»), whatever
    column its text fell into, rather than a body row (1C prints no all-zero rows)."""
    return entry.values.count(None) == len(entry.values)


def _label(cells: list[CellValue], layout: Layout) -> tuple[str | None, str | None]:
    """(account code, name) of a row, from a Код + Наименование pair or one «Счет» column."""
    if layout.code_col is not None:
        value = _value_at(cells, layout.code_col)
        code_text = _text(value)
        name_text = _text_at(cells, layout.name_col)
        if not code_text:  # a subconto row: the common case of a large sheet
            return None, name_text or None
        code = account_code(value, code_text, own_column=True)
        if code is not None:
            return code, name_text or None
        joined = " ".join(t for t in (code_text, name_text) if t)
        return None, joined or None
    if layout.combined_col is None:
        return None, _text_at(cells, layout.name_col) or None
    value = _value_at(cells, layout.combined_col)
    text = _text(value)
    second = _text_at(cells, layout.name_col)
    # Only a cell that is nothing but a code is an account: «000 Ромашка» is a counterparty.
    code = account_code(value, text, own_column=False) if text else None
    if code is not None:
        return code, second or None
    joined = " ".join(t for t in (text, second) if t)
    return None, joined or None


def _amounts(
    sheet: Sheet,
    row: int,
    cells: list[CellValue],
    sums: tuple[tuple[int, int], ...],
    plain_empty: bool,
    issues: list[Issue],
) -> list[int | None]:
    """The first non-empty cell of each sum span, in kopecks (the hot loop of a large sheet).

    The common cases are decided here: the span's first cell is a float that is an exact
    kopeck amount (`parse_kopecks`' fast path, inlined), or a one- or two-column span is all
    empty ("" or None). The rest goes through `_span_amount`, which is the rule itself.
    `sums` are the layout's spans; `plain_empty` says the sheet has no formula without a value
    (an empty cell is then just empty).
    """
    fast = span_kopecks(cells, sums, plain_empty)  # the plain row, decided in C where built
    if fast is not None:
        return fast
    values: list[int | None] = []
    width = len(cells)
    for start, end in sums:
        value = cells[start] if start < width else None
        if type(value) is float and -_EXACT_FLOAT < value < _EXACT_FLOAT:
            kopecks = round(value * 100)
            if kopecks / 100 == value:
                values.append(kopecks)
                continue
        elif (
            (value == "" or value is None)
            and plain_empty
            and (
                end == start
                or start + 1 >= width
                or (end == start + 1 and (cells[end] == "" or cells[end] is None))
            )
        ):
            values.append(None)
            continue
        values.append(_span_amount(sheet, row, cells, start, end, issues))
    return values


def _span_amount(
    sheet: Sheet, row: int, cells: list[CellValue], start: int, end: int, issues: list[Issue]
) -> int | None:
    """The first non-empty cell of the span [start, end], read as kopecks."""
    last = len(cells) - 1
    formulas = sheet.formula_cells
    for col in range(start, (end if end < last else last) + 1):
        value = cells[col]
        if value is None or value == "":
            if formulas and (row, col) in formulas:
                issues.append(
                    Issue(
                        "OSV_FORMULA_NO_VALUE",
                        "Формула без сохранённого значения: прочитана как пустая",
                        row,
                        col,
                    )
                )
            continue
        found = _parse(value)
        if found is None:
            _unreadable(value, row, col, issues)
        elif type(value) is float and _rounded(value, found):
            issues.append(Issue(_ROUNDED, f"{value!r}", row, col))
        return found
    return None


def _rounded(value: float, kopecks: int) -> bool:
    """The float is not its kopecks: a fraction of a kopeck beyond float noise (67943876.75999999
    is 67943876.76), or a magnitude where a float cannot hold kopecks at all (from ~10^13)."""
    if kopecks / 100 == value:
        return False
    ulp = math.ulp(value)
    return abs(value - kopecks / 100) > 2 * ulp or ulp > _KOPECK_ULP


def _unreadable(value: CellValue, row: int, col: int, issues: list[Issue]) -> None:
    text = cell_text(value)
    if text not in _EMPTY_AMOUNTS:
        issues.append(Issue("OSV_VALUE_UNREADABLE", f"Не сумма: «{text}»", row, col))


def _parse(value: CellValue) -> int | None:
    try:
        return parse_kopecks(value)
    except ArithmeticError:  # beyond Decimal's precision (e.g. 1e26): not money
        return None


def _extra(
    cells: list[CellValue], extras: tuple[tuple[int, str], ...], indicator_col: int | None
) -> dict[str, str | None]:
    """The extra columns' texts by header (`extras`: the layout's (index, header) pairs)."""
    extra = column_texts(cells, extras)  # a row of texts (most rows), in C where built
    if extra is None:
        extra = _extra_values(cells, extras)
    if indicator_col is not None:
        extra["Показатели"] = _text_at(cells, indicator_col) or None
    return extra


def _extra_values(
    cells: list[CellValue], extras: tuple[tuple[int, str], ...]
) -> dict[str, str | None]:
    """`_extra`'s columns where some cell is a number or a date, each read as a person reads it."""
    extra: dict[str, str | None] = {}
    width = len(cells)
    for index, header in extras:
        value = cells[index] if 0 <= index < width else None
        if type(value) is str:
            extra[header] = squash(value) or None
        elif value is None:
            extra[header] = None
        else:
            extra[header] = _extra_text(value)
    return extra


def _extra_text(value: CellValue) -> str | None:
    if type(value) is str:
        return squash(value) or None
    if isinstance(value, dt.datetime) and value.time() == dt.time(0):
        return value.date().isoformat()
    return cell_text(value) or None


def _fold_indicator(
    entry: Entry,
    indicator: str,
    values: list[int | None],
    layout: Layout,
    cells: list[CellValue],
) -> None:
    """Put an indicator row's values into its entity (БУ → the sums, others → extra).

    A quantity keeps its cell's own digits («1341036.632»): it is no money, so it is not
    rounded to kopecks; the money indicators (НУ, ПР, ВР, Вал.) are money strings."""
    if indicator.lower() == _MONEY_INDICATOR and all(v is None for v in entry.values):
        entry.values[:] = values
        return
    quantity = indicator.lower().startswith(_QUANTITY)
    for label, value, (start, end) in zip(layout.sum_labels, values, layout.sums, strict=True):
        if value is None:
            continue
        text = _first_text(cells, start, end) if quantity else None
        entry.extra[f"{indicator}: {label}"] = text or format_kopecks(value)


def _first_text(cells: list[CellValue], start: int, end: int) -> str | None:
    """The text of the first non-empty cell of a sum span."""
    for col in range(start, min(end, len(cells) - 1) + 1):
        if (text := _text(cells[col])) != "":
            return text
    return None


def _inn(value: CellValue) -> str | None:
    """ИНН as a string; a number Excel stored as float keeps its digits and lost leading zero."""
    if type(value) is str:
        text = squash(value)
        if text.isdigit() and len(text) in (9, 11):
            return "0" + text
        return text or None
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        text = str(int(value))
    elif isinstance(value, int):
        text = str(value)
    else:
        text = cell_text(value)
    if text.isdigit() and len(text) in (9, 11):
        text = "0" + text
    return text or None


def _value_at(cells: list[CellValue], col: int | None) -> CellValue:
    return cells[col] if col is not None and 0 <= col < len(cells) else None


def _text_at(cells: list[CellValue], col: int | None) -> str:
    if col is None or not 0 <= col < len(cells):
        return ""
    return _text(cells[col])


def _text(value: CellValue) -> str:
    """`cell_text`; a plain string (the common case) is squashed without the detour."""
    if type(value) is str:
        return squash(value)  # a plain string (the common case) without the detour
    return "" if value is None else cell_text(value)
