"""Recognised documents are valid osvDocuments of the 2.0 result schema, and odd sheets never raise."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator, FormatChecker

from services.contract.models.result_v2 import OsvRow
from services.excel.model import CellRange, Sheet
from services.tabular_parser.osv._columns import SUM_FIELDS

from ._builder import osv_sheet
from ._fixtures import BY_ACCOUNT_ROWS, BY_ACCOUNT_TOTAL, GENERAL_ROWS, GENERAL_TOTAL
from ._strict import recognize_osv

SCHEMA = Path(__file__).resolve().parents[3] / "contracts" / "recognition-result.schema.json"


def _result_file(documents: list[dict[str, Any]]) -> dict[str, Any]:
    needs_check = any(d["status"] == "needs_check" for d in documents)
    return {
        "schema_version": "2.0",
        "job_id": "5e0d7c3b-2a19-4f68-b7e4-6c1d2f3a4b5c",
        "file_id": "0c9b8a7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d",
        "status": "needs_check" if needs_check else "done",
        "service": {"name": "tabular-parser", "version": "0.1.0"},
        "group_schema": "osv",
        "documents": documents,
        "metrics": {"duration_ms": 1, "warnings": []},
    }


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    """The 2.0 result schema; it is part of the repository, so its absence fails, never skips."""
    if not SCHEMA.exists():
        pytest.fail(f"the result schema is missing: {SCHEMA}")
    return Draft202012Validator(
        json.loads(SCHEMA.read_text("utf-8")), format_checker=FormatChecker()
    )


def test_documents_validate_against_the_result_schema(validator: Draft202012Validator) -> None:
    """Done and needs_check documents, with extra, warnings and failures, all pass schema 2.0."""
    general = osv_sheet(GENERAL_ROWS, GENERAL_TOTAL)
    broken = osv_sheet(GENERAL_ROWS, GENERAL_TOTAL, title=None)
    broken.put("01", 0, 1001.0)
    by_account = osv_sheet(
        BY_ACCOUNT_ROWS,
        BY_ACCOUNT_TOTAL,
        title="Оборотно-сальдовая ведомость по счету 62.01 за Октябрь 2024 г. – Сентябрь 2025 г.",
        code_and_name=False,
        kinds=("Контрагенты", "Договоры"),
        inn=True,
        kpp=True,
        outline=False,
    )
    documents = []
    for built in (general, broken, by_account):
        [result] = recognize_osv(built.sheet)
        documents.append(result.document)
    assert [d["status"] for d in documents] == ["done", "needs_check", "done"]
    assert documents[1]["checks"]["failed"] and documents[2]["warnings"]
    errors = [e.message for e in validator.iter_errors(_result_file(documents))]
    assert errors == []


_WORDS = st.sampled_from(
    [
        None,
        "",
        "Итого",
        "Счет",
        "Код",
        "Наименование",
        "Сальдо на начало периода",
        "Обороты за период",
        "Сальдо на конец периода",
        "Дебет",
        "Кредит",
        "Показатели",
        "БУ",
        "НУ",
        "ИНН",
        "62.01",
        "01",
        "Руководитель",
        "Оборотно-сальдовая ведомость по счету за",
        "1 234,50",
        "(1 234)",
        "-",
    ]
)
_CELLS = st.one_of(
    _WORDS, st.floats(allow_nan=True, allow_infinity=True), st.integers(), st.text(max_size=8)
)


@settings(max_examples=60, deadline=None)
@given(
    grid=st.lists(st.lists(_CELLS, max_size=9), max_size=9),
    merges=st.lists(st.tuples(*(st.integers(0, 9) for _ in range(4))), max_size=4),
    levels=st.dictionaries(st.integers(0, 9), st.integers(1, 4), max_size=4),
)
def test_odd_sheets_never_raise(
    grid: list[list[Any]], merges: list[tuple[int, int, int, int]], levels: dict[int, int]
) -> None:
    """Random grids of header words, numbers and junk give None or a document, never an exception."""
    merged = [CellRange(min(a, c), min(b, d), max(a, c), max(b, d)) for a, b, c, d in merges]
    sheet = Sheet(name="x", rows=grid, merged=merged, outline_levels=levels)
    results = recognize_osv(sheet)
    assert all(result.document["document_type"] == "OSV" for result in results)


@settings(max_examples=60, deadline=None)
@given(
    edits=st.lists(st.tuples(st.integers(0, 20), st.integers(0, 12), _CELLS), max_size=12),
    merges=st.lists(st.tuples(*(st.integers(0, 20) for _ in range(4))), max_size=4),
    levels=st.dictionaries(st.integers(0, 20), st.integers(1, 4), max_size=6),
)
def test_damaged_osv_never_raises(
    edits: list[tuple[int, int, Any]],
    merges: list[tuple[int, int, int, int]],
    levels: dict[int, int],
) -> None:
    """A real ОСВ layout with random cells overwritten, merges and outline levels: never raises."""
    built = osv_sheet(GENERAL_ROWS, GENERAL_TOTAL, indicator=True, inn=True)
    sheet = built.sheet
    for row, col, value in edits:
        if row < len(sheet.rows) and col < len(sheet.rows[row]):
            sheet.rows[row][col] = value
    sheet.merged += [CellRange(min(a, c), min(b, d), max(a, c), max(b, d)) for a, b, c, d in merges]
    sheet.outline_levels.update(levels)
    results = recognize_osv(sheet)
    assert all(result.document["status"] in ("done", "needs_check") for result in results)


def test_header_rows_at_the_very_end_of_the_sheet_do_not_raise() -> None:
    """A header with its Дебет/Кредит row as the last row: a document with no rows."""
    built = osv_sheet([], None, footer=False)
    [result] = recognize_osv(built.sheet)
    assert result.document["rows"] == []
    assert [w["code"] for w in result.document["warnings"]] == ["OSV_NO_TOTAL"]


def test_sum_fields_are_the_money_fields_of_the_contract_row_in_its_order() -> None:
    """The parser's six sums are exactly the row's fields the schema types as money strings
    (a pattern), in the model's order: the order the parser fills and checks them in."""
    properties = OsvRow.model_json_schema()["properties"]
    money = tuple(
        name
        for name, spec in properties.items()
        if any("pattern" in alt for alt in spec.get("anyOf", [spec]))
    )
    assert len(money) == 6
    assert money == SUM_FIELDS
