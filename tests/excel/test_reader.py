"""Each format round-trips values, merged ranges and outline levels into the plain model."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence

import pytest

from services.excel import (
    CellRange,
    NotAWorkbook,
    UnreadableWorkbook,
    Workbook,
    detect_format,
    load_workbook,
)
from tests.builders import (
    SheetSpec,
    formula_without_value_xlsx,
    rename_shared_strings,
    write_xls,
    write_xlsb,
    write_xlsx,
)

Writer = Callable[[Sequence[SheetSpec]], bytes]
WRITERS: dict[str, Writer] = {"XLSX": write_xlsx, "XLS": write_xls, "XLSB": write_xlsb}

OSV = SheetSpec(
    "ОСВ по счёту 60",
    rows=[
        ["Оборотно-сальдовая ведомость", None, None, None],
        [],
        ["Счёт", "Дебет", "Кредит", None],
        ["60", 1234.5, 0.1, None],
        ["60.01", 1000, None, "ООО «Ромашка»"],
        [None, None, None, None, "E6"],
        ["Итого", -3.25, 456386485.5, True],
    ],
    merged=["A1:D1", (2, 1, 2, 2)],
    outline_levels={3: 1, 4: 2, 5: 2},
    bold_rows={2, 6},
)


@pytest.mark.parametrize("fmt", list(WRITERS))
def test_each_format_round_trips_values_at_absolute_positions(fmt: str) -> None:
    """rows[r][c] is Excel row r+1, column c+1; empty cells are "" (cell() gives None);
    trailing empties trimmed."""
    book = load_workbook(WRITERS[fmt]([OSV]))
    assert book.format == fmt
    sheet = book.sheets[0]
    assert sheet.name == OSV.name
    assert sheet.cell(0, 0) == "Оборотно-сальдовая ведомость"
    assert sheet.rows[1] == []
    assert sheet.rows[2][:2] == ["Счёт", "Дебет"]  # C3 is inside the B3:C3 merge
    assert sheet.rows[3] == ["60", 1234.5, 0.1]
    assert sheet.rows[4] == ["60.01", 1000, "", "ООО «Ромашка»"]
    assert sheet.rows[5] == ["", "", "", "", "E6"]
    assert sheet.cell(4, 2) is None and sheet.cell(5, 0) is None and sheet.cell(5, 9) is None
    assert sheet.rows[6] == ["Итого", -3.25, 456386485.5, True]
    assert len(sheet.rows) == 7


@pytest.mark.parametrize("fmt", list(WRITERS))
def test_each_format_round_trips_merged_ranges(fmt: str) -> None:
    """Merged ranges come back as 0-based inclusive rectangles."""
    sheet = load_workbook(WRITERS[fmt]([OSV])).sheets[0]
    assert sorted(sheet.merged, key=lambda r: (r.first_row, r.first_col)) == [
        CellRange(0, 0, 0, 3),
        CellRange(2, 1, 2, 2),
    ]


@pytest.mark.parametrize("fmt", list(WRITERS))
def test_each_format_round_trips_outline_levels(fmt: str) -> None:
    """Only rows above level 0 are listed, with their level."""
    sheet = load_workbook(WRITERS[fmt]([OSV])).sheets[0]
    assert sheet.outline_levels == {3: 1, 4: 2, 5: 2}


@pytest.mark.parametrize("fmt", list(WRITERS))
def test_each_format_reports_bold_rows(fmt: str) -> None:
    """Rows holding a bold cell are reported (XLSB: BrtFont weight via the cell's XF)."""
    sheet = load_workbook(WRITERS[fmt]([OSV])).sheets[0]
    assert sheet.bold_rows == {2, 6}


@pytest.mark.parametrize("fmt", list(WRITERS))
def test_sheet_order_names_and_hidden_flag_survive(fmt: str) -> None:
    """Several sheets keep their workbook order, names and visibility."""
    specs = [SheetSpec("Баланс", rows=[[1]]), SheetSpec("Скрытый", rows=[["x"]], hidden=True)]
    book = load_workbook(WRITERS[fmt](specs))
    assert [(s.name, s.hidden) for s in book.sheets] == [("Баланс", False), ("Скрытый", True)]


@pytest.mark.parametrize("fmt", list(WRITERS))
def test_a_sheet_starting_away_from_a1_keeps_absolute_positions(fmt: str) -> None:
    """Leading empty rows and columns are kept, so an A1 reference stays derivable."""
    spec = SheetSpec("S", rows=[[], [], [None, None, None, "D3"], [None, "B4"]])
    sheet = load_workbook(WRITERS[fmt]([spec])).sheets[0]
    assert sheet.rows == [[], [], ["", "", "", "D3"], ["", "B4"]]


def test_dates_come_back_as_dates() -> None:
    """A date-formatted XLSX cell is a datetime, not a serial number."""
    spec = SheetSpec("S", rows=[[dt.date(2024, 12, 31)]])
    value = load_workbook(write_xlsx([spec])).sheets[0].cell(0, 0)
    assert isinstance(value, dt.date) and (value.year, value.month, value.day) == (2024, 12, 31)


def test_capital_s_shared_strings_of_1c_opens() -> None:
    """`xl/SharedStrings.xml` (1C:УПП) opens, strings and outline levels included."""
    spec = SheetSpec("S", rows=[["Счёт", "Сальдо"], ["01", 5]], outline_levels={1: 1})
    data = rename_shared_strings(write_xlsx([spec]))
    book = load_workbook(data)
    assert book.sheets[0].rows == [["Счёт", "Сальдо"], ["01", 5]]
    assert book.sheets[0].outline_levels == {1: 1}


def test_formula_without_cached_value_is_flagged_not_evaluated() -> None:
    """B1 = A1*2 with no cached value: empty, listed in formula_cells."""
    sheet = load_workbook(formula_without_value_xlsx()).sheets[0]
    assert sheet.formula_cells == {(0, 1)}
    assert sheet.cell(0, 1) is None and sheet.rows[0][1:] in ([], [""])
    assert sheet.cell(0, 0) == 2


@pytest.mark.parametrize(
    "data",
    [b"", b"plain text", b"%PDF-1.7\n", b"PK\x03\x04" + b"\x00" * 40, b"\xd0\xcf\x11\xe0" * 4],
)
def test_non_excel_bytes_are_not_a_workbook(data: bytes) -> None:
    """Anything without an Excel signature is NotAWorkbook (→ UNSUPPORTED_FORMAT)."""
    assert detect_format(data) is None
    with pytest.raises(NotAWorkbook):
        load_workbook(data)


def test_a_zip_that_is_not_a_workbook_is_not_a_workbook() -> None:
    """A DOCX-like ZIP without xl/workbook.* has no Excel signature."""
    import io
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", "<document/>")
    assert detect_format(out.getvalue()) is None


@pytest.mark.parametrize("fmt", list(WRITERS))
def test_signature_is_read_from_content(fmt: str) -> None:
    """Each writer's output is recognised as its own format."""
    assert detect_format(WRITERS[fmt]([OSV])) == fmt


@pytest.mark.parametrize("fmt", list(WRITERS))
def test_a_truncated_workbook_is_unreadable(fmt: str) -> None:
    """An Excel file cut in half keeps its signature and is UNREADABLE, not UNSUPPORTED."""
    data = WRITERS[fmt]([OSV])
    with pytest.raises(UnreadableWorkbook):
        load_workbook(data[: len(data) // 2])


def test_workbook_pickles_across_processes() -> None:
    """The model crosses the sandbox boundary: it survives pickling unchanged."""
    import pickle

    book = load_workbook(write_xlsx([OSV]))
    again = pickle.loads(pickle.dumps(book))
    assert isinstance(again, Workbook)
    assert again.sheets[0].rows == book.sheets[0].rows
    assert again.sheets[0].outline_levels == book.sheets[0].outline_levels
