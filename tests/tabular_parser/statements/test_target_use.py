"""The НКО target-use report (0710003 / 0710006) in a workbook: a DISCLOSURE with its coded
lines and the relations of its form, as a scanned one gets (decision 0017)."""

from __future__ import annotations

import pytest

from services.scan_gateway.mapper import map_items
from services.scan_gateway.resultset import parse_item
from services.tabular_parser.statements import StatementsResult, recognize_statements
from tests.builders import SheetSpec
from tests.builders.target_use import TARGET_USE_FIGURES, target_use_report
from tests.scan_gateway._resultsets import encode, item, plain_line, table

from . import _forms as f
from ._helpers import Json, amounts, codes, only, schema_errors

FORMATS = ("XLSX", "XLS")


def _recognize(spec: SheetSpec, fmt: str = "XLSX") -> StatementsResult:
    return recognize_statements(f.read_back([spec], fmt))


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_target_use_sheet_is_a_disclosure_with_its_coded_lines_and_checks(fmt: str) -> None:
    """Every 6xxx line with both years' amounts, no form variant, the relations held: done."""
    result = _recognize(target_use_report(), fmt)
    document = only(result, "DISCLOSURE")
    assert codes(document) == [code for code, *_ in TARGET_USE_FIGURES]
    assert amounts(document, "6300") == ["-303964", "-248878"]
    assert amounts(document, "6400") == ["1356", "2518"]
    assert document["form_variant"] is None
    assert document["checks"] == {"relations_failed": [], "soft_relations_failed": []}
    assert document["status"] == "done"
    assert not any(item["needs_review"] for item in document["lines"])
    assert document["header"]["okud"] == "0710003"
    assert schema_errors(result) == []


@pytest.mark.parametrize("okud", ["0710006", None])
def test_the_report_is_known_by_its_6xxx_codes_whatever_the_okud(okud: str | None) -> None:
    """No title, the 66n edition's ОКУД or none: the codes of its «Код» column decide."""
    document = only(_recognize(target_use_report(title=False, okud=okud)), "DISCLOSURE")
    assert codes(document) == [code for code, *_ in TARGET_USE_FIGURES]
    assert document["checks"]["relations_failed"] == []


def test_expenses_written_positive_check_the_same() -> None:
    """6300 typed without brackets: read by absolute value and subtracted, as the ОФР's 2120."""
    document = only(_recognize(target_use_report(expenses="positive")), "DISCLOSURE")
    assert amounts(document, "6300") == ["303964", "248878"]
    assert document["checks"]["relations_failed"] == []
    assert document["status"] == "done"


def test_an_end_balance_that_does_not_add_up_fails_6400_and_keeps_the_filers_figure() -> None:
    """6400 ≠ 6100 + 6200 − 6300: RELATION_FAILED, needs_check; a workbook's figure stays
    unflagged (it is the filer's arithmetic, not a misread)."""
    result = _recognize(target_use_report(end_balance=1500))
    document = only(result, "DISCLOSURE")
    failed = document["checks"]["relations_failed"]
    assert [(x["relation"], x["expected"], x["actual"]) for x in failed] == [
        ("6400=6100+6200-6300", "1356", "1500")
    ]
    assert document["status"] == "needs_check"
    assert "RELATION_FAILED" in [w["code"] for w in document["warnings"]]
    assert not any(v["needs_review"] for item in document["lines"] for v in item["values"])
    assert schema_errors(result) == []


def _scanned_report() -> Json:
    """The same report as scan-gateway's mapper gets it from OCR: one «За 2021 г.» column,
    the «Использовано» figures in brackets as printed."""
    rows = [
        [
            (text, 95),
            (code, 96),
            (f"({abs(now)})" if now < 0 else str(now), 99),
        ]
        for code, text, now, _ in TARGET_USE_FIGURES
    ]
    headers = [("Наименование показателя", 96), ("Код", 96), ("За 2021 г.", 96)]
    page = item(
        4,
        [plain_line("Отчет о целевом использовании средств"), plain_line("Форма по ОКУД 0710003")],
        [table(4, 0, headers, rows)],
    )
    [document] = map_items([parse_item("page-4.json", encode(page))]).documents
    return document


def _essentials(document: Json) -> Json:
    """What the shared rules decide: the form, its lines' codes and this year's amounts, the
    checks, the review flags and the status (locators and column indexes are the source's)."""
    return {
        "document_type": document["document_type"],
        "form_variant": document["form_variant"],
        "lines": [
            (x["line_code"], x["values"][0]["amount"], x["needs_review"]) for x in document["lines"]
        ],
        "checks": document["checks"],
        "status": document["status"],
    }


def test_a_workbook_and_a_scan_of_the_report_give_the_same_document() -> None:
    """One rule for both: the Excel sheet and the OCR page of the same report agree on the
    form, the lines, the amounts (6300 stored negative), the checks and the status."""
    excel = only(_recognize(target_use_report()), "DISCLOSURE")
    assert _essentials(excel) == _essentials(_scanned_report())


def test_another_disclosure_stays_header_only() -> None:
    """A «Пояснения к …» sheet with a coded table is no target-use report: no lines, no checks
    (decision 0005)."""
    spec = SheetSpec(
        "Пояснения",
        [
            ["Пояснения к бухгалтерскому балансу и отчету о финансовых результатах"],
            ["Наименование показателя", "Код", "На 31.12.2021"],
            ["Основные средства", "1150", 100],
            ["Запасы", "1210", 200],
        ],
    )
    document = only(_recognize(spec), "DISCLOSURE")
    assert document["lines"] == [] and "checks" not in document


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_report_without_codes_gets_its_lines_by_their_names(fmt: str) -> None:
    """The 66n edition (ОКУД 0710006) printed without a «Код» column: the lines are matched by
    their printed names (codes inferred, CODES_INFERRED), 6400 = 6100 + 6200 − 6300 is checked
    and vouches for its four lines; the break-downs no holding relation covers need review."""
    spec = target_use_report(okud="0710006", codes=False)
    document = only(_recognize(spec, fmt), "DISCLOSURE")
    assert codes(document) == [code for code, *_ in TARGET_USE_FIGURES]
    assert all(item["line_code_text"] is None for item in document["lines"])
    assert amounts(document, "6300") == ["-303964", "-248878"]
    assert "CODES_INFERRED" in [w["code"] for w in document["warnings"]]
    assert document["checks"]["relations_failed"] == []
    review = {i["line_code"] for i in document["lines"] if i["needs_review"]}
    assert review == {"6220", "6310"}
    assert document["status"] == "needs_check"


def test_a_report_whose_lines_cannot_be_read_says_so() -> None:
    """No codes and wordings the form does not print: the DISCLOSURE stays header-only and
    TARGET_USE_LINES_UNREAD says why (no «Код» column, how many names matched)."""
    renamed = tuple((code, f"Статья {code[-2:]}") for code, *_ in TARGET_USE_FIGURES)
    spec = target_use_report(okud="0710006", codes=False, names=renamed)
    document = only(_recognize(spec), "DISCLOSURE")
    assert document["lines"] == []
    (warning,) = [w for w in document["warnings"] if w["code"] == "TARGET_USE_LINES_UNREAD"]
    assert "«Код»" in warning["message"] and "найдено 0" in warning["message"]
