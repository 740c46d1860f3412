"""Export of a (corrected) document: XLSX through openpyxl and CSV; an ОСВ as a flat table.

A statement's sheet has the code, the name and the line status, then one column per period
(label and date in the heading); amounts are written as numbers, exactly (Decimal). Failed
checks go to a sheet of their own. An ОСВ is one flat table of its rows with the six sums.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import Any

from openpyxl import Workbook

from services.contract.osv_row import OSV_ROW_FIELDS, OSV_SUM_FIELDS

__all__ = [
    "CHECKS_SHEET",
    "OSV_COLUMNS",
    "OSV_LEFT_OFF",
    "OSV_TITLES",
    "osv_csv",
    "osv_xlsx",
    "statement_csv",
    "statement_rows",
    "statement_xlsx",
]

CHECKS_SHEET = "Проверки"
OSV_TITLES: dict[str, str] = {
    "level": "Уровень",
    "kind": "Вид",
    "account": "Счёт",
    "name": "Наименование",
    "inn": "ИНН",
    "opening_debit": "Сальдо на начало, Дт",
    "opening_credit": "Сальдо на начало, Кт",
    "turnover_debit": "Обороты, Дт",
    "turnover_credit": "Обороты, Кт",
    "closing_debit": "Сальдо на конец, Дт",
    "closing_credit": "Сальдо на конец, Кт",
}
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
_SHEET_NAMES = {"BALANCE": "Баланс", "INCOME": "ОФР", "OSV": "ОСВ"}
_MONEY = frozenset(OSV_SUM_FIELDS)


def _heading(column: dict[str, Any]) -> str:
    label = column.get("label") or f"Колонка {column.get('column_index')}"
    date = column.get("period_date")
    return f"{label} ({date})" if date and date not in label else str(label)


def _money(value: object) -> Decimal | None:
    if value is None or value == "":
        return None
    return Decimal(str(value))


def statement_rows(document: dict[str, Any]) -> list[list[Any]]:
    """The statement as rows: a heading row, then code, name, status and one amount a column."""
    columns = sorted(document.get("columns") or [], key=lambda c: c.get("column_index", 0))
    rows: list[list[Any]] = [["Код", "Наименование", "Статус", *(_heading(c) for c in columns)]]
    for line in document.get("lines") or []:
        amounts = {v.get("column_index"): v.get("amount") for v in line.get("values") or []}
        rows.append(
            [
                line.get("line_code"),
                line.get("line_name"),
                line.get("line_status"),
                *(_money(amounts.get(c.get("column_index"))) for c in columns),
            ]
        )
    return rows


def _check_rows(document: dict[str, Any]) -> list[list[Any]]:
    checks = document.get("checks") or {}
    rows: list[list[Any]] = [["Вид", "Соотношение", "Колонка", "Коды", "Ожидалось", "Фактически"]]
    for kind, key in (("строгое", "relations_failed"), ("мягкое", "soft_relations_failed")):
        for failure in checks.get(key) or []:
            rows.append(
                [
                    kind,
                    failure.get("relation"),
                    failure.get("column_index"),
                    ", ".join(failure.get("codes") or []),
                    _money(failure.get("expected")),
                    _money(failure.get("actual")),
                ]
            )
    return rows


def _xlsx(sheets: Iterable[tuple[str, Sequence[Sequence[Any]]]]) -> bytes:
    workbook = Workbook(write_only=True)
    for title, rows in sheets:
        sheet = workbook.create_sheet(title[:31])
        for row in rows:
            sheet.append(list(row))
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def _csv(rows: Iterable[Sequence[Any]]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=";", lineterminator="\r\n")
    for row in rows:
        writer.writerow(["" if v is None else v for v in row])
    # A BOM, so that Excel opens the Cyrillic as UTF-8.
    return ("\ufeff" + buffer.getvalue()).encode("utf-8")


def statement_xlsx(document: dict[str, Any]) -> bytes:
    """A statement form as XLSX: its sheet and the failed checks' sheet."""
    name = _SHEET_NAMES.get(str(document.get("document_type")), str(document.get("document_type")))
    return _xlsx([(name, statement_rows(document)), (CHECKS_SHEET, _check_rows(document))])


def statement_csv(document: dict[str, Any]) -> bytes:
    """A statement form as CSV (`;`-separated, UTF-8 with BOM): the lines only."""
    return _csv(statement_rows(document))


def _osv_rows(rows: Iterable[dict[str, Any]]) -> Iterable[list[Any]]:
    yield [title for _, title in OSV_COLUMNS]
    for row in rows:
        yield [_money(row.get(k)) if k in _MONEY else row.get(k) for k, _ in OSV_COLUMNS]


def osv_xlsx(rows: Iterable[dict[str, Any]]) -> bytes:
    """An ОСВ as one flat XLSX sheet of its rows."""
    return _xlsx([("ОСВ", list(_osv_rows(rows)))])


def osv_csv(rows: Iterable[dict[str, Any]]) -> bytes:
    """An ОСВ as a flat CSV table of its rows."""
    return _csv(_osv_rows(rows))
