"""The pre-2011 (order 67н) «Отчет о прибылях и убытках»: its lines map onto the 66n ОФР where
the old form printed the code and the name agrees; everything else stays a legacy line."""

from __future__ import annotations

import pytest

from services.tabular_parser.statements import recognize_statements
from tests.builders import CellInput, SheetSpec
from tests.builders.legacy67n import LEGACY_INCOME_ROWS, legacy_67n_workbook

from . import _forms as f
from ._helpers import Json, only

_MAPPED = {
    "010": "2110", "020": "2120", "029": "2100", "030": "2210", "040": "2220", "050": "2200",
    "060": "2320", "070": "2330", "080": "2310", "090": "2340", "100": "2350", "140": "2300",
    "190": "2400",
}  # fmt: skip


def _income(fmt: str) -> Json:
    return only(recognize_statements(f.read_back([legacy_67n_workbook()], fmt)), "INCOME")


@pytest.mark.parametrize("fmt", ["XLSX", "XLS"])
def test_the_legacy_income_statement_becomes_an_ofr_with_66n_codes(fmt: str) -> None:
    """Each line the 67н form printed with a one-to-one successor carries the 66n code, keeps
    its printed code and its amounts, in the columns «6 | 12 | 18» the title row labels."""
    document = _income(fmt)
    lines = {item["line_code_text"]: item for item in document["lines"]}
    assert [item["line_code_text"] for item in document["lines"]] == [
        code for _, code, *_ in LEGACY_INCOME_ROWS
    ]
    for name, code, *values in LEGACY_INCOME_ROWS:
        item = lines[code]
        assert item["line_code"] == _MAPPED.get(code), code
        assert item["line_name"] == name
        assert [v["amount"] for v in item["values"]] == [str(v) for v in values]
    assert [c["label"] for c in document["columns"]] == ["6", "12", "18"]
    assert document["form_variant"] == "full"


def test_the_mapping_is_said_and_its_unconfirmed_amounts_need_review() -> None:
    """LEGACY_FORM_MAPPED names the form and every pair used; amounts a holding relation
    confirms (2110 … 2300) are not up for review, 2400 (no relation checked: the tax lines are
    not mapped) is; the tax lines stay legacy lines with LEGACY_LINE_CODE; needs_check."""
    document = _income("XLSX")
    (warning,) = [w for w in document["warnings"] if w["code"] == "LEGACY_FORM_MAPPED"]
    assert "67н" in warning["message"] and "Отчет о прибылях и убытках" in warning["message"]
    assert all(f"{old} → {new}" in warning["message"] for old, new in _MAPPED.items())
    by_code = {item["line_code_text"]: item for item in document["lines"]}
    assert not any(by_code[c]["needs_review"] for c in ("010", "020", "029", "050", "140"))
    assert by_code["190"]["needs_review"] is True
    for tax in ("141", "142", "150"):
        assert by_code[tax]["line_status"] == "unreadable" and by_code[tax]["line_code"] is None
    legacy = {w["line_refs"][0] for w in document["warnings"] if w["code"] == "LEGACY_LINE_CODE"}
    assert {by_code[t]["ref"] for t in ("141", "142", "150")} <= legacy
    assert document["checks"]["relations_failed"] == []
    assert document["status"] == "needs_check"


def test_the_next_tables_codes_are_no_ofr_lines() -> None:
    """The capital statement's «Код» header ends the ОПУ: its 100 «Остаток на начало периода»
    is no 2350, and none of its lines joins the ОФР."""
    document = _income("XLSX")
    names = [item["line_name"] for item in document["lines"]]
    assert "Остаток на начало периода" not in names
    assert [i["line_code"] for i in document["lines"]].count("2350") == 1


def test_a_legacy_income_statement_with_headers_maps_the_same() -> None:
    """The usual 67н export: title, «Наименование показателя | Код | За 2009 г. | За 2008 г.»:
    the same 66n codes, dated columns."""
    rows: list[list[CellInput]] = [
        ["Отчет о прибылях и убытках"],
        ["за 2009 г."],
        ["Наименование показателя", "Код", "За 2009 г.", "За 2008 г."],
    ]
    rows += [[name, code, now, before] for name, code, now, before, _ in LEGACY_INCOME_ROWS]
    document = only(recognize_statements(f.read_back([SheetSpec("ОПУ", rows)], "XLSX")), "INCOME")
    mapped = {i["line_code_text"]: i["line_code"] for i in document["lines"] if i["line_code"]}
    assert mapped == _MAPPED
    assert [c["period_date"] for c in document["columns"]] == ["2009-12-31", "2008-12-31"]
