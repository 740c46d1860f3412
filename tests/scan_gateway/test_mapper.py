"""Result-set tables → statementDocuments: the contract example, OCR review semantics, file
warnings, headers and periods."""

from __future__ import annotations

import copy
from typing import Any

from services.contract import Kind
from services.scan_gateway.mapper import map_items
from services.scan_gateway.resultset import Item, parse_item
from tests.support.recognition_service import contract_errors, example

from ._resultsets import (
    BALANCE_COLUMN_HEADERS,
    BALANCE_HEADER_LINES,
    encode,
    item,
    minimal_balance_item,
    plain_line,
    table,
)


def parsed(*docs: dict[str, Any]) -> list[Item]:
    return [parse_item(f"page-{d['page']}.json", encode(d)) for d in docs]


def result_file(recognition: Any) -> dict[str, Any]:
    """The result file the protocol would write around a recognition."""
    body = copy.deepcopy(example("result-statement-minimal.json"))
    body.update(
        status=recognition.status,
        documents=recognition.documents,
        group_schema=recognition.group_schema,
    )
    body["metrics"]["warnings"] = recognition.warnings
    body["service"]["statements_version"] = recognition.statements_version
    return body


def test_mapper_produces_the_contract_minimal_example() -> None:
    """The page the tests build maps to contracts/examples/result-statement-minimal.json:
    same documents, no file warnings, group rsbu, status needs_check."""
    recognition = map_items(parsed(minimal_balance_item()))
    expected = example("result-statement-minimal.json")
    assert recognition.documents == expected["documents"]
    assert recognition.warnings == expected["metrics"]["warnings"]
    assert recognition.group_schema == expected["group_schema"] == "rsbu"
    assert recognition.status == expected["status"]
    assert recognition.statements_version is not None
    assert contract_errors(Kind.RESULT, result_file(recognition)) == []


def _balance_with(value: tuple[str, float], *, break_relation: bool) -> dict[str, Any]:
    page = minimal_balance_item()
    rows = page["tables"][0]["rows"]
    rows[4]["cells"][2] = {"column": 2, "text": value[0], "confidence": value[1]}
    if break_relation:  # 1600 no longer equals the sum, so nothing covers 1230
        rows[5]["cells"][2]["text"] = "9 999"
    return page


def test_dirty_value_covered_by_a_holding_relation_needs_no_review() -> None:
    """«1 2З0» read as 1230 with 1600 = Σ holding: is_recognized false, needs_review false."""
    doc = map_items(parsed(_balance_with(("1 2З0", 61), break_relation=False))).documents[0]
    value = doc["lines"][4]["values"][0]
    assert (value["amount"], value["is_recognized"], value["needs_review"]) == (
        "1230",
        False,
        False,
    )
    assert value["text"] == "1 2З0"


def test_dirty_value_not_covered_needs_review_and_a_warning() -> None:
    """When the relation fails the dirty value is up for review, with a VALUE_NEEDS_REVIEW
    warning and a RELATION_FAILED error; the line needs review too."""
    doc = map_items(parsed(_balance_with(("1 2З0", 61), break_relation=True))).documents[0]
    line = doc["lines"][4]
    assert line["values"][0]["needs_review"] and line["needs_review"]
    codes = {w["code"] for w in doc["warnings"]}
    assert {"VALUE_NEEDS_REVIEW", "RELATION_FAILED"} <= codes
    assert doc["checks"]["relations_failed"] and doc["status"] == "needs_check"


def test_unreadable_code_keeps_its_raw_text() -> None:
    """A code that is not clean digits: line_status unreadable, line_code null, raw text kept,
    LINE_CODE_UNREADABLE naming the line."""
    doc = map_items(parsed(minimal_balance_item())).documents[0]
    line = next(x for x in doc["lines"] if x["line_status"] == "unreadable")
    assert (line["line_code"], line["line_code_text"], line["needs_review"]) == (None, "I5IO", True)
    assert doc["warnings"][0]["code"] == "LINE_CODE_UNREADABLE"
    assert doc["warnings"][0]["line_refs"] == [line["ref"]]


def test_table_no_form_takes_is_table_unmapped() -> None:
    """A table without codes, names of lines or a form title: TABLE_UNMAPPED {page, table}."""
    other = table(2, 1, [("Дата", 99), ("Сумма", 99)], [[("01.01.2024", 99), ("5", 99)]])
    page = minimal_balance_item()
    recognition = map_items(parsed(page, item(2, [plain_line("Приложение")], [other])))
    assert len(recognition.documents) == 1
    assert recognition.warnings == [
        {
            "code": "TABLE_UNMAPPED",
            "severity": "warning",
            "message": recognition.warnings[0]["message"],
            "locator": {"page": 2, "table": 1},
        }
    ]
    assert recognition.status == "needs_check"  # the document is


def test_balance_over_two_pages_is_one_document_with_two_locators() -> None:
    """Assets on page 1, liabilities on page 2 (no new title): one BALANCE, both locators,
    relations across the pages hold."""
    page1 = minimal_balance_item()
    rows = page1["tables"][0]["rows"]
    page1["tables"][0]["rows"] = rows[:6]
    page2 = item(2, [], [table(2, 0, BALANCE_COLUMN_HEADERS, [])])
    page2["tables"][0]["rows"] = [dict(r, index=i + 1) for i, r in enumerate(rows[6:])]
    docs = map_items(parsed(page1, page2)).documents
    assert len(docs) == 1
    assert docs[0]["locator"] == [{"page": 1, "table": 0}, {"page": 2, "table": 0}]
    assert docs[0]["checks"]["relations_failed"] == []
    assert {line["ref"].split(":")[0] for line in docs[0]["lines"]} == {"p1", "p2"}


def test_income_statement_by_codes_with_a_detail_line_and_relative_columns() -> None:
    """2xxx codes make an INCOME; a line without a code under 2110 is a detail line of 2110;
    relative column labels resolve against the report date."""
    rows: list[list[tuple[str, float] | None]] = [
        [("Выручка", 99), ("2110", 99), ("1 000", 99), ("900", 99)],
        [("в том числе от продажи товаров", 99), None, ("600", 99), ("500", 99)],
        [("Себестоимость продаж", 99), ("2120", 99), ("(700)", 99), ("(600)", 99)],
        [("Валовая прибыль (убыток)", 99), ("2100", 99), ("300", 99), ("300", 99)],
    ]
    headers = [
        ("Наименование показателя", 99),
        ("Код", 99),
        ("За отчетный период", 99),
        ("За аналогичный период предыдущего года", 99),
    ]
    lines = list(BALANCE_HEADER_LINES[1:])
    doc = map_items(parsed(item(1, lines, [table(1, 0, headers, rows)]))).documents[0]
    assert doc["document_type"] == "INCOME"
    detail = doc["lines"][1]
    assert detail["line_status"] == "detail" and detail["parent_ref"] == doc["lines"][0]["ref"]
    assert [(c["period_kind"], c["period_date"]) for c in doc["columns"]] == [
        ("relative:current", "2024-12-31"),
        ("relative:prev_period", "2023-12-31"),
    ]
    assert doc["checks"]["relations_failed"] == []


def test_header_field_read_with_low_confidence_needs_review() -> None:
    """ОКПО printed «7654З210» at confidence 58: value 76543210, listed for review."""
    header = map_items(parsed(minimal_balance_item())).documents[0]["header"]
    assert (header["okpo"], header["okpo_text"], header["okpo_confidence"]) == (
        "76543210",
        "7654З210",
        58,
    )
    assert header["needs_review_fields"] == ["okpo"]
    assert header["units"] == "тыс. руб." and header["report_date"] == "2024-12-31"


def test_a_form_table_without_lines_is_no_document_but_table_unmapped() -> None:
    """A balance title over a table whose rows hold neither codes nor amounts: no empty
    BALANCE; TABLE_UNMAPPED says it looked like a balance and gave no line."""
    empty = table(1, 0, BALANCE_COLUMN_HEADERS, [[("АКТИВ", 99), None, None]])
    recognition = map_items(parsed(item(1, list(BALANCE_HEADER_LINES), [empty])))
    assert recognition.documents == []
    [warning] = recognition.warnings
    assert warning["code"] == "TABLE_UNMAPPED"
    assert "похожа на бухгалтерский баланс" in warning["message"]


def test_clean_value_a_failed_relation_contradicts_needs_review() -> None:
    """1600 read «9 999» at high confidence breaks 1600 = Σ: the terms no holding relation
    covers (1600 itself, read surely, included) are up for review, never left unflagged."""
    page = minimal_balance_item()
    page["tables"][0]["rows"][5]["cells"][2]["text"] = "9 999"
    doc = map_items(parsed(page)).documents[0]
    by_code = {line["line_code"]: line for line in doc["lines"] if line["line_code"]}
    assert by_code["1600"]["values"][0]["needs_review"] is True
    assert by_code["1210"]["values"][0]["needs_review"] is True
    assert by_code["1600"]["values"][1]["needs_review"] is False  # its column holds


def test_code_no_form_prints_needs_review() -> None:
    """«1235» is four clean digits but no catalogue line: the line is kept with its code and
    put up for review (a misread code would move figures to another line)."""
    page = minimal_balance_item()
    page["tables"][0]["rows"][2]["cells"][1]["text"] = "1235"
    doc = map_items(parsed(page)).documents[0]
    line = next(x for x in doc["lines"] if x["line_code"] == "1235")
    assert line["needs_review"] is True and doc["status"] == "needs_check"


def test_target_use_report_keeps_its_coded_lines() -> None:
    """«Отчет о целевом использовании средств» (ОКУД 0710003) is a DISCLOSURE that keeps its
    6xxx lines and amounts (the contract allows lines; it has no form variant) and gets the
    checks of its relations (6400 = 6100 + 6200 − 6300 holds here)."""
    rows = [
        [("Остаток средств на начало отчетного года", 95), ("6100", 96), ("2 518", 99)],
        [("Поступило средств", 95), ("6200", 96), ("302 802", 99)],
        [("Использовано средств", 95), ("6300", 96), ("(303 964)", 99)],
        [("Остаток средств на конец отчетного года", 95), ("6400", 96), ("1 356", 99)],
    ]
    headers = [("Наименование показателя", 96), ("Код", 96), ("За 2021 г.", 96)]
    page = item(
        4,
        [plain_line("Форма по ОКУД 0710003"), plain_line("Отчет о целевом использовании средств")],
        [table(4, 0, headers, rows)],
    )
    recognition = map_items(parsed(page))
    [doc] = recognition.documents
    assert doc["document_type"] == "DISCLOSURE" and doc["form_variant"] is None
    amounts = {x["line_code"]: x["values"][0]["amount"] for x in doc["lines"]}
    assert amounts == {"6100": "2518", "6200": "302802", "6300": "-303964", "6400": "1356"}
    assert doc["checks"] == {"relations_failed": [], "soft_relations_failed": []}
    assert not any(x["needs_review"] for x in doc["lines"])
    assert contract_errors(Kind.RESULT, result_file(recognition)) == []


def test_a_printed_2115_between_revenue_and_cost_is_confirmed_by_gross_profit() -> None:
    """ПАО «КАМАЗ» 2025 prints 2115 «Прочие поступления» between 2110 and 2120: 2100 = 2110 +
    2115 − 2120 holds in both years, so no relation fails, 2115 (no official line) is not taken
    for a misread code and the read 2110 / 2120 are not put up for review."""
    rows = [
        [("Выручка", 95), ("2110", 96), ("315 209 726", 96), ("323 383 185", 96)],
        [("Прочие поступления", 95), ("2115", 96), ("864 854", 94), ("117 750", 90)],
        [("Себестоимость продаж", 95), ("2120", 95), ("(315 317 485)", 91), ("(299 343 014)", 93)],
        [("Валовая прибыль (убыток)", 95), ("2100", 96), ("757 095", 96), ("24 157 921", 90)],
    ]
    headers = [("Наименование показателя", 96), ("Код строки", 96), ("За 2025 г.", 96),
               ("За 2024 г.", 96)]  # fmt: skip
    page = item(
        1,
        [plain_line("Отчет о финансовых результатах за 2025 год"), plain_line("0710002")],
        [table(1, 0, headers, rows)],
    )
    [doc] = map_items(parsed(page)).documents
    assert doc["checks"]["relations_failed"] == []
    by_code = {x["line_code"]: x for x in doc["lines"]}
    assert by_code["2115"]["values"][0]["amount"] == "864854"
    assert not any(x["needs_review"] for x in doc["lines"])


def test_a_notes_and_name_head_read_as_one_is_the_name_column() -> None:
    """A tax-office blank's «Пояснения» column left of the names, its head read with theirs
    («Пояснения Наименование показателя»): the column is the names', not the notes'."""
    from services.scan_gateway.mapper import _header_kind

    assert _header_kind("Пояснения Наименование показателя 1 2") == "name"
    assert _header_kind("Пояснения") == "notes"
