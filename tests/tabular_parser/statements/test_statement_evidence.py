"""Statements as real files print them: without codes or title, with their own numbering, a
title over no lines; what a sheet that is no form showed. Sheets built in code."""

from __future__ import annotations

from services.tabular_parser.statements import describe_sheet, recognize_statements
from tests.builders import CellInput, SheetSpec

from ._forms import codes_block, onec_balance, pad, statement_table, to_sheet, to_sheets
from ._helpers import only

Row = list[CellInput]

_ACTIVE = [
    ("Основные средства", 13896, 14232),
    ("Финансовые вложения", 2360, 1080),
    ("Итого по разделу I", 16256, 15312),
    ("Запасы", 8671, 12575),
    ("Дебиторская задолженность", 9415, 7059),
    ("Денежные средства и денежные эквиваленты", 2417, 2766),
    ("Итого по разделу II", 20503, 22400),
    ("БАЛАНС", 36759, 37712),
]


def _codeless_balance() -> SheetSpec:
    """A hand-made актив: no title, no ОКУД, no «Код» column; «На 30.06.24» labels."""
    rows: list[Row] = [["Наименование показателя", "На 30.06.24", "На 31.12.23"], ["АКТИВ"]]
    rows += [[name, a, b] for name, a, b in _ACTIVE]
    return SheetSpec("Лист1", rows)


def test_a_balance_without_codes_or_title_is_read_by_its_line_names() -> None:
    """Catalogue names make a BALANCE: codes inferred, line_code_text null, CODES_INFERRED, the
    amounts those of the cells, the columns dated from «На 30.06.24»."""
    doc = only(recognize_statements(to_sheets([_codeless_balance()])), "BALANCE")
    by_code = {line["line_code"]: line for line in doc["lines"]}
    assert [by_code[c]["values"][0]["amount"] for c in ("1150", "1100", "1600")] == [
        "13896",
        "16256",
        "36759",
    ]
    assert all(line["line_code_text"] is None for line in doc["lines"])
    assert "CODES_INFERRED" in [w["code"] for w in doc["warnings"]]
    assert [c["period_date"] for c in doc["columns"]] == ["2024-06-30", "2023-12-31"]


def test_inferred_amounts_need_review_unless_a_relation_over_them_holds() -> None:
    """1600 = 1100 + 1200 holds in both columns, so 1100, 1200 and 1600 are vouched for; the
    lines under them are in no checked relation (1100's terms are not all present) and need
    review; nothing is RELATION_FAILED for lines never mapped."""
    doc = only(recognize_statements(to_sheets([_codeless_balance()])), "BALANCE")
    review = {line["line_code"]: line["needs_review"] for line in doc["lines"]}
    assert (review["1100"], review["1200"], review["1600"]) == (False, False, False)
    assert review["1150"] and review["1250"]
    assert doc["checks"]["relations_failed"] == []
    assert doc["status"] == "needs_check"


def test_a_title_over_no_lines_is_no_document_but_a_sheet_other_saying_so() -> None:
    """«Бухгалтерский баланс» with a table but not one line: no BALANCE; SHEET_OTHER names the
    form it looked like and the title seen."""
    rows: list[Row] = [[None, "Бухгалтерский баланс"], [None, "на 31 декабря 2024 г."]]
    rows += [["Пояснения", "Наименование показателя", "Код", "На 31 декабря 2024 г."]]
    rows += [[None, "Прочее"]]
    result = recognize_statements(to_sheets([SheetSpec("Баланс", [pad(r, 4) for r in rows])]))
    assert result.documents == []
    [warning] = result.file_warnings()
    assert warning["code"] == "SHEET_OTHER"
    assert "похоже на бухгалтерский баланс" in warning["message"]
    assert "заголовок «Бухгалтерский баланс»" in warning["message"]
    assert "выгрузите форму с кодами строк и суммами" in warning["message"]


def test_a_blank_form_with_codes_but_no_amounts_is_no_document() -> None:
    """A balance template: title, codes and names, every amount cell empty — no BALANCE (a
    needs_check form full of nulls is still a form an analyst may take for the filing)."""
    rows: list[Row] = [[None, "Бухгалтерский баланс"], [None, "на 31 декабря 2024 г."]]
    rows += statement_table(
        ("На 31 декабря 2024 г.",),
        [("1150", "Основные средства", (None,)), ("1600", "БАЛАНС", (None,))],
    )
    result = recognize_statements([to_sheet(SheetSpec("Баланс", [pad(r, 4) for r in rows]))])
    assert result.documents == []
    assert [w["code"] for w in result.file_warnings()] == ["SHEET_OTHER"]


def test_notes_column_header_starts_no_disclosure() -> None:
    """A «Пояснения к строкам» header under a balance title is a column, not a DISCLOSURE."""
    spec = onec_balance()
    rows = [list(r) for r in spec.rows]
    header = next(i for i, r in enumerate(rows) if "Наименование показателя" in r)
    rows[header][0] = "Пояснения к строкам"
    result = recognize_statements([to_sheet(SheetSpec(spec.name, rows))])
    assert [d["document_type"] for d in result.documents] == ["BALANCE"]


def test_a_form_with_its_own_numbering_has_no_variant_and_keeps_its_okud() -> None:
    """ОКУД 0420002 (a non-credit financial organisation's balance): BALANCE, form_variant
    null, header.okud 0420002."""
    rows: list[Row] = [[None, "Бухгалтерский баланс некредитной финансовой организации"]]
    rows += codes_block("0420002", "30.06.2019", with_auditor=False)
    rows += statement_table(
        ("30 июня 2019 г.", "31 декабря 2018 г."),
        [
            ("1250", "Денежные средства", (5, 4)),
            ("1200", "Итого оборотных активов", (5, 4)),
            ("1600", "Итого активов", (5, 4)),
        ],
    )
    doc = only(
        recognize_statements([to_sheet(SheetSpec("TDSheet", [pad(r, 7) for r in rows]))]), "BALANCE"
    )
    assert (doc["form_variant"], doc["header"]["okud"]) == (None, "0420002")


def test_describe_sheet_says_what_a_sheet_that_is_no_form_shows() -> None:
    """A sheet of amounts without codes: the message names a table of 2 value columns without
    codes, so an analyst knows it was seen and why it is no form; a column header is no
    title."""
    rows: list[Row] = [["Наименование показателя", "Сумма", "Сумма"], ["Аренда", 10, 20]]
    text = describe_sheet(to_sheet(SheetSpec("Справка", rows)))
    assert text == "таблица: столбцов с числами — 2, строк с числами — 1, без кодов строк"


def test_a_coded_table_that_is_no_form_names_its_catalogue_codes_and_names() -> None:
    """Codes 1150 / 1250 / 2110 in a code column under a title no form has: the description
    counts the codes of each form and the catalogue line names it found."""
    rows: list[Row] = [["Сводка показателей"], ["Показатель", "Код", "Сумма"]]
    rows += [
        ["Основные средства", "1150", 10],
        ["Денежные средства и денежные эквиваленты", "1250", 20],
        ["Выручка", "2110", 30],
    ]
    text = describe_sheet(to_sheet(SheetSpec("Свод", rows)))
    assert text == (
        "заголовок «Сводка показателей»; таблица: столбцов с числами — 1, строк с числами — 3, "
        "столбец кодов строк: кодов строк баланса 2, отчёта о финансовых результатах 1; "
        "наименований строк из справочника форм: 3"
    )
