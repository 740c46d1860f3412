"""Several ОСВ tables printed one below the other on one sheet: one osvDocument per table.

The yardstick: each table of a stacked sheet reads exactly as the same table alone on a sheet,
moved down by the rows above it (row indices, refs and locator range shifted, nothing else).
"""

from __future__ import annotations

import copy
import itertools
import re
from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.contract import Kind, validate
from services.excel.model import CellRange
from services.tabular_parser.recognizer import recognize_bytes
from tests.builders import CellInput, SheetSpec, write_xls, write_xlsb, write_xlsx
from tests.tabular_parser.statements._forms import onec_balance

from ._builder import Built, Stacked, osv_sheet, stack
from ._fixtures import (
    BY_ACCOUNT_60_ROWS,
    BY_ACCOUNT_ROWS,
    BY_ACCOUNT_TOTAL,
    GENERAL_ROWS,
    GENERAL_TOTAL,
    by_account_60_sheet,
)
from ._strict import recognize_osv

SHEET = "Счета"
_A1 = re.compile(r"([A-Z]+)(\d+)")


def _by_account_62(**options: Any) -> Built:
    return osv_sheet(
        BY_ACCOUNT_ROWS,
        BY_ACCOUNT_TOTAL,
        sheet_name=SHEET,
        title="Оборотно-сальдовая ведомость по счету 62.01 за Октябрь 2024 г. – Сентябрь 2025 г.",
        code_and_name=False,
        kinds=("Контрагенты", "Договоры"),
        inn=True,
        kpp=True,
        **options,
    )


def _by_account_60(**options: Any) -> Built:
    return by_account_60_sheet(SHEET, **options)


def _general(**options: Any) -> Built:
    return osv_sheet(GENERAL_ROWS, GENERAL_TOTAL, sheet_name=SHEET, **options)


def _alone(built: Built) -> dict[str, Any]:
    [result] = recognize_osv(copy.deepcopy(built.sheet))
    return result.document


def _documents(stacked: Stacked) -> list[dict[str, Any]]:
    return [result.document for result in recognize_osv(stacked.sheet)]


def _moved(document: dict[str, Any], offset: int) -> dict[str, Any]:
    """The document of a table read alone, as it reads `offset` rows further down."""

    def move(text: str) -> str:
        return _A1.sub(lambda m: f"{m[1]}{int(m[2]) + offset}", text)

    moved = copy.deepcopy(document)
    moved["locator"]["range"] = move(moved["locator"]["range"])
    for row in moved["rows"]:
        row["row_index"] += offset
        row["ref"] = move(row["ref"])
    for failure in moved["checks"]["failed"]:
        failure["ref"] = move(failure["ref"])
    for warning in moved["warnings"]:
        if "line_refs" in warning:
            warning["line_refs"] = [move(ref) for ref in warning["line_refs"]]
    return moved


def _row_span(document: dict[str, Any]) -> tuple[int, int]:
    """The first and last sheet row (1-based) of a document's locator range."""
    numbers = [int(row) for _, row in _A1.findall(document["locator"]["range"])]
    return numbers[0], numbers[-1]


def _table_range(built: Built, offset: int, last_row: int) -> str:
    header = built.header_row + offset
    return CellRange(header, built.first_col, last_row + offset, built.last_col).a1()


def test_two_osv_by_account_tables_are_two_documents_each_read_as_if_alone() -> None:
    """«ОСВ по счету» 62.01 then 60.01 on one sheet: two documents with their own account,
    period, rows, locator range and checks; a broken sum in the second table fails only it."""
    first, second = _by_account_62(), _by_account_60()
    second.put("60.01", 2, 801.0)  # turnover debit of 60.01: its ROW_BALANCE and CHILDREN_SUM fail
    stacked = stack([first, second], sheet_name=SHEET)

    documents = _documents(stacked)

    assert [d["header"]["account"] for d in documents] == ["62.01", "60.01"]
    assert [(d["header"]["period_start"], d["header"]["period_end"]) for d in documents] == [
        ("2024-10-01", "2025-09-30"),
        ("2025-01-01", "2025-03-31"),
    ]
    assert [len(d["rows"]) for d in documents] == [
        len(BY_ACCOUNT_ROWS) + 1,
        len(BY_ACCOUNT_60_ROWS) + 1,
    ]
    assert [d["locator"] for d in documents] == [
        {"sheet": SHEET, "range": _table_range(first, 0, first.total)},
        {"sheet": SHEET, "range": _table_range(second, stacked.offsets[1], second.total)},
    ]
    assert [d["status"] for d in documents] == ["done", "needs_check"]
    second_refs = {row["ref"] for row in documents[1]["rows"]}
    assert {f["ref"] for f in documents[1]["checks"]["failed"]} <= second_refs
    assert documents == [_alone(first), _moved(_alone(second), stacked.offsets[1])]


def test_a_signature_footer_between_tables_is_not_the_next_title_block() -> None:
    """Table, footer, table without an organisation line: the second table keeps the first's
    organisation (one sheet, one organisation), never the footer's «Руководитель …» line."""
    first = _general(title="Оборотно-сальдовая ведомость за Январь 2025 г.", footer=True)
    second = _general(title="Оборотно-сальдовая ведомость за Февраль 2025 г.", organization=None)
    stacked = stack([first, second], sheet_name=SHEET)

    documents = _documents(stacked)

    assert [d["header"]["organization_name"] for d in documents] == ['ООО "Ромашка"'] * 2
    assert [d["header"]["period_text"] for d in documents] == ["Январь 2025 г.", "Февраль 2025 г."]
    assert documents[0] == _alone(first)
    expected = _moved(_alone(second), stacked.offsets[1])
    expected["header"]["organization_name"] = 'ООО "Ромашка"'  # the one thing inherited
    assert documents[1] == expected


def test_two_periods_of_a_general_osv_one_after_the_other() -> None:
    """Two general ОСВ for two periods, no footer between them: both read, both balanced."""
    first = _general(title="Оборотно-сальдовая ведомость за 2024 г.", footer=False)
    second = _general(title="Оборотно-сальдовая ведомость за 1 полугодие 2025 г.")
    stacked = stack([first, second], sheet_name=SHEET, gap=1)

    documents = _documents(stacked)

    assert [d["header"]["period_end"] for d in documents] == ["2024-12-31", "2025-06-30"]
    assert [d["status"] for d in documents] == ["done", "done"]
    assert documents == [_alone(first), _moved(_alone(second), stacked.offsets[1])]


def test_a_table_without_total_or_footer_ends_at_the_next_tables_header() -> None:
    """No «Итого», no footer: the first body stops at the second header, and the second
    table's organisation and title lines go back to its title block, not into the first."""
    first_alone = osv_sheet(
        BY_ACCOUNT_ROWS,
        None,
        sheet_name=SHEET,
        title="Оборотно-сальдовая ведомость по счету 62.01 за Октябрь 2024 г. – Сентябрь 2025 г.",
        code_and_name=False,
        kinds=("Контрагенты", "Договоры"),
        inn=True,
        kpp=True,
        footer=False,
    )
    second = _by_account_60()
    stacked = stack([first_alone, second], sheet_name=SHEET)

    documents = _documents(stacked)

    assert [d["header"]["account"] for d in documents] == ["62.01", "60.01"]
    assert documents[0]["rows"][-1]["name"] == BY_ACCOUNT_ROWS[-1].name
    assert "OSV_NO_TOTAL" in [w["code"] for w in documents[0]["warnings"]]
    last_body_row = first_alone.first_body_row + len(BY_ACCOUNT_ROWS) - 1
    assert documents[0]["locator"]["range"] == _table_range(first_alone, 0, last_body_row)
    assert documents[0] == _alone(first_alone)
    assert documents[1] == _moved(_alone(second), stacked.offsets[1])


@pytest.mark.parametrize("titled", [True, False])
def test_a_broken_table_between_two_good_ones_does_not_spoil_them(titled: bool) -> None:
    """Header but no body in the middle: the tables before and after it read as if alone; the
    broken one is a document without rows when it has a title, else no document at all."""
    first, third = _by_account_62(), _by_account_60()
    broken = osv_sheet(
        [],
        None,
        sheet_name=SHEET,
        organization=None,
        title="Оборотно-сальдовая ведомость по счету 76.09 за 2025 г." if titled else None,
        title_lines=(),
        footer=False,
    )
    stacked = stack([first, broken, third], sheet_name=SHEET)

    documents = _documents(stacked)

    good = [_alone(first), _moved(_alone(third), stacked.offsets[2])]
    if titled:
        middle = documents.pop(1)
        assert middle["header"]["account"] == "76.09"
        assert middle["rows"] == []
        assert [w["code"] for w in middle["warnings"]] == ["OSV_NO_TOTAL"]
        assert middle["locator"]["range"] == _table_range(
            broken, stacked.offsets[1], broken.header_row + 1
        )
    assert documents == good


def test_text_after_the_last_table_makes_no_document() -> None:
    """Lines after the footer (a note, even the title words without a header): one document,
    the same as without them."""
    built = _general()
    alone = _alone(built)
    built.sheet.rows += [[], ["Примечание: данные предварительные"], [alone["header"]["title"]]]

    assert [result.document for result in recognize_osv(built.sheet)] == [alone]


_EDIT_VALUES = st.one_of(
    st.sampled_from(
        [None, "", "Итого", "Руководитель", "Сальдо на начало периода", "Обороты за период"]
    ),
    st.sampled_from(["Сальдо на конец периода", "Дебет", "Кредит", "Счет", "ООО «Гамма»"]),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
)


@settings(max_examples=60, deadline=None)
@given(edits=st.lists(st.tuples(st.integers(0, 60), st.integers(0, 12), _EDIT_VALUES), max_size=10))
def test_damaged_stacked_tables_never_raise_and_never_overlap(
    edits: list[tuple[int, int, Any]],
) -> None:
    """Three stacked tables with random cells overwritten: no exception, and the documents'
    ranges follow each other down the sheet without sharing a row."""
    stacked = stack([_by_account_62(), _general(), _by_account_60()], sheet_name=SHEET)
    for row, col, value in edits:
        if row < len(stacked.sheet.rows) and col < len(stacked.sheet.rows[row]):
            stacked.sheet.rows[row][col] = value

    documents = _documents(stacked)

    spans = [_row_span(d) for d in documents]
    assert all(first <= last for first, last in spans)
    assert all(a[1] < b[0] for a, b in itertools.pairwise(spans))


# --- through workbook files -------------------------------------------------------------------

WRITERS = {"XLSX": write_xlsx, "XLS": write_xls, "XLSB": write_xlsb}


def _spec(stacked: Stacked) -> SheetSpec:
    sheet = stacked.sheet
    merged = [(m.first_row, m.first_col, m.last_row, m.last_col) for m in sheet.merged]
    rows = cast("list[list[CellInput]]", sheet.rows)  # the builder writes str / float / None
    return SheetSpec(sheet.name, rows, merged=merged, outline_levels=sheet.outline_levels)


def _result_file(documents: list[dict[str, Any]], group: str | None, version: str | None) -> Any:
    service: dict[str, Any] = {"name": "tabular-parser", "version": "test"}
    if version is not None:
        service["statements_version"] = version
    return {
        "schema_version": "2.0",
        "job_id": "6f1c1f3e-0000-4000-8000-000000000001",
        "file_id": "6f1c1f3e-0000-4000-8000-000000000002",
        "status": "needs_check" if any(d["status"] != "done" for d in documents) else "done",
        "service": service,
        "group_schema": group,
        "documents": documents,
        "metrics": {"duration_ms": 0, "warnings": []},
    }


@pytest.mark.parametrize("fmt", sorted(WRITERS))
def test_a_workbook_keeps_the_tables_in_sheet_order(fmt: str) -> None:
    """[two ОСВ по счету on «Счета», a balance, one ОСВ on «Январь»]: four documents in that
    order, each ОСВ with its own locator; group_schema "mixed"; the result file is valid."""
    first, second = _by_account_62(), _by_account_60()
    stacked = stack([first, second], sheet_name=SHEET)
    january = stack(
        [osv_sheet(GENERAL_ROWS, GENERAL_TOTAL, sheet_name="Январь")], sheet_name="Январь"
    )
    data = WRITERS[fmt]([_spec(stacked), onec_balance(), _spec(january)])

    recognition = recognize_bytes(data)

    documents = recognition.documents
    assert [(d["document_type"], _sheet(d)) for d in documents] == [
        ("OSV", SHEET),
        ("OSV", SHEET),
        ("BALANCE", "Бухгалтерский баланс"),
        ("OSV", "Январь"),
    ]
    assert [d["header"].get("account") for d in documents if d["document_type"] == "OSV"] == [
        "62.01",
        "60.01",
        None,
    ]
    assert [d["locator"]["range"] for d in documents[:2]] == [
        _table_range(first, 0, first.total),
        _table_range(second, stacked.offsets[1], second.total),
    ]
    assert [len(d["rows"]) for d in documents[:2]] == [
        len(BY_ACCOUNT_ROWS) + 1,
        len(BY_ACCOUNT_60_ROWS) + 1,
    ]
    assert recognition.group_schema == "mixed"
    assert recognition.warnings == []
    result = _result_file(documents, recognition.group_schema, recognition.statements_version)
    assert validate(Kind.RESULT, result) == []


@pytest.mark.parametrize("fmt", ["XLSX", "XLS"])
def test_a_workbook_of_one_stacked_sheet_is_osv(fmt: str) -> None:
    """One sheet of two ОСВ and nothing else: two documents, group_schema "osv", done."""
    stacked = stack([_by_account_62(), _by_account_60()], sheet_name=SHEET)

    recognition = recognize_bytes(WRITERS[fmt]([_spec(stacked)]))

    assert [d["header"]["account"] for d in recognition.documents] == ["62.01", "60.01"]
    assert [d["checks"]["failed"] for d in recognition.documents] == [[], []]
    assert recognition.group_schema == "osv"
    assert recognition.status == "done"


def _sheet(document: dict[str, Any]) -> str:
    locator = document["locator"]
    first = locator[0] if isinstance(locator, list) else locator
    return str(first["sheet"])
