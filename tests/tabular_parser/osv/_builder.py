"""Lay out a 1C-style ОСВ as a `Sheet` in code: title block, two-row merged header, body, footer."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from services.excel.model import CellRange, CellValue, Sheet

Six = tuple[str | None, str | None, str | None, str | None, str | None, str | None]
NBSP = "\u00a0"


@dataclass
class R:
    """One body row: `code` and/or `name`, six sums as decimal strings, its outline level."""

    code: str | None
    name: str | None
    values: Six
    level: int = 0
    inn: CellValue = None
    kpp: str | None = None
    contract: str | None = None
    indicators: dict[str, Six] = field(default_factory=dict)  # НУ/ПР/... rows below this one


@dataclass
class Built:
    sheet: Sheet
    header_row: int
    first_body_row: int
    rows: dict[str, int]  # account code (else name) → sheet row index
    total_row: int | None

    @property
    def total(self) -> int:
        """The Итого row of a sheet built with a total."""
        if self.total_row is None:
            raise AssertionError("built without a total")
        return self.total_row

    first_col: int
    last_col: int
    value_cols: list[int]  # the six sum columns, in contract order

    def put(self, label: str, field_index: int, value: CellValue) -> None:
        """Overwrite one sum cell of the row with this account code (or, without one, name)."""
        self.sheet.rows[self.rows[label]][self.value_cols[field_index]] = value


def text_amount(value: str) -> str:
    """«1234567.5» → «1 234 567,50» with non-breaking spaces, as HTML/.xls exports print it."""
    number = Decimal(value)
    sign = "-" if number < 0 else ""
    whole, _, frac = f"{abs(number):.2f}".partition(".")
    groups: list[str] = []
    while whole:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    return f"{sign}{NBSP.join(groups)},{frac}"


def osv_sheet(
    rows: list[R],
    total: Six | None,
    *,
    sheet_name: str = "TDSheet",
    organization: str | None = 'ООО "Ромашка"',
    title: str | None = "Оборотно-сальдовая ведомость за Январь 2025 г.",
    title_lines: tuple[str, ...] = ("Выводимые данные: БУ (данные бухгалтерского учета)",),
    code_and_name: bool = True,
    kinds: tuple[str, ...] = (),
    spacer: bool = True,
    indicator: bool = False,
    inn: bool = False,
    kpp: bool = False,
    contract: bool = False,
    outline: bool = True,
    as_text: bool = False,
    footer: bool = True,
    left_margin: int = 0,
) -> Built:
    grid: dict[tuple[int, int], CellValue] = {}
    merged: list[CellRange] = []
    outline_levels: dict[int, int] = {}
    r = 0
    if organization is not None:
        grid[(r, left_margin)] = organization
        r += 1
    if title is not None:
        grid[(r, left_margin)] = title
        r += 1
    for line in title_lines:
        label, _, rest = line.partition(": ")
        grid[(r, left_margin)] = f"{label}:" if rest else line
        if rest:
            grid[(r, left_margin + 1)] = rest
        r += 1
    r += 1  # an empty line before the table

    c = left_margin
    header, sub = r, r + 1
    label_cols: list[int] = []
    if code_and_name:
        code_col, name_col = c, c + 1
        grid[(header, c)] = "Счет"
        merged.append(CellRange(header, c, header, c + 1))
        grid[(sub, code_col)], grid[(sub, name_col)] = "Код", "Наименование"
        label_cols = [code_col, name_col]
        c += 2
    else:
        code_col = name_col = c
        grid[(header, c)] = "Счет"
        for k, kind in enumerate(kinds or ("",)):
            if kind:
                grid[(sub + k, c)] = kind
        label_cols = [c]
        c += 1
    header_end = sub + max(len(kinds) - 1, 0) if not code_and_name else sub

    def vertical(col: int, text: str) -> None:
        grid[(header, col)] = text
        merged.append(CellRange(header, col, header_end, col))

    optional: dict[str, int] = {}
    for flag, text in (
        (indicator, "Показатели"),
        (inn, "ИНН"),
        (kpp, "КПП"),
        (contract, "Договор"),
    ):
        if flag:
            vertical(c, text)
            optional[text] = c
            c += 1
    value_cols: list[int] = []
    for group in ("Сальдо на начало периода", "Обороты за период", "Сальдо на конец периода"):
        width = 3 if spacer else 2
        grid[(header, c)] = group
        merged.append(CellRange(header, c, header, c + width - 1))
        grid[(sub, c)] = "Дебет"
        grid[(sub, c + 1)] = "Кредит"
        if header_end > sub:
            merged.append(CellRange(sub, c, header_end, c))
        if spacer:
            merged.append(CellRange(sub, c + 1, header_end, c + 2))
        elif header_end > sub:
            merged.append(CellRange(sub, c + 1, header_end, c + 1))
        value_cols += [c, c + 1]
        c += width
    last_col = c - 1

    def put_values(row: int, values: Six) -> None:
        for col, value in zip(value_cols, values, strict=True):
            if value is not None:
                grid[(row, col)] = text_amount(value) if as_text else float(value)

    r = header_end + 1
    first_body = r
    where: dict[str, int] = {}
    for item in rows:
        if code_and_name:
            grid[(r, code_col)] = item.code
            grid[(r, name_col)] = item.name
        else:
            grid[(r, code_col)] = item.code if item.code is not None else item.name
        if indicator:
            grid[(r, optional["Показатели"])] = "БУ"
        if inn:
            grid[(r, optional["ИНН"])] = item.inn
        if kpp:
            grid[(r, optional["КПП"])] = item.kpp
        if contract:
            grid[(r, optional["Договор"])] = item.contract
        put_values(r, item.values)
        if outline and item.level:
            outline_levels[r] = item.level
        where[item.code or item.name or str(r)] = r
        r += 1
        for ind, values in item.indicators.items():
            grid[(r, optional["Показатели"])] = ind
            put_values(r, values)
            if outline and item.level:
                outline_levels[r] = item.level
            r += 1
    total_row = None
    if total is not None:
        total_row = r
        grid[(r, label_cols[0])] = "Итого"
        if code_and_name:
            merged.append(CellRange(r, label_cols[0], r, label_cols[1]))
        put_values(r, total)
        r += 1
    if footer:
        r += 1
        grid[(r, left_margin)] = "Руководитель"
        grid[(r, left_margin + 2)] = "________ / Иванов И.И. /"
        grid[(r + 2, left_margin)] = "Главный бухгалтер"
        grid[(r + 2, left_margin + 2)] = "12 345,00"
    height = max(row for row, _ in grid) + 1
    width = max(col for _, col in grid) + 1
    cells: list[list[CellValue]] = [[None] * width for _ in range(height)]
    for (row, col), value in grid.items():
        cells[row][col] = value
    sheet = Sheet(name=sheet_name, rows=cells, merged=merged, outline_levels=outline_levels)
    return Built(sheet, header, first_body, where, total_row, left_margin, last_col, value_cols)


@dataclass
class Stacked:
    """Several built ОСВ one below the other on one sheet; `offsets[i]` is part i's first row."""

    sheet: Sheet
    offsets: list[int]


def stack(parts: list[Built], *, sheet_name: str = "TDSheet", gap: int = 2) -> Stacked:
    """Print the parts' sheets one below the other, `gap` empty rows between them, as 1C does
    for an «ОСВ по счету» of several accounts; merges and outline levels move with their rows."""
    rows: list[list[CellValue]] = []
    merged: list[CellRange] = []
    outline_levels: dict[int, int] = {}
    offsets: list[int] = []
    for index, part in enumerate(parts):
        if index:
            rows += [[] for _ in range(gap)]
        offset = len(rows)
        offsets.append(offset)
        rows += [list(cells) for cells in part.sheet.rows]
        merged += [
            CellRange(m.first_row + offset, m.first_col, m.last_row + offset, m.last_col)
            for m in part.sheet.merged
        ]
        outline_levels.update({r + offset: level for r, level in part.sheet.outline_levels.items()})
    sheet = Sheet(name=sheet_name, rows=rows, merged=merged, outline_levels=outline_levels)
    return Stacked(sheet, offsets)
