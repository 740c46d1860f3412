"""Export of a (corrected) document: an XLSX an analyst can send on, and CSV; an ОСВ flat.

A statement's XLSX sheet opens with a header block (организация, ИНН, отчётная дата, единицы,
ОКУД, форма, статус, проверка), then the table: code, name, line status in Russian and one
column per period. Amounts are numeric cells, exact (Decimal), with a thousands format; the
heading is frozen and the columns sized. A value an analyst corrected is filled green with a
comment (what was recognised, who, when); a value still doubtful is filled yellow with a comment.
Failed checks and the recogniser's warnings get sheets of their own. An ОСВ is its header block
and one flat table of its rows with the six sums.

Data, never formulas (issue #27): every text cell is written as a string cell whatever it
begins with (openpyxl would store a str starting with «=» as a formula), and a CSV text cell
beginning with «=», «+», «-», «@», a tab or a CR gets a leading apostrophe (OWASP's rule), so
no spreadsheet runs what a borrower's file put in a line name. Amounts, negative ones
included, stay plain numbers in both.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from openpyxl import Workbook
from openpyxl.cell import WriteOnlyCell
from openpyxl.comments import Comment
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter
from openpyxl.worksheet._write_only import WriteOnlyWorksheet

from services.arm_core.documents.corrections import CorrectedDocument, own_doubt
from services.arm_core.documents.read import DocumentBody
from services.arm_core.documents.review import Change, review_of
from services.arm_core.documents.words import (
    CHECK_KINDS,
    DOCUMENT_TITLES,
    DOCUMENT_TYPES,
    FORM_VARIANTS,
    LINE_STATUSES,
    OSV_CHECKS,
    SEVERITIES,
    STATUS_NAMES,
)
from services.contract.models.result_v2 import (
    OsvChecks,
    OsvHeader,
    RelationFailure,
    StatementColumn,
    StatementDocument,
    StatementLine,
    StatementValue,
)
from services.contract.models.result_v2_dicts import OsvDocument as OsvBody
from services.contract.models.result_v2_dicts import OsvRow as OsvRowBody
from services.contract.models.result_v2_dicts import StatementLine as LineBody
from services.contract.osv_row import OSV_ROW_FIELDS, OSV_SUM_FIELDS
from services.contract.words import OSV_ROW_KINDS, OSV_ROW_TITLES

__all__ = [
    "CHECKS_SHEET",
    "CORRECTED_FILL",
    "DOUBT_FILL",
    "OSV_COLUMNS",
    "OSV_LEFT_OFF",
    "OSV_TITLES",
    "TABLE_HEADING",
    "WARNINGS_SHEET",
    "csv_text",
    "osv_csv",
    "osv_xlsx",
    "statement_csv",
    "statement_rows",
    "statement_xlsx",
]

CHECKS_SHEET = "Проверки"
WARNINGS_SHEET = "Замечания"
TABLE_HEADING = "Код"
"""The first cell of a statement table's heading row (below the header block)."""
CORRECTED_FILL = "FFC6EFCE"
"""Green: a value an analyst corrected or confirmed."""
DOUBT_FILL = "FFFFEB9C"
"""Yellow: a value (or a line's code) still needing review."""
OSV_TITLES = OSV_ROW_TITLES
"""The heading of each exported field of the contract's ОСВ row."""
OSV_LEFT_OFF = frozenset({"row_index", "ref"})
"""Row fields not exported: the table's own order is the rows' order, and the source cell a
row came from is the review page's business, not the accountant's table."""
OSV_COLUMNS: tuple[tuple[str, str], ...] = tuple(
    (field, OSV_TITLES.get(field, field)) for field in OSV_ROW_FIELDS if field not in OSV_LEFT_OFF
)
"""(field, heading) of each column, in the contract's order (services.contract.osv_row). A
field the contract adds is exported under its own name until it has a title (a test fails
until then), rather than dropped or breaking the export."""
_MONEY = frozenset(OSV_SUM_FIELDS)
_DANGEROUS = ("=", "+", "-", "@", "\t", "\r")
_WHOLE = "#,##0"
_KOPECKS = "#,##0.00"
_BOLD = Font(bold=True)
_WRAP = Alignment(wrap_text=True, vertical="top")


def _fill(color: str) -> PatternFill:
    return PatternFill(start_color=color, end_color=color, fill_type="solid")


def csv_text(value: str) -> str:
    """A CSV text cell a spreadsheet will not read as a formula: one beginning with «=», «+»,
    «-», «@», a tab or a CR gets a leading apostrophe (OWASP, CSV injection)."""
    return "'" + value if value.startswith(_DANGEROUS) else value


def _money(value: object) -> Decimal | None:
    if value is None or value == "":
        return None
    try:
        return Decimal(str(value))
    except InvalidOperation:
        return None


@dataclass(slots=True)
class _Cell:
    """A cell to write: its value and how it looks."""

    value: Any
    fill: str | None = None
    comment: str | None = None
    bold: bool = False
    wrap: bool = False


def _write(sheet: WriteOnlyWorksheet, item: Any) -> WriteOnlyCell:
    """One write-only cell: text always a string cell (never a formula), a Decimal / int /
    float numeric with a thousands format, a date with a Russian date format."""
    spec = item if isinstance(item, _Cell) else _Cell(item)
    value = spec.value
    if isinstance(value, bool):
        value = "да" if value else "нет"
    cell = WriteOnlyCell(sheet, value=value)
    if isinstance(value, str):
        cell.data_type = "s"  # openpyxl took «=…» for a formula: it is text
    elif isinstance(value, Decimal | int | float):
        cell.number_format = _WHOLE if Decimal(str(value)) == int(value) else _KOPECKS
    elif isinstance(value, dt.date):
        cell.number_format = "DD.MM.YYYY"
    if spec.fill:
        cell.fill = _fill(spec.fill)
    if spec.comment:
        cell.comment = Comment(spec.comment, "АРМ КА", width=320, height=110)
    if spec.bold:
        cell.font = _BOLD
    if spec.wrap:
        cell.alignment = _WRAP
    return cell


def _sheet(
    book: Workbook,
    title: str,
    rows: Iterable[Sequence[Any]],
    *,
    widths: Sequence[float] = (),
    freeze: str | None = None,
) -> None:
    sheet = book.create_sheet(title[:31])
    for number, width in enumerate(widths, start=1):
        sheet.column_dimensions[get_column_letter(number)].width = width
    if freeze is not None:
        sheet.freeze_panes = freeze
    for row in rows:
        sheet.append([_write(sheet, item) for item in row])


def _save(book: Workbook) -> bytes:
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def _when(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%d.%m.%Y %H:%M UTC")


def _heading(column: StatementColumn) -> str:
    label = column.label or f"Колонка {column.column_index}"
    if column.period_date is not None:
        iso, shown = column.period_date.isoformat(), column.period_date.strftime("%d.%m.%Y")
        if iso not in label and shown not in label:
            return f"{label} ({shown})"
    return label


def _columns(document: StatementDocument) -> list[StatementColumn]:
    return sorted(document.columns, key=lambda c: c.column_index)


def _form(document: StatementDocument) -> str:
    kind = document.document_type
    title = DOCUMENT_TITLES.get(kind, kind)
    variant = FORM_VARIANTS.get(str(document.form_variant))
    return f"{title}, {variant} форма" if variant else title


def _header_block(
    corrected: CorrectedDocument[DocumentBody], document: StatementDocument
) -> list[list[Any]]:
    """The rows above the table: who, when, in what units, which form, where the review stands."""
    header = document.header
    review = review_of(corrected)
    doubtful = {str(name) for name in header.needs_review_fields}
    fixed = {c.field: c for c in review.changes if c.kind == "header" and c.field}

    def field(name: str, title: str, value: Any) -> list[Any]:
        change = fixed.get(name)
        if change is not None:
            note = _changed_note(change)
            return [_Cell(title, bold=True), _Cell(value, fill=CORRECTED_FILL, comment=note)]
        if name in doubtful:
            note = "Требует проверки: поле шапки распознано неуверенно"
            return [_Cell(title, bold=True), _Cell(value, fill=DOUBT_FILL, comment=note)]
        return [_Cell(title, bold=True), value]

    status = STATUS_NAMES.get(str(review.status), review.status)
    if review.state == "reviewed" and review.reviewed_at is not None:
        checked = f"проверен: {review.reviewed_by}, {_when(review.reviewed_at)}"
    elif review.state == "corrected":
        checked = "исправлен, проверка не завершена"
    else:
        checked = "не проверен"
    legend = "зелёным — исправлено аналитиком; жёлтым — требует проверки"
    return [
        [_Cell(_form(document), bold=True)],
        field("organization_name", "Организация", header.organization_name),
        field("inn", "ИНН", header.inn),
        field("report_date", "Отчётная дата", header.report_date),
        field("units", "Единицы", header.units),
        field("okud", "ОКУД", header.okud),
        [_Cell("Форма", bold=True), _form(document)],
        [_Cell("Статус", bold=True), status],
        [_Cell("Проверка", bold=True), checked],
        [_Cell("Осталось сомнений", bold=True), review.doubts_left],
        [_Cell("Обозначения", bold=True), legend],
        [],
    ]


def _changed_note(change: Change) -> str:
    who = f"{change.author}, {_when(change.at)}"
    if change.kind == "confirm":
        return f"Подтверждено: {who}"
    before = (
        "значение не было распознано"
        if change.recognised is None
        else f"распознано «{change.recognised}»"
    )
    return f"Исправлено: {before}; исправил(а) {who}"


def _value_cell(value: StatementValue | None, change: Change | None) -> Any:
    amount = _money(value.amount) if value else None
    if change is not None:
        return _Cell(amount, fill=CORRECTED_FILL, comment=_changed_note(change))
    if value is not None and value.needs_review:
        printed = value.text
        seen = f": распознано «{printed}»" if printed else ": значение не прочитано"
        return _Cell(amount, fill=DOUBT_FILL, comment=f"Требует проверки{seen}")
    return amount


def _code_cell(line: StatementLine, raw: LineBody, change: Change | None) -> Any:
    code = line.line_code
    if change is not None:
        return _Cell(code, fill=CORRECTED_FILL, comment=_changed_note(change))
    if line.needs_review and own_doubt(raw):
        printed = line.line_code_text
        seen = f": распознано «{printed}»" if printed else ""
        return _Cell(code, fill=DOUBT_FILL, comment=f"Требует проверки код строки{seen}")
    return code


def _table(
    corrected: CorrectedDocument[DocumentBody], document: StatementDocument
) -> list[list[Any]]:
    """The heading and one row per line: code, name, status, one amount a column."""
    columns = _columns(document)
    raw_lines = corrected.statement.get("lines") or []
    changes = review_of(corrected).changes
    values = {(c.line, c.column_index): c for c in changes if c.kind in ("value", "confirm")}
    codes = {c.line: c for c in changes if c.kind == "line_code"}
    heading = [TABLE_HEADING, "Наименование", "Статус строки", *(_heading(c) for c in columns)]
    rows: list[list[Any]] = [[_Cell(h, bold=True, wrap=True) for h in heading]]
    for index, (line, raw) in enumerate(zip(document.lines, raw_lines, strict=True)):
        by_column = {v.column_index: v for v in line.values}
        rows.append(
            [
                _code_cell(line, raw, codes.get(index)),
                line.line_name,
                LINE_STATUSES.get(line.line_status, line.line_status),
                *(
                    _value_cell(by_column.get(c.column_index), values.get((index, c.column_index)))
                    for c in columns
                ),
            ]
        )
    return rows


def statement_rows(document: StatementDocument) -> list[list[Any]]:
    """The statement as plain rows (the CSV): a heading row, then code, name, line status in
    Russian and one amount a column."""
    columns = _columns(document)
    rows: list[list[Any]] = [
        [TABLE_HEADING, "Наименование", "Статус строки", *(_heading(c) for c in columns)]
    ]
    for line in document.lines:
        amounts = {v.column_index: v.amount for v in line.values}
        rows.append(
            [
                line.line_code,
                line.line_name,
                LINE_STATUSES.get(line.line_status, line.line_status),
                *(_money(amounts.get(c.column_index)) for c in columns),
            ]
        )
    return rows


def _check_rows(document: StatementDocument) -> list[list[Any]]:
    names = {c.column_index: _heading(c) for c in _columns(document)}
    heading = ["Вид", "Соотношение", "Колонка", "Коды", "Ожидалось", "Фактически", "Разница"]
    rows: list[list[Any]] = [[_Cell(h, bold=True) for h in heading]]
    for key, kind in CHECK_KINDS.items():
        failures: list[RelationFailure] = getattr(document.checks, key) if document.checks else []
        for failure in failures:
            expected, actual = _money(failure.expected), _money(failure.actual)
            rows.append(
                [
                    kind,
                    failure.relation,
                    names.get(failure.column_index, failure.column_index),
                    ", ".join(failure.codes),
                    expected,
                    actual,
                    actual - expected if expected is not None and actual is not None else None,
                ]
            )
    return rows


def _warning_rows(document: StatementDocument) -> list[list[Any]]:
    named = {line.ref: _line_name(line) for line in document.lines}
    heading = ["Важность", "Сообщение", "Строки", "Код замечания"]
    rows: list[list[Any]] = [[_Cell(h, bold=True) for h in heading]]
    for warning in document.warnings:
        refs = [str(ref) for ref in warning.line_refs or []]
        rows.append(
            [
                SEVERITIES.get(warning.severity, warning.severity),
                _Cell(warning.message, wrap=True),
                "; ".join(named.get(ref, ref) for ref in refs) or None,
                warning.code,
            ]
        )
    return rows


def _line_name(line: StatementLine) -> str:
    return " ".join(part for part in (line.line_code, line.line_name) if part) or line.ref


def statement_xlsx(corrected: CorrectedDocument[DocumentBody]) -> bytes:
    """A statement form as XLSX: the header block and the lines, the failed checks, the
    recogniser's warnings."""
    document = StatementDocument.model_validate(corrected.statement)
    kind = document.document_type
    block = _header_block(corrected, document)
    table = _table(corrected, document)
    periods = len(_columns(document))
    book = Workbook(write_only=True)
    _sheet(
        book,
        DOCUMENT_TYPES.get(kind, kind),
        [*block, *table],
        widths=(16, 60, 16, *([20] * periods)),
        freeze=f"C{len(block) + 2}",
    )
    _sheet(book, CHECKS_SHEET, _check_rows(document), widths=(10, 40, 24, 24, 18, 18, 18))
    _sheet(book, WARNINGS_SHEET, _warning_rows(document), widths=(16, 90, 40, 28))
    return _save(book)


def _csv(rows: Iterable[Sequence[Any]]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=";", lineterminator="\r\n")
    for row in rows:
        writer.writerow(
            ["" if v is None else csv_text(v) if isinstance(v, str) else v for v in row]
        )
    # A BOM, so that Excel opens the Cyrillic as UTF-8.
    return ("\ufeff" + buffer.getvalue()).encode("utf-8")


def statement_csv(document: StatementDocument) -> bytes:
    """A statement form as CSV (`;`-separated, UTF-8 with BOM): the lines only."""
    return _csv(statement_rows(document))


def _cells(row: OsvRowBody) -> Mapping[str, object]:
    """A row read by column key (the keys of OSV_COLUMNS, chosen at run time)."""
    return row


def _osv_rows(rows: Iterable[OsvRowBody]) -> Iterable[list[Any]]:
    yield [title for _, title in OSV_COLUMNS]
    for row in map(_cells, rows):
        yield [_money(row.get(k)) if k in _MONEY else row.get(k) for k, _ in OSV_COLUMNS]


def _osv_block(header: OsvHeader, status: str, checks: OsvChecks) -> list[list[Any]]:
    return [
        [_Cell(DOCUMENT_TITLES["OSV"], bold=True)],
        [_Cell("Организация", bold=True), header.organization_name],
        [_Cell("Заголовок", bold=True), header.title],
        [_Cell("Счёт", bold=True), header.account],
        [_Cell("Период", bold=True), header.period_text],
        [_Cell("Единицы", bold=True), header.units],
        [_Cell("Статус", bold=True), STATUS_NAMES.get(status, status)],
        [_Cell("Не выполнено проверок", bold=True), len(checks.failed)],
        [],
    ]


def _osv_table(rows: Iterable[OsvRowBody]) -> Iterable[list[Any]]:
    yield [_Cell(title, bold=True, wrap=True) for _, title in OSV_COLUMNS]
    for row in map(_cells, rows):
        yield [
            _money(row.get(k))
            if k in _MONEY
            else OSV_ROW_KINDS.get(str(row.get(k)), row.get(k))
            if k == "kind"
            else row.get(k)
            for k, _ in OSV_COLUMNS
        ]


def _osv_check_rows(checks: OsvChecks) -> list[list[Any]]:
    heading = ["Проверка", "Строка", "Колонка", "Ожидалось", "Фактически"]
    rows: list[list[Any]] = [[_Cell(h, bold=True) for h in heading]]
    for failure in checks.failed:
        rows.append(
            [
                OSV_CHECKS.get(failure.check, failure.check),
                failure.ref,
                failure.column,
                _money(failure.expected),
                _money(failure.actual),
            ]
        )
    return rows


def osv_xlsx(rows: Iterable[OsvRowBody], document: OsvBody | None = None) -> bytes:
    """An ОСВ as XLSX: its header block (when `document` is given) over one flat table of its
    rows, and the failed checks. The rows stay plain mappings: a 100k-row ОСВ is written as
    it is read, not built into models first."""
    header = checks = None
    block: list[list[Any]] = []
    if document is not None:
        header = OsvHeader.model_validate(document["header"])
        checks = OsvChecks.model_validate(document["checks"])
        block = _osv_block(header, str(document["status"]), checks)
    widths = [18 if field in _MONEY else 50 if field == "name" else 12 for field, _ in OSV_COLUMNS]
    book = Workbook(write_only=True)
    _sheet(
        book,
        DOCUMENT_TYPES["OSV"],
        [*block, *_osv_table(rows)],
        widths=widths,
        freeze=f"A{len(block) + 2}",
    )
    if checks is not None:
        _sheet(book, CHECKS_SHEET, _osv_check_rows(checks), widths=(44, 24, 20, 18, 18))
    return _save(book)


def osv_csv(rows: Iterable[OsvRowBody]) -> bytes:
    """An ОСВ as a flat CSV table of its rows."""
    return _csv(_osv_rows(rows))
