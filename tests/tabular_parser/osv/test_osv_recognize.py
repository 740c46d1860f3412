"""Recognising 1C trial balances laid out in code: detection, header, columns, rows, hierarchy."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from services.excel.model import CellRange, Sheet

from ._builder import R, osv_sheet
from ._fixtures import BY_ACCOUNT_ROWS, BY_ACCOUNT_TOTAL, GENERAL_ROWS, GENERAL_TOTAL
from ._strict import recognize_osv

SUMS = (
    "opening_debit",
    "opening_credit",
    "turnover_debit",
    "turnover_credit",
    "closing_debit",
    "closing_credit",
)


def _document(sheet: Sheet) -> dict[str, Any]:
    [result] = recognize_osv(sheet)  # a sheet of one table is one document
    return result.document


def _sums(row: dict[str, Any]) -> tuple[str | None, ...]:
    return tuple(row[name] for name in SUMS)


def test_general_osv_gives_accounts_subaccounts_subconto_and_total() -> None:
    """A general ОСВ: kinds, codes, names, levels from outline levels, refs, table range, done."""
    built = osv_sheet(GENERAL_ROWS, GENERAL_TOTAL)
    doc = _document(built.sheet)
    rows = doc["rows"]
    assert [(r["kind"], r["account"], r["level"]) for r in rows] == [
        ("account", "01", 0),
        ("account", "60", 0),
        ("subaccount", "60.01", 1),
        ("subconto", None, 2),
        ("subconto", None, 2),
        ("subaccount", "60.02", 1),
        ("account", "80", 0),
        ("total", None, 0),
    ]
    assert rows[3]["name"] == "ООО «Поставщик А»"
    assert rows[0]["name"] == "Основные средства"
    assert _sums(rows[1]) == ("100", "300", "200", "50", "200", "250")
    assert _sums(rows[0]) == ("1000", None, "500", None, "1500", None)
    assert rows[0]["row_index"] == built.first_body_row
    assert rows[0]["ref"] == f"TDSheet!A{built.first_body_row + 1}"
    assert all("extra" not in r for r in rows)
    assert doc["locator"] == {
        "sheet": "TDSheet",
        "range": f"A{built.header_row + 1}:K{built.total + 1}",
    }
    assert doc["document_type"] == "OSV"
    assert doc["status"] == "done"
    assert doc["checks"] == {"failed": []}
    assert doc["warnings"] == []


def test_general_osv_header_block() -> None:
    """Organisation from row 1, the title, no account, the period bounds; «Выводимые данные» ignored."""
    doc = _document(osv_sheet(GENERAL_ROWS, GENERAL_TOTAL).sheet)
    assert doc["header"] == {
        "organization_name": 'ООО "Ромашка"',
        "title": "Оборотно-сальдовая ведомость за Январь 2025 г.",
        "account": None,
        "subconto_kinds": [],
        "period_text": "Январь 2025 г.",
        "period_start": "2025-01-01",
        "period_end": "2025-01-31",
        "is_from_year_start": True,
        "units": None,
    }


def test_osv_by_account_with_subconto_kinds_inn_and_kpp() -> None:
    """«ОСВ по счету 62.01»: account and kinds in the header, ИНН as text, КПП kept in extra."""
    built = osv_sheet(
        BY_ACCOUNT_ROWS,
        BY_ACCOUNT_TOTAL,
        title="Оборотно-сальдовая ведомость по счету 62.01 за Октябрь 2024 г. – Сентябрь 2025 г.",
        code_and_name=False,
        kinds=("Контрагенты", "Договоры"),
        inn=True,
        kpp=True,
    )
    doc = _document(built.sheet)
    header = doc["header"]
    assert header["account"] == "62.01"
    assert header["subconto_kinds"] == ["Контрагенты", "Договоры"]
    assert (header["period_start"], header["period_end"], header["is_from_year_start"]) == (
        "2024-10-01",
        "2025-09-30",
        False,
    )
    rows = doc["rows"]
    assert [(r["kind"], r["level"], r["account"], r["name"]) for r in rows] == [
        ("subaccount", 0, "62.01", None),
        ("subconto", 1, None, "ООО «Альфа»"),
        ("subconto", 2, None, "Договор № 1"),
        ("subconto", 2, None, "Договор № 2"),
        ("subconto", 1, None, "ИП Бета"),
        ("subconto", 2, None, "Договор № 3"),
        ("total", 0, None, "Итого"),
    ]
    assert rows[1]["inn"] == "0274000001"
    assert rows[4]["inn"] == "7701234567"
    assert rows[1]["extra"] == {"КПП": "027401001"}
    assert rows[2]["extra"] == {"КПП": None}
    assert rows[0]["inn"] is None
    assert doc["status"] == "done", doc["checks"]


def test_extra_keeps_every_other_column_inside_the_table() -> None:
    """A «Договор» column and КПП both land in extra under their header texts."""
    rows = [
        R("62.01", None, ("100", None, None, None, "100", None)),
        R(
            None,
            "ООО «Альфа»",
            ("100", None, None, None, "100", None),
            1,
            kpp="770101001",
            contract="Дог. 5",
        ),
    ]
    built = osv_sheet(
        rows,
        ("100", None, None, None, "100", None),
        title="Оборотно-сальдовая ведомость по счету 62.01 за 2024 г.",
        code_and_name=False,
        kinds=("Контрагенты",),
        kpp=True,
        contract=True,
    )
    doc = _document(built.sheet)
    assert doc["rows"][1]["extra"] == {"КПП": "770101001", "Договор": "Дог. 5"}
    assert "inn" in doc["rows"][1] and doc["rows"][1]["inn"] is None


def test_indicator_rows_fold_into_their_entity() -> None:
    """With «Показатели», money is the БУ row; НУ and Кол. rows are kept in extra, not as rows."""
    rows = [
        R("10", "Материалы", ("500", None, "100", "200", "400", None)),
        R(
            "10.01",
            "Сырье и материалы",
            ("500", None, "100", "200", "400", None),
            1,
            indicators={
                "НУ": ("450", None, "100", "200", "350", None),
                "Кол.": ("5", None, "1", "2", "4", None),
            },
        ),
    ]
    built = osv_sheet(
        rows,
        ("500", None, "100", "200", "400", None),
        title="Оборотно-сальдовая ведомость по счету 10 за 2024 г.",
        indicator=True,
    )
    doc = _document(built.sheet)
    body = doc["rows"]
    assert [r["account"] for r in body] == ["10", "10.01", None]
    assert _sums(body[1]) == ("500", None, "100", "200", "400", None)
    extra = body[1]["extra"]
    assert extra["Показатели"] == "БУ"
    assert extra["НУ: Сальдо на начало периода Дебет"] == "450"
    assert extra["НУ: Сальдо на конец периода Дебет"] == "350"
    assert extra["Кол.: Обороты за период Кредит"] == "2"
    assert "НУ: Сальдо на начало периода Кредит" not in extra
    assert doc["status"] == "done"


def test_numbers_as_text_with_nbsp_and_comma_decimals() -> None:
    """HTML/.xls exports print «1 234 567,50»: read exactly, the same document as with floats."""
    rows = [dataclasses.replace(r) for r in GENERAL_ROWS]
    rows[0] = R("01", "Основные средства", ("1234567.5", None, "0.5", None, "1234568", None))
    total = ("1234667.5", "1100", "200.5", "700", "1234768", "1700")
    as_text = _document(osv_sheet(rows, total, as_text=True).sheet)
    as_float = _document(osv_sheet(rows, total).sheet)
    assert _sums(as_text["rows"][0]) == ("1234567.50", None, "0.50", None, "1234568", None)
    assert as_text["rows"] == as_float["rows"]
    assert as_text["status"] == "needs_check"  # 01 breaks Dr = Cr: proves the texts were summed
    assert {f["check"] for f in as_text["checks"]["failed"]} == {"DEBIT_EQUALS_CREDIT"}


def test_signature_footer_after_total_is_ignored() -> None:
    """Руководитель / Главный бухгалтер lines (even with a number) after Итого are not rows."""
    built = osv_sheet(GENERAL_ROWS, GENERAL_TOTAL, footer=True)
    doc = _document(built.sheet)
    assert doc["rows"][-1]["kind"] == "total"
    assert doc["rows"][-1]["row_index"] == built.total_row
    assert len(built.sheet.rows) > built.total + 2
    assert not any("Руководитель" in (r["name"] or "") for r in doc["rows"])


def test_footer_without_total_ends_the_table() -> None:
    """Without Итого the footer still ends the body, and the missing total is a warning."""
    built = osv_sheet(GENERAL_ROWS, None, footer=True)
    doc = _document(built.sheet)
    assert len(doc["rows"]) == len(GENERAL_ROWS)
    assert [w["code"] for w in doc["warnings"]] == ["OSV_NO_TOTAL"]
    assert all(w["severity"] == "info" for w in doc["warnings"])


def test_hierarchy_from_codes_without_outline_levels() -> None:
    """No outline levels: 60 → 60.01 by code prefix, a subconto row under the account above."""
    doc = _document(osv_sheet(GENERAL_ROWS, GENERAL_TOTAL, outline=False).sheet)
    assert [r["level"] for r in doc["rows"]] == [0, 0, 1, 2, 2, 1, 0, 0]
    assert doc["status"] == "done"


def _two_kinds_without_outlines() -> Any:
    """An ОСВ by account with counterparties and contracts, and no outline levels."""
    return osv_sheet(
        BY_ACCOUNT_ROWS,
        BY_ACCOUNT_TOTAL,
        title="Оборотно-сальдовая ведомость по счету 62.01 за 2024 г.",
        code_and_name=False,
        kinds=("Контрагенты", "Договоры"),
        outline=False,
    )


def test_two_subconto_kinds_without_outline_levels_skip_the_unknowable_children_sum() -> None:
    """Counterparties and contracts cannot be told apart without outlines: a warning, no false failure."""
    doc = _document(_two_kinds_without_outlines().sheet)
    assert [w["code"] for w in doc["warnings"]] == ["OSV_NESTING_UNKNOWN"]
    assert doc["warnings"][0]["line_refs"] == [doc["rows"][0]["ref"]]
    assert doc["status"] == "done"


def test_upp_layout_with_labelled_lines_units_and_left_margin() -> None:
    """«Организация:», «Период:» on its own line, units, «Параметры:» ignored; table from column B."""
    built = osv_sheet(
        GENERAL_ROWS,
        GENERAL_TOTAL,
        organization=None,
        title="Оборотно-сальдовая ведомость",
        title_lines=(
            "Организация: ООО «Ромашка»",
            "Период: 1 квартал 2025 г.",
            "Параметры: Развернутое сальдо",
            "Единица измерения: тыс. руб.",
        ),
        left_margin=1,
        sheet_name="ОСВ 2025",
    )
    doc = _document(built.sheet)
    header = doc["header"]
    assert header["organization_name"] == "ООО «Ромашка»"
    assert header["title"] == "Оборотно-сальдовая ведомость"
    assert (header["period_text"], header["period_start"], header["period_end"]) == (
        "1 квартал 2025 г.",
        "2025-01-01",
        "2025-03-31",
    )
    assert header["units"] == "тыс. руб."
    assert doc["rows"][0]["ref"] == f"'ОСВ 2025'!B{built.first_body_row + 1}"
    assert doc["locator"]["range"].startswith(f"B{built.header_row + 1}:")
    assert doc["status"] == "done"


def test_units_stated_inline() -> None:
    """«в тыс. руб.» anywhere in the title block is the units."""
    built = osv_sheet(
        GENERAL_ROWS, GENERAL_TOTAL, title_lines=("Выводимые данные: БУ", "в тыс. руб.")
    )
    assert _document(built.sheet)["header"]["units"] == "тыс. руб."


def test_missing_title_is_a_warning_not_a_refusal() -> None:
    """The header alone identifies the ОСВ; the missing title and period are reported."""
    doc = _document(osv_sheet(GENERAL_ROWS, GENERAL_TOTAL, organization=None, title=None).sheet)
    assert [w["code"] for w in doc["warnings"]] == ["OSV_TITLE_MISSING", "OSV_PERIOD_UNRECOGNIZED"]
    assert doc["header"]["period_start"] is None
    assert len(doc["rows"]) == len(GENERAL_ROWS) + 1


def test_unreadable_amount_is_a_warning_with_its_row_and_column() -> None:
    """A sum cell holding text that is no amount stays null and is reported where it is."""
    built = osv_sheet(GENERAL_ROWS, GENERAL_TOTAL)
    row = built.first_body_row
    built.sheet.rows[row][2] = "тысяча"
    doc = _document(built.sheet)
    unreadable = [w for w in doc["warnings"] if w["code"] == "OSV_VALUE_UNREADABLE"]
    assert unreadable == [
        {
            "code": "OSV_VALUE_UNREADABLE",
            "severity": "info",
            "message": "Не сумма: «тысяча»",
            "line_refs": [doc["rows"][0]["ref"]],
            "column_index": 2,
        }
    ]
    assert doc["rows"][0]["opening_debit"] is None


def test_sheets_that_are_not_osv_give_no_document() -> None:
    """A balance sheet, an empty sheet, and a title without the table are not ОСВ."""
    balance = Sheet(
        name="Баланс",
        rows=[
            ["Бухгалтерский баланс", None, None],
            ["Наименование показателя", "Код", "На 31 декабря 2024 г."],
            ["Основные средства", "1150", 1000.0],
        ],
    )
    title_only = Sheet(
        name="x", rows=[["Оборотно-сальдовая ведомость за 2024 г."], ["Счет", "Дебет"]]
    )
    assert recognize_osv(balance) == []
    assert recognize_osv(Sheet(name="empty", rows=[])) == []
    assert recognize_osv(title_only) == []


def test_header_without_title_or_rows_is_not_taken() -> None:
    """Only the header words and nothing else: not enough to call the sheet an ОСВ."""
    built = osv_sheet([], None, organization=None, title=None, title_lines=(), footer=False)
    assert recognize_osv(built.sheet) == []


def test_account_header_merged_over_code_and_name_without_subheaders() -> None:
    """«Счет» merged over two columns and two rows, no «Код»/«Наименование»: names still read."""
    built = osv_sheet(GENERAL_ROWS, GENERAL_TOTAL)
    sheet = built.sheet
    sub = built.header_row + 1
    sheet.rows[sub][0] = sheet.rows[sub][1] = None
    sheet.merged = [m for m in sheet.merged if (m.first_row, m.first_col) != (built.header_row, 0)]
    sheet.merged.append(CellRange(built.header_row, 0, sub, 1))
    doc = _document(sheet)
    assert [(r["account"], r["name"]) for r in doc["rows"][:4]] == [
        ("01", "Основные средства"),
        ("60", "Расчеты с поставщиками и подрядчиками"),
        ("60.01", "Расчеты с поставщиками и подрядчиками"),
        (None, "ООО «Поставщик А»"),
    ]
    assert all("extra" not in r for r in doc["rows"])
    assert doc["status"] == "done"


def test_subconto_kinds_on_rows_of_their_own_without_merges() -> None:
    """«Договоры» on its own row under «Контрагенты», Дебет not merged down: still a header row."""
    built = osv_sheet(
        BY_ACCOUNT_ROWS,
        BY_ACCOUNT_TOTAL,
        title="Оборотно-сальдовая ведомость по счету 62.01 за 2024 г.",
        code_and_name=False,
        kinds=("Контрагенты", "Договоры"),
    )
    sub = built.header_row + 1
    built.sheet.merged = [m for m in built.sheet.merged if m.first_row != sub]
    doc = _document(built.sheet)
    assert doc["header"]["subconto_kinds"] == ["Контрагенты", "Договоры"]
    assert doc["rows"][0]["account"] == "62.01"
    assert len(doc["rows"]) == len(BY_ACCOUNT_ROWS) + 1


def test_every_osv_warning_an_analyst_reads_is_russian() -> None:
    """The messages (shown by `arm-ka` and in the export's «Замечания») speak Russian, as the
    statements' warnings do; the codes stay the machine-readable part. Over ОСВ without a
    title, period or «Итого», with a filter, unknowable nesting and an unreadable sum."""
    untitled = osv_sheet(GENERAL_ROWS, None, organization=None, title=None)
    untitled.sheet.rows[untitled.first_body_row][2] = "тысяча"
    filtered = osv_sheet(
        GENERAL_ROWS[:1],
        ("1000", None, "500", None, "1500", None),
        title_lines=("Выводимые данные: БУ", "Отбор: Счет В списке 01"),
    )
    nested = _two_kinds_without_outlines()
    warnings = [
        w for built in (untitled, filtered, nested) for w in _document(built.sheet)["warnings"]
    ]
    codes = {w["code"] for w in warnings}
    assert {
        "OSV_TITLE_MISSING",
        "OSV_PERIOD_UNRECOGNIZED",
        "OSV_NO_TOTAL",
        "OSV_VALUE_UNREADABLE",
        "OSV_FILTERED",
        "OSV_NESTING_UNKNOWN",
    } <= codes
    for warning in warnings:
        message = warning["message"]
        assert re.search(r"[А-Яа-яЁё]", message), warning
        assert re.search(r"[A-Za-z]{3,}", message) is None, warning
