"""A table of a stacked ОСВ sheet whose reading raises: the failure stays with that table.

No real file is known to make the recogniser raise (the hypothesis tests look for one), so
these tests put a test double in place of one reading step of `osv._recognize` (the search for
a header, the body reader, the checks) that raises on its n-th call and otherwise does the real
work. What they prove is what the recogniser does with such an error: the tables read before it
(and, when the failing table's end is known, after it) stay documents, exactly as read alone;
the failure is the file warning TABLE_PARSE_FAILED located at the failing table; a sheet of one
failing table gives exactly the sheet-level warning it always gave.
"""

from __future__ import annotations

import copy
import itertools
from typing import Any

import pytest

from services.contract import Kind, validate
from services.excel.model import CellRange
from services.tabular_parser.osv import _recognize, read_osv_sheet
from services.tabular_parser.recognizer import recognize_bytes
from tests.builders import spec_of, write_xlsx
from tests.tabular_parser.statements._forms import onec_balance

from ._builder import Built, Stacked, osv_sheet, stack
from ._fixtures import GENERAL_ROWS, GENERAL_TOTAL, by_account_60_sheet
from ._strict import recognize_osv

SHEET = "Счета"


class _Broken(RuntimeError):
    """The test double's error, so that nothing else can be mistaken for it."""


def _break(monkeypatch: pytest.MonkeyPatch, step: str, call: int) -> None:
    """Make `_recognize.<step>` raise `_Broken` on its `call`-th call (1-based) only."""
    real = getattr(_recognize, step)
    calls = itertools.count(1)

    def double(*args: Any, **kwargs: Any) -> Any:
        if next(calls) == call:
            msg = f"{step} broke"
            raise _Broken(msg)
        return real(*args, **kwargs)

    monkeypatch.setattr(_recognize, step, double)


def _general(title: str, name: str = SHEET) -> Built:
    return osv_sheet(GENERAL_ROWS, GENERAL_TOTAL, sheet_name=name, title=title)


def _by_account_60() -> Built:
    return by_account_60_sheet(SHEET)


def _three() -> tuple[list[Built], Stacked]:
    parts = [
        _general("Оборотно-сальдовая ведомость за Январь 2025 г."),
        _by_account_60(),
        _general("Оборотно-сальдовая ведомость за Март 2025 г."),
    ]
    return parts, stack(parts, sheet_name=SHEET)


def _alone(built: Built, offset: int = 0) -> dict[str, Any]:
    """The document of a part read alone on a sheet, as it reads `offset` rows lower."""
    sheet = copy.deepcopy(built.sheet)
    sheet.rows = [[] for _ in range(offset)] + sheet.rows
    sheet.outline_levels = {row + offset: level for row, level in sheet.outline_levels.items()}
    sheet.merged = [
        CellRange(m.first_row + offset, m.first_col, m.last_row + offset, m.last_col)
        for m in sheet.merged
    ]
    [result] = recognize_osv(sheet)
    return result.document


def _header(built: Built, offset: int) -> str:
    """The A1 range of a part's header rows on the stacked sheet."""
    first, last = built.header_row + offset, built.first_body_row - 1 + offset
    return CellRange(first, built.first_col, last, built.last_col).a1()


def _whole(built: Built, offset: int) -> str:
    """The A1 range of a part's table (header to Итого) on the stacked sheet."""
    return CellRange(
        built.header_row + offset, built.first_col, built.total + offset, built.last_col
    ).a1()


def test_a_failing_body_keeps_the_tables_above_and_stops_there(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The second table's body raises: the first table is its document as if alone; the
    failure is TABLE_PARSE_FAILED at the second table's header, saying that the rest was not
    read (its end is unknown, so the third table is not looked for)."""
    parts, stacked = _three()
    first = _alone(parts[0])
    _break(monkeypatch, "read_body", 2)

    found = read_osv_sheet(stacked.sheet)

    assert [result.document for result in found.results] == [first]
    [warning] = [failure.warning() for failure in found.failures]
    header = _header(parts[1], stacked.offsets[1])
    assert warning["code"] == "TABLE_PARSE_FAILED"
    assert warning["severity"] == "error"
    assert warning["locator"] == {"sheet": SHEET, "range": header}
    assert f"таблица ОСВ {header} не разобрана" in warning["message"]
    assert "таблицы ниже не читались" in warning["message"]
    assert warning["message"].endswith("_Broken: read_body broke")


def test_failing_checks_lose_only_that_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checks of the middle table raise after its body was read: its end is known, so the
    first and the third table are both documents as if alone, and the failure names the whole
    middle table's range without skipping the rest."""
    parts, stacked = _three()
    expected = [_alone(parts[0]), _alone(parts[2], stacked.offsets[2])]
    _break(monkeypatch, "run_checks", 2)

    found = read_osv_sheet(stacked.sheet)

    assert [result.document for result in found.results] == expected
    [warning] = [failure.warning() for failure in found.failures]
    middle = _whole(parts[1], stacked.offsets[1])
    assert warning["locator"] == {"sheet": SHEET, "range": middle}
    assert warning["message"] == (
        f"Лист «{SHEET}»: таблица ОСВ {middle} не разобрана: _Broken: run_checks broke"
    )


def test_a_failing_first_table_of_several_keeps_the_next(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first table's checks raise: the tables below are still documents, the first one is
    the warning (so a failure stays with its table whichever table it is)."""
    parts, stacked = _three()
    expected = [
        _alone(part, offset) for part, offset in zip(parts[1:], stacked.offsets[1:], strict=True)
    ]
    _break(monkeypatch, "run_checks", 1)

    found = read_osv_sheet(stacked.sheet)

    assert [result.document for result in found.results] == expected
    assert [f.warning()["locator"] for f in found.failures] == [
        {"sheet": SHEET, "range": _whole(parts[0], 0)}
    ]


def test_a_failing_search_for_the_next_table_keeps_the_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The search for the second header raises: the first table stays, the warning points at
    the first row searched (the row after the first table) and says the rest was not read."""
    parts, stacked = _three()
    first = _alone(parts[0])
    _break(monkeypatch, "find_layout", 2)

    found = read_osv_sheet(stacked.sheet)

    assert [result.document for result in found.results] == [first]
    [warning] = [failure.warning() for failure in found.failures]
    after = parts[0].total + 1
    assert warning["locator"] == {"sheet": SHEET, "range": f"A{after + 1}"}
    assert f"поиск таблицы ОСВ со строки {after + 1} не удался" in warning["message"]
    assert "таблицы ниже не читались" in warning["message"]


def test_a_failing_document_build_loses_only_that_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """Building the second table's document raises (after the rows are read): the other two
    are documents, the failure names the second table's range."""
    parts, stacked = _three()
    expected = [_alone(parts[0]), _alone(parts[2], stacked.offsets[2])]
    _break(monkeypatch, "_document", 2)

    found = read_osv_sheet(stacked.sheet, release_rows=True)

    assert [result.document for result in found.results] == expected
    assert [f.warning()["locator"]["range"] for f in found.failures] == [
        _whole(parts[1], stacked.offsets[1])
    ]


# --- through a workbook file -------------------------------------------------------------------


def _result_file(recognition: Any) -> dict[str, Any]:
    return {
        "schema_version": "2.0",
        "job_id": "6f1c1f3e-0000-4000-8000-000000000001",
        "file_id": "6f1c1f3e-0000-4000-8000-000000000002",
        "status": recognition.status,
        "service": {"name": "tabular-parser", "version": "test", "statements_version": "x"},
        "group_schema": recognition.group_schema,
        "documents": recognition.documents,
        "metrics": {"duration_ms": 0, "warnings": recognition.warnings},
    }


def test_a_workbook_keeps_the_first_table_and_the_other_sheets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """[«Счета» with two ОСВ, a balance, «Март» with one ОСВ]; the second table of «Счета»
    raises: the first table of «Счета», the balance and «Март» are documents in sheet order,
    the one file warning is TABLE_PARSE_FAILED at the failing table's header, the result file is valid
    and needs_check."""
    first = _general("Оборотно-сальдовая ведомость за Январь 2025 г.")
    second = _by_account_60()
    stacked = stack([first, second], sheet_name=SHEET)
    march = _general("Оборотно-сальдовая ведомость за Март 2025 г.", name="Март")
    data = write_xlsx([spec_of(stacked.sheet), onec_balance(), spec_of(march.sheet)])
    intact = recognize_bytes(data)
    _break(monkeypatch, "read_body", 2)  # 1: «Счета» first table, 2: its second, 3: «Март»

    recognition = recognize_bytes(data)

    assert recognition.documents == [intact.documents[i] for i in (0, 2, 3)]
    assert [(d["document_type"], d["locator"]) for d in recognition.documents] == [
        ("OSV", {"sheet": SHEET, "range": _whole(first, 0)}),
        ("BALANCE", intact.documents[2]["locator"]),
        ("OSV", intact.documents[3]["locator"]),
    ]
    [warning] = recognition.warnings
    assert warning["code"] == "TABLE_PARSE_FAILED"
    assert warning["locator"] == {"sheet": SHEET, "range": _header(second, stacked.offsets[1])}
    assert recognition.status == "needs_check"
    assert validate(Kind.RESULT, _result_file(recognition)) == []


@pytest.mark.parametrize("step", ["find_layout", "read_body", "run_checks", "_document"])
def test_a_one_table_sheet_that_fails_is_the_sheet_warning_as_before(
    monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    """The only table of «ОСВ» raises at any step: no document from it, the sheet-level
    TABLE_PARSE_FAILED with only the sheet as locator (no range), and the balance on the next
    sheet is still read."""
    data = write_xlsx(
        [spec_of(_general("Оборотно-сальдовая ведомость за 2024 г.", "ОСВ").sheet), onec_balance()]
    )
    _break(monkeypatch, step, 1)

    recognition = recognize_bytes(data)

    assert [d["document_type"] for d in recognition.documents] == ["BALANCE"]
    assert recognition.warnings == [
        {
            "code": "TABLE_PARSE_FAILED",
            "severity": "error",
            "message": f"Лист «ОСВ» не разобран: _Broken: {step} broke",
            "locator": {"sheet": "ОСВ"},
        }
    ]
