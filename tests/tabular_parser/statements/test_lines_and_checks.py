"""Line statuses, value readings, relations and the document status."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from services.excel.model import Sheet
from services.tabular_parser.statements import recognize_statements
from tests.builders import CellInput

from . import _forms as f
from ._helpers import line, only


def _balance_with(value: CellInput, *, code: str, column: int = 3) -> dict[str, Any]:
    spec = f.onec_balance()
    row, col = f.find_cell(spec, code)
    changed = f.with_cell(spec, row, col + (column - 2), value)
    return only(recognize_statements([f.to_sheet(changed)]), "BALANCE")


def test_unreadable_code_keeps_its_text_and_needs_check() -> None:
    """«21I0» in the code column: line_status unreadable, line_code null, raw text kept."""
    spec = f.onec_income()
    row, col = f.find_cell(spec, "2110")
    doc = only(recognize_statements([f.to_sheet(f.with_cell(spec, row, col, "21I0"))]), "INCOME")
    bad = next(item for item in doc["lines"] if item["row_index"] == row)
    assert (bad["line_status"], bad["line_code"], bad["line_code_text"]) == (
        "unreadable", None, "21I0",
    )  # fmt: skip
    assert bad["needs_review"] is True
    assert doc["status"] == "needs_check"
    assert {"code": "LINE_CODE_UNREADABLE", "line_refs": [bad["ref"]]}.items() <= {
        **next(w for w in doc["warnings"] if w["code"] == "LINE_CODE_UNREADABLE"),
    }.items()
    detail = doc["lines"][doc["lines"].index(bad) + 1]
    assert (detail["line_status"], detail["parent_ref"]) == ("detail", bad["ref"])


def test_broken_hard_relation_makes_the_document_needs_check() -> None:
    """A wrong 1200 fails 1200 = Σ and 1600 = 1100 + 1200 in that column."""
    doc = _balance_with(52999, code="1200")
    failed = {(x["relation"], x["column_index"]) for x in doc["checks"]["relations_failed"]}
    assert ("1200=1210+1215+1220+1230+1240+1250+1260", 3) in failed
    assert ("1600=1100+1200", 3) in failed
    item = next(x for x in doc["checks"]["relations_failed"] if x["relation"].startswith("1200="))
    assert (item["expected"], item["actual"]) == ("52000", "52999")
    assert doc["status"] == "needs_check"
    assert any(w["code"] == "RELATION_FAILED" and w["severity"] == "error" for w in doc["warnings"])


def test_soft_relation_failure_alone_leaves_done_with_a_warning() -> None:
    """1540 off by 120 breaks only the soft 1500 relation... and the hard 1700 one is fixed too."""
    spec = f.onec_balance()
    row, col = f.find_cell(spec, "1540")
    spec = f.with_cell(spec, row, col + 1, 1120)  # 1500 ≠ Σ now, by 120 (> tolerance 4)
    doc = only(recognize_statements([f.to_sheet(spec)]), "BALANCE")
    assert doc["checks"]["relations_failed"] == []
    assert [x["relation"] for x in doc["checks"]["soft_relations_failed"]] == [
        "1500=1510+1520+1530+1540+1550"
    ]
    assert doc["status"] == "done"
    soft = next(w for w in doc["warnings"] if w["code"] == "SOFT_RELATION_FAILED")
    assert (soft["severity"], soft["column_index"]) == ("warning", 3)
    assert line(doc, "1500")["ref"] in soft["line_refs"]


def test_unreadable_value_needs_review() -> None:
    """A value that is not a number: amount null, raw text kept, not recognised, needs review."""
    doc = _balance_with("12 3a4", code="1110")
    value = line(doc, "1110")["values"][0]
    assert (value["amount"], value["text"], value["is_recognized"], value["needs_review"]) == (
        None, "12 3a4", False, True,
    )  # fmt: skip
    assert line(doc, "1110")["needs_review"] is True
    assert doc["status"] == "needs_check"


def test_five_digit_codes_are_codes() -> None:
    """An organisation-added 11501 line is kept as a code and does not break the 1100 sum."""
    spec = f.onec_balance()
    row, _ = f.find_cell(spec, "1150")
    rows = [list(r) for r in spec.rows]
    rows.insert(row + 1, [None, "в т.ч. здания", "11501", 30000, 30000, 30000, None])
    doc = only(recognize_statements([f.to_sheet(replace(spec, rows=rows))]), "BALANCE")
    assert line(doc, "11501")["line_status"] == "ok"
    assert doc["checks"]["relations_failed"] == []


def test_codeless_row_named_like_a_catalogue_line_is_missing_its_code() -> None:
    """A row without code named «Налог на прибыль» under 2400 is line_status missing."""
    spec = f.onec_income(detail=False)
    row, col = f.find_cell(spec, "2411")
    doc = only(recognize_statements([f.to_sheet(f.with_cell(spec, row, col, None))]), "INCOME")
    missing = next(item for item in doc["lines"] if item["row_index"] == row)
    assert (missing["line_status"], missing["line_code"]) == ("missing", None)
    assert doc["status"] == "needs_check"


def test_header_lines_without_values_are_not_lines() -> None:
    """«АКТИВ», section titles and «в том числе:» rows give no line."""
    spec = f.onec_income(detail=False)
    row, _ = f.find_cell(spec, "2110")
    rows = [list(r) for r in spec.rows]
    rows.insert(row + 1, [None, "в том числе:", None, None, None, None, None])
    doc = only(recognize_statements([f.to_sheet(replace(spec, rows=rows))]), "INCOME")
    assert all(item["line_name"] != "в том числе:" for item in doc["lines"])
    assert all(item["line_name"] not in ("АКТИВ", "ПАССИВ") for item in doc["lines"])


def test_relative_column_labels_resolve_against_the_report_date() -> None:
    """«На отчетную дату…», «На 31 декабря предыдущего года», «…предшествующего предыдущему»."""
    spec = f.onec_balance()
    row, col = f.find_cell(spec, f.BALANCE_LABELS[0])
    labels = (
        "На отчетную дату отчетного периода",
        "На 31 декабря предыдущего года",
        "На 31 декабря года, предшествующего предыдущему",
    )
    for i, label in enumerate(labels):
        spec = f.with_cell(spec, row, col + i, label)
    doc = only(recognize_statements([f.to_sheet(spec)]), "BALANCE")
    assert [(c["period_kind"], c["period_date"]) for c in doc["columns"]] == [
        ("relative:current", "2024-12-31"),
        ("relative:prev_year_end", "2023-12-31"),
        ("relative:prev_prev_year_end", "2022-12-31"),
    ]


def test_interim_income_columns() -> None:
    """«За Январь - Сентябрь 2025 г.» is absolute 2025-09-30; «За аналогичный период…» relative."""
    spec = f.onec_income()
    row, col = f.find_cell(spec, f.INCOME_LABELS[0])
    spec = f.with_cell(spec, row, col, "За Январь - Сентябрь 2025 г.")
    spec = f.with_cell(spec, row, col + 1, "За аналогичный период предыдущего года")
    doc = only(recognize_statements([f.to_sheet(spec)]), "INCOME")
    assert [(c["period_kind"], c["period_date"]) for c in doc["columns"]] == [
        ("absolute", "2025-09-30"),
        ("relative:prev_period", "2023-12-31"),
    ]


def test_formula_without_cached_value_needs_review() -> None:
    """A formula cell with no stored value is not an amount and needs review."""
    sheet = f.to_sheet(f.onec_balance())
    row, col = f.find_cell(f.onec_balance(), "1110")
    sheet.rows[row][col + 1] = None
    sheet.formula_cells.add((row, col + 1))
    doc = only(recognize_statements([sheet]), "BALANCE")
    value = line(doc, "1110")["values"][0]
    assert (value["amount"], value["is_recognized"], value["needs_review"]) == (None, False, True)
    assert isinstance(sheet, Sheet)


def test_inn_with_wrong_control_digits_needs_review() -> None:
    """An ИНН whose control digit is wrong is kept but listed in needs_review_fields."""
    spec = f.onec_balance()
    row, col = f.find_cell(spec, f.ORG_INN)
    wrong = f.ORG_INN[:-1] + str((int(f.ORG_INN[-1]) + 1) % 10)
    doc = only(recognize_statements([f.to_sheet(f.with_cell(spec, row, col, wrong))]), "BALANCE")
    assert (doc["header"]["inn"], doc["header"]["needs_review_fields"]) == (wrong, ["inn"])
    assert doc["header"]["inn_confidence"] < 100
    assert doc["status"] == "needs_check"
