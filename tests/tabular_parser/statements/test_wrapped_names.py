"""Line names wrapped over several rows are joined to their line; headings are not.

Each case prints a fixture form with one name broken over rows and compares the recognised
document with the same form printed unbroken: the lines (codes, names, statuses, values) must
be the same, so the name is whole again, the fragment rows are no lines of their own, and no
code or amount moved.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest

from services.excel.model import Sheet
from services.tabular_parser.statements import recognize_statements
from tests.builders import CellInput, SheetSpec, merge_bounds

from . import _forms as f
from ._helpers import line, only

Json = dict[str, Any]
_POSITION = ("row_index", "ref", "parent_ref")


def _name_col(spec: SheetSpec, row: int) -> int:
    return next(
        c
        for c, v in enumerate(spec.rows[row])
        if isinstance(v, str) and sum(ch.isalpha() for ch in v) >= 2
    )


def _insert(spec: SheetSpec, at: int, col: int, text: str) -> SheetSpec:
    """``spec`` with a row holding only ``text`` (at ``col``) inserted before row ``at``; merges
    below shift down, and the new row gets the merge its neighbour's name cell has."""
    width = len(spec.rows[min(at, len(spec.rows) - 1)])
    new_row: list[CellInput] = [None] * width
    new_row[col] = text
    rows = [list(r) for r in spec.rows]
    rows.insert(at, new_row)
    merged: list[tuple[int, int, int, int]] = []
    for m in spec.merged:
        top, left, bottom, right = merge_bounds(m)
        if top >= at:
            top, bottom = top + 1, bottom + 1
        merged.append((top, left, bottom, right))
    name_merge = next(
        (m for m in merged if m[0] == m[2] == at + 1 and m[1] == col and m[3] > col), None
    )
    if name_merge is not None:
        merged.append((at, col, at, name_merge[3]))
    return replace(spec, rows=rows, merged=merged)


def _wrap(
    spec: SheetSpec,
    code: str,
    own: str,
    *,
    above: Sequence[str] = (),
    below: Sequence[str] = (),
) -> SheetSpec:
    """``spec`` with the name of line ``code`` printed as ``own`` on the line's row, the rows
    ``above`` right above it and ``below`` right under it, each holding only its text."""
    row, _ = f.find_cell(spec, code)
    col = _name_col(spec, row)
    spec = f.with_cell(spec, row, col, own)
    for text in reversed(below):
        spec = _insert(spec, row + 1, col, text)
    for text in above:
        spec = _insert(spec, row, col, text)
        row += 1
    return spec


def _recognised(spec: SheetSpec | Sheet, document_type: str) -> Json:
    sheet = f.to_sheet(spec) if isinstance(spec, SheetSpec) else spec
    return only(recognize_statements([sheet]), document_type)


def _lines(document: Json) -> list[Json]:
    """The lines without where they sit (rows move when fragments are inserted)."""
    return [{k: v for k, v in item.items() if k not in _POSITION} for item in document["lines"]]


def _same_document(wrapped: Json, printed_whole: Json) -> None:
    assert _lines(wrapped) == _lines(printed_whole)
    assert wrapped["status"] == printed_whole["status"]
    assert [w["code"] for w in wrapped["warnings"]] == [
        w["code"] for w in printed_whole["warnings"]
    ]


@pytest.mark.parametrize(
    ("code", "above", "own", "whole"),
    [
        (
            "1220",
            ["Налог на добавленную стоимость по"],
            "приобретенным ценностям",
            "Налог на добавленную стоимость по приобретенным ценностям",
        ),
        (
            "1250",
            ["Денежные средства и денежные"],
            "эквиваленты",
            "Денежные средства и денежные эквиваленты",
        ),
        (
            "1310",
            ["Уставный капитал (складочный", "капитал, уставный фонд, вклады"],
            "товарищей)",
            "Уставный капитал (складочный капитал, уставный фонд, вклады товарищей)",
        ),
    ],
)
def test_name_begun_in_rows_above_the_code_is_joined(
    code: str, above: list[str], own: str, whole: str
) -> None:
    """The beginning of the name alone in the row(s) above the coded row: one line, whole name."""
    spec = f.onec_balance()
    doc = _recognised(_wrap(spec, code, own, above=above), "BALANCE")
    assert line(doc, code)["line_name"] == whole
    _same_document(doc, _recognised(spec, "BALANCE"))


@pytest.mark.parametrize(
    ("code", "own", "below", "whole"),
    [
        (
            "1370",
            "Нераспределенная прибыль",
            ["(непокрытый убыток)"],
            "Нераспределенная прибыль (непокрытый убыток)",
        ),
        (
            "1320",
            "Собственные акции, выкупленные у",
            ["акционеров"],
            "Собственные акции, выкупленные у акционеров",
        ),
    ],
)
def test_name_continued_in_the_row_below_the_code_is_joined(
    code: str, own: str, below: list[str], whole: str
) -> None:
    """Name start, code and values on one row, the rest of the name alone on the next."""
    spec = f.onec_balance()
    doc = _recognised(_wrap(spec, code, own, below=below), "BALANCE")
    assert line(doc, code)["line_name"] == whole
    _same_document(doc, _recognised(spec, "BALANCE"))


@pytest.mark.parametrize(
    ("code", "own", "above", "below"),
    [
        ("1110", "ные активы", ["Нематериаль-"], []),
        ("1180", "Отложенные нало-", [], ["говые активы"]),
    ],
)
def test_word_hyphenated_across_rows_is_joined_without_the_hyphen(
    code: str, own: str, above: list[str], below: list[str]
) -> None:
    """«Нематериаль-» + «ные активы» → «Нематериальные активы», above or below the code."""
    spec = f.onec_balance()
    doc = _recognised(_wrap(spec, code, own, above=above, below=below), "BALANCE")
    assert "-" not in line(doc, code)["line_name"]
    _same_document(doc, _recognised(spec, "BALANCE"))


def test_wrapped_name_read_back_from_a_real_xlsx() -> None:
    """The same join on a workbook written as XLSX and read by the project's reader."""
    spec = f.onec_balance()
    wrapped = _wrap(
        spec, "1220", "приобретенным ценностям", above=["Налог на добавленную стоимость по"]
    )
    (sheet,) = f.read_back([wrapped], "XLSX")
    (whole,) = f.read_back([spec], "XLSX")
    _same_document(_recognised(sheet, "BALANCE"), _recognised(whole, "BALANCE"))


def test_girbo_wrapped_name_keeps_its_footnote_cut() -> None:
    """ГИР БО export: merged name cells, code far right, the footnote on the continuation row:
    the name is whole and the footnote is still cut from the joined name."""
    spec = f.girbo_workbook()[1]
    doc = _recognised(_wrap(spec, "1230", "Дебиторская", below=["задолженность6"]), "BALANCE")
    assert line(doc, "1230")["line_name"] == "Дебиторская задолженность"
    assert any(
        w["code"] == "NAME_FOOTNOTE_REMOVED" and "задолженность6" in w["message"]
        for w in doc["warnings"]
    )
    _same_document(doc, _recognised(spec, "BALANCE"))


def test_codeless_form_matches_the_joined_name() -> None:
    """157n form without a «Код» column: the line is found by its whole name (1170), which
    neither half gives alone."""
    spec = f.codeless_157n()
    wrapped = _wrap(
        spec,
        "Нематериальные, финансовые и другие внеоборотные активы 6",
        "внеоборотные активы 6",
        above=["Нематериальные, финансовые и другие"],
    )
    doc = _recognised(wrapped, "BALANCE")
    assert (
        line(doc, "1170")["line_name"] == "Нематериальные, финансовые и другие внеоборотные активы"
    )
    _same_document(doc, _recognised(spec, "BALANCE"))


def _income_with_lower_case_2411() -> SheetSpec:
    """The 1C ОФР with 2411 named as the official form prints it under «в том числе:»."""
    spec = f.onec_income(detail=False)
    row, _ = f.find_cell(spec, "2411")
    return f.with_cell(spec, row, _name_col(spec, row), "текущий налог на прибыль")


@pytest.mark.parametrize(
    "heading",
    [
        "в том числе:",
        "в том числе",
        "из них",
        "Справочно",
        "Денежные средства, направленные:",
        "II. Налог на прибыль",
        "2. Налог на прибыль",
        "НАЛОГ НА ПРИБЫЛЬ",
    ],
)
def test_heading_above_a_lower_case_line_is_not_glued(heading: str) -> None:
    """A heading right above a line whose name reads on (lower case) stays out of the name."""
    spec = _income_with_lower_case_2411()
    row, _ = f.find_cell(spec, "2411")
    with_heading = _insert(spec, row, _name_col(spec, row), heading)
    doc = _recognised(with_heading, "INCOME")
    assert line(doc, "2411")["line_name"] == "текущий налог на прибыль"
    _same_document(doc, _recognised(spec, "INCOME"))


@pytest.mark.parametrize(
    ("heading", "before"),
    [
        ("Прочие доходы и расходы", "2320"),  # between 2200 and 2320, no cue either way
        ("Доходы и расходы по обычным видам деятельности", "2110"),  # right under the header
    ],
)
def test_heading_between_complete_lines_is_not_glued(heading: str, before: str) -> None:
    """A heading in ordinary case between two lines of their own joins neither."""
    spec = f.onec_income(detail=False)
    row, _ = f.find_cell(spec, before)
    doc = _recognised(_insert(spec, row, _name_col(spec, row), heading), "INCOME")
    assert all(heading not in (item["line_name"] or "") for item in doc["lines"])
    _same_document(doc, _recognised(spec, "INCOME"))


def test_section_headings_of_the_balance_are_not_glued() -> None:
    """«АКТИВ», «I. ВНЕОБОРОТНЫЕ АКТИВЫ» … «ПАССИВ» sit right next to coded lines in the 1C
    balance: every line keeps the name the fixture prints."""
    doc = _recognised(f.onec_balance(), "BALANCE")
    printed = {code: name for code, name, _ in [*f.BALANCE_ACTIVE, *f.BALANCE_PASSIVE]}
    assert {item["line_code"]: item["line_name"] for item in doc["lines"]} == printed
