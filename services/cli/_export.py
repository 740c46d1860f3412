"""`arm-ka parse … --export out.xlsx`: every recognised document in one workbook.

The first sheet, «Сводка», has a row per document (a file with none gets one row saying why):
file, file type, file status, document number, type, form variant, document status, sheet of
the workbook it was read from, failed checks (count and text). Then a sheet per document,
named «N Тип» after its summary row. Headings, types, variants and statuses are Russian (the
analyst reads the workbook; `--json` keeps the codes). ОСВ rows are a flat table (one row per
account / subconto row, amounts as numbers) ready for a pivot; a statement is one row per line
with its code, name and one column per period column. Amounts are written as exact decimals. Every text cell
is a string cell, whatever it begins with (openpyxl would store a str starting with «=» as a
formula): a borrower's line name never becomes a live formula in the analyst's workbook.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from openpyxl import Workbook
from openpyxl.cell import WriteOnlyCell
from openpyxl.worksheet._write_only import WriteOnlyWorksheet

from services.cli._summary import failed_checks
from services.contract.osv_row import OSV_ROW_FIELDS, OSV_SUM_FIELDS
from services.contract.words import (
    DOCUMENT_TYPES,
    FORM_VARIANTS,
    OSV_ROW_KINDS,
    OSV_ROW_TITLES,
    STATUS_NAMES,
)

__all__ = [
    "HEADINGS",
    "INDEX_COLUMNS",
    "INDEX_SHEET",
    "OSV_COLUMNS",
    "ExportedFile",
    "export_view",
    "export_workbook",
]

INDEX_SHEET = "Сводка"

INDEX_COLUMNS = (
    "file",
    "file_type",
    "file_status",
    "document",
    "document_type",
    "form_variant",
    "document_status",
    "source",
    "failed_checks",
    "failed_check_list",
    "sheet",
)
# The row's key in the result file (`ref`) is left off the sheet, as it always was; every
# other field of the contract's row is a column.
_NOT_EXPORTED = frozenset({"ref"})
OSV_COLUMNS: tuple[str, ...] = (
    "file",
    *(field for field in OSV_ROW_FIELDS if field not in _NOT_EXPORTED),
)
_AMOUNTS = frozenset(OSV_SUM_FIELDS)
HEADINGS: dict[str, str] = {
    "file": "Файл",
    "file_type": "Тип файла",
    "file_status": "Статус файла",
    "document": "Документ №",
    "document_type": "Тип документа",
    "form_variant": "Форма",
    "document_status": "Статус документа",
    "source": "Источник",
    "failed_checks": "Не выполнено проверок",
    "failed_check_list": "Невыполненные проверки",
    "sheet": "Лист выгрузки",
    "row_index": "Строка листа",
    **OSV_ROW_TITLES,
    "line_code": "Код",
    "line_name": "Наименование",
    "needs_review": "Нужна проверка",
}
"""The Russian heading of each column key (a contract field the CLI does not know yet is
written under its own name: `_heading`)."""

ExportedFile = tuple[str, str, Mapping[str, Any]]
"""(file name, file type, its result file or error body)."""


_DOCUMENT_FIELDS = ("document_type", "form_variant", "status", "locator", "checks", "columns")
_LINE_FIELDS = ("line_code", "line_name", "values", "needs_review")


def export_view(result: Mapping[str, Any]) -> dict[str, Any]:
    """What `export_workbook` reads of a result file (or error body), and nothing else: a batch
    keeps this of each file until the workbook is written, not the whole result (headers,
    warnings, metrics, an ОСВ row's `ref` are left behind)."""
    view: dict[str, Any] = {"status": result.get("status"), "error": result.get("error")}
    documents = []
    for document in result.get("documents") or []:
        if not isinstance(document, Mapping):
            continue
        kept = {field: document.get(field) for field in _DOCUMENT_FIELDS if field in document}
        if "rows" in document:
            kept["rows"] = [
                {column: row.get(column) for column in OSV_COLUMNS if column in row}
                for row in document.get("rows") or []
            ]
        if "lines" in document:
            kept["lines"] = [
                {field: line.get(field) for field in _LINE_FIELDS if field in line}
                for line in document.get("lines") or []
            ]
        documents.append(kept)
    view["documents"] = documents
    return view


def export_workbook(path: Path, files: Sequence[ExportedFile]) -> int:
    """Write the workbook; the number of document sheets written."""
    book = Workbook(write_only=True)
    index = book.create_sheet(INDEX_SHEET)
    _append(index, [_heading(c) for c in INDEX_COLUMNS])
    number = 0
    sheets: list[tuple[str, str, Mapping[str, Any]]] = []
    for name, file_type, result in files:
        documents = [d for d in result.get("documents") or [] if isinstance(d, Mapping)]
        status = str(result.get("status", ""))
        if not documents:
            error = result.get("error")
            why = (
                f"{error.get('code')}: {error.get('message')}"
                if isinstance(error, Mapping)
                else "документов нет"
            )
            row = [name, file_type, _status(status), None, None, None, None, why, 0, None, None]
            _append(index, row)
            continue
        for document in documents:
            number += 1
            kind = document.get("document_type", "?")
            sheet = f"{number} {DOCUMENT_TYPES.get(str(kind), kind)}"[:31]
            failed = list(failed_checks(document.get("checks")))
            _append(
                index,
                [
                    name,
                    file_type,
                    _status(status),
                    number,
                    DOCUMENT_TYPES.get(str(kind), kind),
                    _variant(document.get("form_variant")),
                    _status(document.get("status")),
                    _source(document.get("locator")),
                    len(failed),
                    "\n".join(failed) or None,
                    sheet,
                ],
            )
            sheets.append((sheet, name, document))
    for sheet, name, document in sheets:
        rows = _osv_rows(name, document) if "rows" in document else _statement_rows(document)
        target = book.create_sheet(sheet)
        for row in rows:
            _append(target, row)
    book.save(path)
    return len(sheets)


def _append(sheet: WriteOnlyWorksheet, row: Sequence[Any]) -> None:
    """A row whose text cells are string cells, never formulas."""
    cells: list[Any] = []
    for value in row:
        if isinstance(value, str):
            cell = WriteOnlyCell(sheet, value=value)
            cell.data_type = "s"
            cells.append(cell)
        else:
            cells.append(value)
    sheet.append(cells)


def _osv_rows(name: str, document: Mapping[str, Any]) -> Iterable[list[Any]]:
    yield [_heading(column) for column in OSV_COLUMNS]
    for row in document.get("rows") or []:
        yield [
            name
            if column == "file"
            else _amount(row.get(column))
            if column in _AMOUNTS
            else OSV_ROW_KINDS.get(str(row.get(column)), row.get(column))
            if column == "kind"
            else row.get(column)
            for column in OSV_COLUMNS
        ]


def _statement_rows(document: Mapping[str, Any]) -> Iterable[list[Any]]:
    columns = [c for c in document.get("columns") or [] if isinstance(c, Mapping)]
    indexes = [c.get("column_index") for c in columns]
    labels = (str(c.get("label") or "") for c in columns)
    yield [_heading("line_code"), _heading("line_name"), *labels, _heading("needs_review")]
    for line in document.get("lines") or []:
        values = {v.get("column_index"): v.get("amount") for v in line.get("values") or []}
        yield [
            line.get("line_code"),
            line.get("line_name"),
            *(_amount(values.get(i)) for i in indexes),
            "да" if line.get("needs_review") else None,
        ]


def _heading(column: str) -> str:
    return HEADINGS.get(column, column)


def _status(status: object) -> object:
    return STATUS_NAMES.get(str(status), status) if status else status


def _variant(variant: object) -> object:
    return FORM_VARIANTS.get(str(variant), variant) if variant else variant


def _amount(value: Any) -> Any:
    """An amount string as an exact decimal (a number in Excel); anything else as it is."""
    if not isinstance(value, str):
        return value
    try:
        return Decimal(value)
    except InvalidOperation:
        return value


def _source(locator: Any) -> str | None:
    items = locator if isinstance(locator, list) else [locator]
    where = []
    for item in items:
        if isinstance(item, Mapping):
            if item.get("sheet"):
                where.append(str(item["sheet"]))
            elif item.get("page") is not None:
                where.append(f"страница {item['page']}")
    return ", ".join(where) or None
