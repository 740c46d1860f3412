"""One stray cell far past a sheet's table does not sink the workbook; real oversize still does."""

from __future__ import annotations

import pytest

from services.excel import LimitExceeded, Limits, load_workbook
from services.runtime.recognizer import Recognition
from services.tabular_parser.recognizer import recognize_bytes
from tests.builders import (
    CellInput,
    SheetSpec,
    far_cell_xlsx,
    with_stray_cells,
    write_xlsb,
    write_xlsx,
)
from tests.tabular_parser.statements._forms import onec_balance

SMALL = Limits(max_rows=1_000, max_cells=100_000)
_LINES: list[list[CellInput]] = [[f"{n:02d}", n * 100.0] for n in range(1, 40)]
TABLE = SheetSpec("ОСВ", [["Счет", "Сальдо"], *_LINES])


def _amounts(result: Recognition) -> list[list[str | None]]:
    return [[v["amount"] for v in line["values"]] for line in result.documents[0]["lines"]]


def test_a_space_at_a1000500_of_a_valid_statement_is_ignored_with_a_warning() -> None:
    """The row cap counted the far corner; now the statement reads as without the space."""
    clean = write_xlsx([onec_balance()])
    stray = with_stray_cells(clean, {"A1000500": " "})
    expected, got = recognize_bytes(clean), recognize_bytes(stray)
    assert _amounts(got) == _amounts(expected)
    assert got.documents[0]["status"] == expected.documents[0]["status"] == "done"
    [warning] = [w for w in got.warnings if w["code"] == "CELLS_IGNORED"]
    assert warning["locator"] == {"sheet": "Бухгалтерский баланс", "range": "A1000500"}
    assert "A1000500" in warning["message"]


def test_the_rest_of_the_sheet_reads_exactly_as_without_the_stray() -> None:
    clean = load_workbook(write_xlsx([TABLE]), SMALL).sheets[0]
    stray = load_workbook(with_stray_cells(write_xlsx([TABLE]), {"A5000": "x"}), SMALL).sheets[0]
    assert stray.rows == clean.rows
    assert stray.ignored_cells == ["A5000"]
    assert clean.ignored_cells == []


def test_a_far_column_stray_is_ignored_when_it_breaks_the_area_cap() -> None:
    """`x` at XFD20: 40 rows × 16384 columns is over a 100,000-cell rectangle."""
    data = with_stray_cells(write_xlsx([TABLE]), {"XFD20": "x"})
    sheet = load_workbook(data, SMALL).sheets[0]
    assert sheet.ignored_cells == ["XFD20"]
    assert sheet.rows[19] == ["19", 1900.0]


def test_several_strays_past_the_table_are_all_ignored() -> None:
    data = with_stray_cells(write_xlsx([TABLE]), {"A3000": "a", "C4000": "b", "A9000": "c"})
    assert load_workbook(data, SMALL).sheets[0].ignored_cells == ["A3000", "C4000", "A9000"]


def test_many_cells_past_the_gap_are_a_real_oversize_sheet_and_refused() -> None:
    """Seventeen cells are more than strays: the row cap refuses the file as before."""
    far = {f"A{5000 + n}": "x" for n in range(17)}
    with pytest.raises(LimitExceeded) as caught:
        load_workbook(with_stray_cells(write_xlsx([TABLE]), far), SMALL)
    assert caught.value.limit == "max_rows"


def test_a_table_that_really_reaches_past_the_cap_is_refused() -> None:
    """No gap: 1,200 used rows against a 1,000-row cap."""
    rows: list[list[CellInput]] = [[f"{n}", float(n)] for n in range(1_200)]
    with pytest.raises(LimitExceeded) as caught:
        load_workbook(write_xlsx([SheetSpec("Лист1", rows)]), SMALL)
    assert caught.value.limit == "max_rows"


@pytest.mark.parametrize("ref", ["XFD1048576", "XFD900000"])
def test_a_lone_cell_and_a_far_corner_are_no_table_with_a_stray(ref: str) -> None:
    """The sparse bomb (A1 and a far cell) keeps its refusal: one cell is no table."""
    with pytest.raises(LimitExceeded):
        load_workbook(far_cell_xlsx(ref))


def test_a_far_cell_on_a_line_row_is_not_glued_to_its_value() -> None:
    """`x` at XFD36, within the caps, on the line «Уставный капитал» 10000: the last value
    column ends at the table's edge, so every amount reads as without the stray (not «10000x»)."""
    clean = write_xlsx([onec_balance()])
    stray = with_stray_cells(clean, {"XFD36": "x"})  # row 36: «Уставный капитал» 10000
    assert _amounts(recognize_bytes(stray)) == _amounts(recognize_bytes(clean))


def _with_far_cell(spec: SheetSpec, row: int, col: int, text: str) -> SheetSpec:
    rows = [list(line) for line in spec.rows] + [[] for _ in range(row + 1 - len(spec.rows))]
    rows[row] = rows[row] + [None] * (col - len(rows[row])) + [text]
    return SheetSpec(spec.name, rows)


@pytest.mark.parametrize(("row", "col", "ref"), [(4999, 0, "A5000"), (19, 16383, "XFD20")])
def test_an_xlsb_stray_is_ignored_the_same_way(row: int, col: int, ref: str) -> None:
    clean = load_workbook(write_xlsb([TABLE]), SMALL).sheets[0]
    sheet = load_workbook(write_xlsb([_with_far_cell(TABLE, row, col, "x")]), SMALL).sheets[0]
    assert sheet.ignored_cells == [ref]
    assert sheet.rows == clean.rows


def test_many_xlsb_cells_past_the_gap_are_refused() -> None:
    spec = TABLE
    for n in range(17):
        spec = _with_far_cell(spec, 5000 + n, 0, "x")
    with pytest.raises(LimitExceeded) as caught:
        load_workbook(write_xlsb([spec]), SMALL)
    assert caught.value.limit == "max_rows"
