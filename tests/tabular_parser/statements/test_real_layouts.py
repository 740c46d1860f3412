"""Statement tables as real exports draw them (issue 15 items 1, 4, 5, 7), written as real files.

Codes come only from a code column, a notes column is a column, a two-level header gives one
column per value column, neighbouring cells are never glued into one number, and the header
fields these forms print without the 1C «Коды» block are read.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from decimal import Decimal

import pytest

from services.excel.model import Sheet
from services.excel.values import format_amount, parse_amount
from services.tabular_parser.statements import StatementsResult, recognize_statements
from services.tabular_parser.statements._table import locate_table
from tests.builders import CellInput, SheetSpec
from tests.builders import statement_layouts as layouts

from . import _forms as f
from ._helpers import Json, amounts, codes, only

FORMATS = ("XLSX", "XLS")


def _recognize(spec: SheetSpec, fmt: str) -> tuple[StatementsResult, Sheet]:
    sheets = f.read_back([spec], fmt)
    return recognize_statements(sheets), sheets[0]


def _assert_values_are_their_cells(document: Json, sheet: Sheet) -> None:
    """Every emitted amount equals the number in its source cell (row of the line, column)."""
    for item in document["lines"]:
        for value in item["values"]:
            if value["amount"] is None:
                continue
            cell = parse_amount(sheet.cell(item["row_index"], value["column_index"]))
            assert cell is not None and format_amount(cell) == value["amount"], (item, value)


@pytest.mark.parametrize("fmt", FORMATS)
def test_notes_column_header_starts_no_disclosure_and_the_balance_keeps_its_lines(
    fmt: str,
) -> None:
    """«Пояснения к строкам» heads a column: one BALANCE with its lines, no DISCLOSURE, and the
    note numbers (5, 11, 18 …) are no amounts — every value sits in a dated column."""
    result, sheet = _recognize(layouts.nfo_balance(), fmt)
    assert [d["document_type"] for d in result.documents] == ["BALANCE"]
    document = result.documents[0]
    names = [item["line_name"] for item in document["lines"]]
    expected = [n for _, n, *_ in layouts.NFO_BALANCE_ROWS + layouts.NFO_LIABILITY_ROWS]
    assert names == expected
    assert [c["column_index"] for c in document["columns"]] == [3, 4]
    assert {v["column_index"] for item in document["lines"] for v in item["values"]} == {3, 4}
    _assert_values_are_their_cells(document, sheet)


@pytest.mark.parametrize("fmt", FORMATS)
def test_amounts_that_are_catalogue_codes_stay_amounts(fmt: str) -> None:
    """1600, 2110 and 13102 printed as amounts are amounts: no line takes a printed code from
    a value column, and the form's own numbers 1…7 are no codes either."""
    result, _ = _recognize(layouts.nfo_balance(), fmt)
    document = only(result, "BALANCE")
    assert all(item["line_code_text"] is None for item in document["lines"])
    loans = next(i for i in document["lines"] if i["line_name"].startswith("Займы"))
    assert [v["amount"] for v in loans["values"]] == ["1600", "2110"]
    other = next(i for i in document["lines"] if i["line_name"] == "Прочие активы")
    assert [v["amount"] for v in other["values"]] == ["13102", "214370.76"]


@pytest.mark.parametrize(
    ("fmt", "merged"), [("XLSX", True), ("XLS", True), ("XLSX", False), ("XLS", False)]
)
def test_two_level_header_gives_one_column_per_value_column_with_its_period(
    fmt: str, merged: bool
) -> None:
    """«Данные за квартал» / «Данные нарастающим итогом» × current / previous: four columns,
    each labelled with its group (quarter or year-to-date) and dated; the notes column none.
    Without merged cells a group header reaches to the next header cell of its row."""
    spec = layouts.nfo_income()
    if not merged:
        spec = dataclasses.replace(spec, merged=[])
    result, _ = _recognize(spec, fmt)
    document = only(result, "INCOME")
    columns = [
        (c["column_index"], c["label"], c["period_date"], c["period_kind"])
        for c in document["columns"]
    ]
    (quarter, q_now, q_before), (ytd, y_now, y_before) = layouts.NFO_INCOME_COLUMNS
    assert columns == [
        (3, f"{quarter} {q_now}", "2019-06-30", "relative:current"),
        (4, f"{quarter} {q_before}", "2018-06-30", "relative:prev_period"),
        (5, f"{ytd} {y_now}", "2019-06-30", "relative:current"),
        (6, f"{ytd} {y_before}", "2018-06-30", "relative:prev_period"),
    ]


@pytest.mark.parametrize("fmt", FORMATS)
def test_neighbouring_cells_are_never_glued_into_one_number(fmt: str) -> None:
    """−13102 | 0 | 13102 | 0 stay four values (never −131020), each in its own column, and no
    previous-period figure lands in a current column."""
    result, sheet = _recognize(layouts.nfo_income(), fmt)
    document = only(result, "INCOME")
    by_name = {item["line_name"]: item for item in document["lines"]}
    for _, name, _note, *figures in layouts.NFO_INCOME_ROWS:
        values = by_name[name]["values"]
        assert [v["column_index"] for v in values] == [3, 4, 5, 6]
        assert [v["amount"] for v in values] == [format_amount(Decimal(repr(x))) for x in figures]
    texts = [v["text"] or "" for item in document["lines"] for v in item["values"]]
    assert not any("131020" in t or "13265425" in t for t in texts)
    _assert_values_are_their_cells(document, sheet)


def _one_header_over_two_cells(first: CellInput, second: CellInput) -> Json:
    """The coded balance with «На 31 декабря 2024 г.» merged over C:D and the first line
    printing ``first`` | ``second`` under it."""
    spec = layouts.coded_balance("Код")
    rows = [[*list(r), None] for r in spec.rows]
    rows[4] = [*rows[4][:3], None, rows[4][3]]
    for r in range(5, 9):
        rows[r] = [*rows[r][:2], first if r == 5 else rows[r][2], second, rows[r][3]]
    sheet = f.to_sheet(SheetSpec("Баланс", rows, [(4, 2, 4, 3)]))
    return only(recognize_statements([sheet]), "BALANCE")


@pytest.mark.parametrize(
    ("first", "second", "text"),
    [
        (Decimal(13896), Decimal(7), "13896 7"),  # two numbers
        ("343 777,13", "265 425,66", "343 777,13 265 425,66"),  # two amounts as text
        ("1 234", Decimal(567), "1 234 567"),  # text and number
    ],
)
def test_two_figures_in_one_columns_cells_are_left_for_review(
    first: CellInput, second: CellInput, text: str
) -> None:
    """Where one value column's cells hold two figures (a header merged over two columns with
    no sub-headers), the value is unreadable and needs review — never the two glued."""
    document = _one_header_over_two_cells(first, second)
    value = document["lines"][0]["values"][0]
    assert (value["amount"], value["needs_review"], value["text"]) == (None, True, text)
    assert document["status"] == "needs_check"


def test_a_footnote_number_beside_a_bracketed_amount_is_one_value() -> None:
    """«(29 390)» | «5»: the amount and its footnote, one value −29390 with the note cut."""
    value = _one_header_over_two_cells("(29 390)", "5")["lines"][0]["values"][0]
    assert (value["amount"], value["needs_review"]) == ("-29390", False)


@pytest.mark.parametrize(
    ("code_header", "fmt"),
    [("Код", "XLSX"), ("Код строки", "XLS"), (None, "XLSX"), (None, "XLS")],
)
def test_a_code_column_gives_codes_with_or_without_its_header(
    code_header: str | None, fmt: str
) -> None:
    """A «Код» column, or a header-less column left of the values whose cells are all codes,
    gives the line codes; the amounts 2110, 1600, 1230, 1150 beside them stay amounts."""
    result, sheet = _recognize(layouts.coded_balance(code_header), fmt)
    document = only(result, "BALANCE")
    assert codes(document) == [code for code, *_ in layouts.CODED_LINES]
    assert amounts(document, "1230") == ["2110", "1600"]
    assert amounts(document, "1250") == ["1230", "1150"]
    _assert_values_are_their_cells(document, sheet)


def test_a_column_headed_otherwise_is_no_code_column() -> None:
    """Catalogue-looking numbers under another header («Б/сч», a bank's balance accounts) are
    no printed line codes: no line carries a code text, codes come only from names."""
    document = only(recognize_statements([f.to_sheet(layouts.coded_balance("Б/сч"))]), "BALANCE")
    assert all(item["line_code_text"] is None for item in document["lines"])
    assert all(item["line_code_confidence"] in (None, 90.0) for item in document["lines"])


def test_integers_in_an_amount_column_of_a_ledger_are_no_code_column() -> None:
    """A trial-balance shaped table (account | opening | turnover | closing) whose amounts
    include 13102 and 2110 has no code column: most of those columns' cells are other numbers."""
    header = ["Счет", "Входящие остатки", "Обороты-дебет", "Обороты-кредит", "Исходящие остатки"]
    body = [
        ["205.01", 320521.16, 21927091.77, 21986131.84, 261481.09],
        ["603.12", 13102.0, 0.0, 0.0, 13102.0],
        ["717.02", 28237.0, 4856.0, 0.0, 33093.0],
        ["719.02", 13102.0, 2110.0, 0.0, 15212.0],
        ["Итого", 374962.16, 21934057.77, 21986131.84, 322888.09],
    ]
    sheet = Sheet("TDSheet", [header, *body])  # type: ignore[list-item]
    layout = locate_table(sheet, 0, len(sheet.rows))
    assert layout is None or layout.code_col is None
    result = recognize_statements([sheet])  # three 13102s are no balance lines either
    assert (result.documents, result.other_sheets) == ([], ["TDSheet"])


# header fields ---------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", FORMATS)
def test_header_fields_printed_without_a_codes_block(fmt: str) -> None:
    """ОКПО under its «по ОКПО» header (not the ОГРН beside it), the name over its caption,
    «(руб.)» alone, the ОКУД of a 0420002 form, the date of the title and the postal address."""
    result, _ = _recognize(layouts.nfo_balance(), fmt)
    header = only(result, "BALANCE")["header"]
    assert header["okpo"] == layouts.NFO_OKPO
    assert layouts.NFO_OGRN not in str(header)
    assert header["organization_name"] == layouts.NFO_NAME
    assert (header["units"], header["units_text"], header["okei"]) == ("руб.", "(руб.)", "383")
    assert header["okud"] == "0420002"
    assert header["report_date"] == "2019-06-30"
    assert header["address"] == "344082, г. Ростов-на-Дону, Братский пер., д. 56"
    assert header["needs_review_fields"] == []


@pytest.mark.parametrize(
    ("printed", "units"),
    [
        ("(руб.)", "руб."),
        ("тыс. руб.", "тыс. руб."),
        ("(в тыс. рублей)", "тыс. руб."),
        ("в миллионах рублей", "млн. руб."),
        ("в миллионах", "млн. руб."),
    ],
)
def test_units_printed_alone_in_a_cell(printed: str, units: str) -> None:
    """Units a form prints in a cell of their own are the document's units."""
    spec = f.with_cell(
        layouts.nfo_balance(), *f.find_cell(layouts.nfo_balance(), "(руб.)"), printed
    )
    header = only(recognize_statements([f.to_sheet(spec)]), "BALANCE")["header"]
    assert (header["units"], header["units_text"]) == (units, printed)


def test_units_among_a_tables_column_headers_are_no_document_units() -> None:
    """«руб. | вал. | итого» sub-column headers are columns, not the units of the document."""
    spec = layouts.nfo_balance()
    row, col = f.find_cell(spec, "(руб.)")
    spec = f.with_cell(f.with_cell(spec, row, col, None), row, 1, "руб.")
    spec = f.with_cell(f.with_cell(spec, row, 2, "вал."), row, 3, "итого")
    header = only(recognize_statements([f.to_sheet(spec)]), "BALANCE")["header"]
    assert header["units"] is None


def test_a_missing_name_over_its_caption_takes_no_other_text() -> None:
    """With the name row empty, the title date above the caption is not taken for a name."""
    spec = layouts.nfo_balance()
    row, col = f.find_cell(spec, layouts.NFO_NAME)
    spec = f.with_cell(f.with_cell(spec, row, col, None), row - 1, col, "за 2019 г.")
    header = only(recognize_statements([f.to_sheet(spec)]), "BALANCE")["header"]
    assert header["organization_name"] is None


def test_report_date_of_a_period_title_is_its_end() -> None:
    """«за период с 01.01.2024 по 31.12.2024» dates the report at the period's end."""
    spec = f.with_cell(layouts.coded_balance("Код"), 1, 0, "за период с 01.01.2024 по 31.12.2024")
    header = only(recognize_statements([f.to_sheet(spec)]), "BALANCE")["header"]
    assert header["report_date"] == dt.date(2024, 12, 31).isoformat()


def test_a_bare_okud_label_gives_the_code_beside_it() -> None:
    """«ОКУД | 0420002» without «Форма по»: the ОКУД of any form is read from the cell beside."""
    spec = layouts.nfo_balance()
    row, col = f.find_cell(spec, "Код формы по ОКУД: 0420002")
    spec = f.with_cell(f.with_cell(spec, row, col, "ОКУД"), row, col + 1, "0420002")
    header = only(recognize_statements([f.to_sheet(spec)]), "BALANCE")["header"]
    assert (header["okud"], header["okud_confidence"]) == ("0420002", 100)


def test_number_labels_are_one_column_each() -> None:
    """Column labels «6» | «12» (months of a legacy form) are two labels, not one label printed
    over two cells, so each number stays in its own column."""
    spec = f.with_cell(f.with_cell(layouts.coded_balance("Код"), 4, 2, "6"), 4, 3, 12.0)
    document = only(recognize_statements([f.to_sheet(spec)]), "BALANCE")
    assert [(c["column_index"], c["label"]) for c in document["columns"]] == [(2, "6"), (3, "12")]
    assert amounts(document, "1230") == ["2110", "1600"]


@pytest.mark.parametrize(
    ("label", "printed"),
    [("ИНН/КПП", f"{f.ORG_INN}/772801001"), (f"ИНН/КПП {f.ORG_INN}/772801001", None)],
)
def test_inn_printed_with_its_kpp(label: str, printed: str | None) -> None:
    """«ИНН/КПП 7728168971/772801001», beside the label or in it: the ИНН is the 10 digits."""
    spec = f.with_cell(f.with_cell(layouts.coded_balance("Код"), 3, 0, label), 3, 1, printed)
    header = only(recognize_statements([f.to_sheet(spec)]), "BALANCE")["header"]
    assert (header["inn"], header["inn_confidence"]) == (f.ORG_INN, 100)


def test_codes_under_a_merged_name_header_are_a_code_column() -> None:
    """«Наименование показателя» merged over A:B with the codes in B: the name header is no
    other header, so column B is still the code column."""
    spec = dataclasses.replace(layouts.coded_balance(None), merged=[(4, 0, 4, 1)])
    document = only(recognize_statements([f.to_sheet(spec)]), "BALANCE")
    assert codes(document) == [code for code, *_ in layouts.CODED_LINES]
    assert all(item["line_code_confidence"] == 100 for item in document["lines"])
