"""recompute on contract-shaped statementDocuments (2.0 and 1.x)."""

from __future__ import annotations

from typing import Any

import pytest

from services.arm_statements import (
    CheckRule,
    CoveredValue,
    InvalidDocumentError,
    recheck,
    recompute,
)

from ._forms import FULL_BALANCE, SIMPLIFIED_INCOME


def _value(column: int, amount: str | None, **extra: Any) -> dict[str, Any]:
    return {
        "column_index": column,
        "amount": amount,
        "string_value": amount,
        "text": amount,
        "confidence": 100,
        "is_recognized": True,
        "needs_review": False,
    } | extra


def _line(
    row: int, code: str | None, amounts: dict[int, str | None], **extra: Any
) -> dict[str, Any]:
    return {
        "row_index": row,
        "ref": f"'Баланс (актив)'!C{row + 1}",
        "line_status": "ok" if code else "unreadable",
        "line_code": code,
        "line_code_text": code,
        "line_code_confidence": 100,
        "line_name": None,
        "line_name_confidence": None,
        "parent_ref": None,
        "needs_review": False,
        "values": [_value(c, a) for c, a in amounts.items()],
    } | extra


def _document(document_type: str, lines: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "document_type": document_type,
        "form_variant": None,
        "status": "done",
        "warnings": [],
        "header": {},
        "columns": [],
        "lines": lines,
    }


def test_full_balance_document_passes_and_every_value_is_covered() -> None:
    """A consistent 2.0 balance: full variant, empty checks, each value covered by a relation."""
    lines = [
        _line(i, code, {3: str(a)})
        for i, code in enumerate(FULL_BALANCE)
        for a in [FULL_BALANCE[code]]
    ]
    result = recompute(_document("BALANCE", lines))
    assert result.form_variant == "full"
    assert result.checks is not None
    assert result.checks.to_dict() == {"relations_failed": [], "soft_relations_failed": []}
    assert {c.line_index for c in result.covered} == set(range(len(lines)))
    assert result.is_covered(lines[0]["ref"], 3)


def test_dirty_value_is_covered_only_by_a_relation_that_holds() -> None:
    """OCR balance: 1600 read from dirty text equals 1700 → covered; a failing relation covers
    nothing; the unreadable line is ignored."""
    lines = [
        _line(0, "1230", {3: "600"}),
        _line(1, "1250", {3: "400"}),
        _line(2, "1600", {3: "1000"})
        | {"values": [_value(3, "1000", is_recognized=False, text="1 0O0")]},
        _line(3, None, {3: "77"}),
        _line(4, "1300", {3: "300"}),
        _line(5, "1520", {3: "600"}),
        _line(6, "1700", {3: "1000"}),
    ]
    result = recompute(_document("BALANCE", lines))
    assert result.form_variant == "simplified"
    assert result.checks is not None
    assert [f.relation for f in result.checks.relations_failed] == [
        "1700=1300+1350+1360+1410+1450+1510+1520+1550"
    ]
    assert result.is_covered("'Баланс (актив)'!C3", 3)
    assert CoveredValue(0, "'Баланс (актив)'!C1", 3) in result.covered
    assert not result.is_covered("'Баланс (актив)'!C5", 3)  # 1300 only in the failing relation
    assert all(c.line_index != 3 for c in result.covered)


def test_duplicate_codes_first_wins_and_detail_lines_are_ignored() -> None:
    """A second 2110 line is ignored (and reported); a detail line under 2110 adds nothing."""
    lines = [_line(i, code, {4: str(a)}) for i, (code, a) in enumerate(SIMPLIFIED_INCOME.items())]
    lines.insert(
        1, _line(1, None, {4: "4999"}) | {"line_status": "detail", "parent_ref": lines[0]["ref"]}
    )
    lines.append(_line(20, "2110", {4: "1"}))
    result = recompute(_document("INCOME", lines))
    assert result.form_variant == "simplified"
    assert result.checks is not None and result.checks.hard_ok
    assert result.duplicate_lines == (len(lines) - 1,)
    assert all(c.line_index not in (1, len(lines) - 1) for c in result.covered)


def test_one_x_document_is_read_without_line_status() -> None:
    """1.x shape: line_code always a string, no line_status/ref; amounts null or money."""
    lines: list[dict[str, Any]] = [
        {"line_code": code, "line_name": "", "values": [{"column_index": 2, "amount": str(a)}]}
        for code, a in FULL_BALANCE.items()
    ]
    lines[0]["values"].append({"column_index": 3, "amount": None})
    lines.append({"line_code": "", "line_name": "Итого", "values": []})
    document = {"document_type": "BALANCE", "lines": lines, "checks": {"duplicate_line_codes": []}}
    result = recompute(document)
    assert result.form_variant == "full"
    assert result.checks is not None and result.checks.hard_ok
    assert result.covered and all(c.ref is None for c in result.covered)
    assert result.covered_refs == frozenset()


def test_one_x_failure_is_found() -> None:
    """A 1.x balance whose totals disagree fails the hard relation."""
    lines = [
        {"line_code": "1600", "values": [{"column_index": 2, "amount": "100"}]},
        {"line_code": "1700", "values": [{"column_index": 2, "amount": "120"}]},
    ]
    result = recompute({"document_type": "BALANCE", "lines": lines})
    assert result.form_variant is None
    assert result.checks is not None
    assert [f.to_dict() for f in result.checks.relations_failed] == [
        {
            "column_index": 2,
            "relation": "1600=1700",
            "codes": ["1600", "1700"],
            "expected": "120",
            "actual": "100",
        }
    ]


def test_variant_from_names_when_the_form_has_no_codes() -> None:
    """A 157n simplified ОФР read without codes still gets its variant from the names."""
    lines = [
        _line(0, None, {3: "10"}) | {"line_name": "Выручка"},
        _line(1, None, {3: "5"}) | {"line_name": "Расходы по обычным видам деятельности 10"},
    ]
    result = recompute(_document("INCOME", lines))
    assert result.form_variant == "simplified"
    assert result.checks is not None and result.checks.hard_ok


def test_disclosure_and_documents_without_lines_get_no_checks() -> None:
    """No checks for DISCLOSURE or a document without lines; the variant is None for DISCLOSURE."""
    assert recompute(_document("DISCLOSURE", [])).checks is None
    assert recompute(_document("DISCLOSURE", [])).form_variant is None
    assert recompute(_document("BALANCE", [])).checks is None


def test_given_variant_overrides_detection() -> None:
    """A caller may impose the variant (e.g. the one the producer wrote)."""
    lines = [_line(0, "1600", {3: "5"}), _line(1, "1150", {3: "1"})]
    assert recompute(_document("BALANCE", lines)).form_variant == "simplified"
    result = recompute(_document("BALANCE", lines), form_variant="full")
    assert result.form_variant == "full"
    assert result.checks is not None and result.checks.hard_ok  # 1100/1200 absent: not checked


def test_amounts_that_are_not_money_count_as_missing() -> None:
    """Floats, garbage and legacy three-digit codes never crash; they just don't take part."""
    lines = [
        {"line_code": "1600", "values": [{"column_index": 2, "amount": 1.5}]},
        {"line_code": "1700", "values": [{"column_index": 2, "amount": "12 000"}]},
        {"line_code": "300", "values": [{"column_index": 2, "amount": "1"}]},
    ]
    result = recompute({"document_type": "BALANCE", "lines": lines})
    assert result.checks is not None and result.checks.hard_ok and not result.covered


@pytest.mark.parametrize(
    ("document", "field"),
    [
        ({"lines": []}, "document_type"),
        ({"document_type": "BALANCE", "lines": "x"}, "lines"),
        ({"document_type": "BALANCE", "lines": [1]}, "lines[0]"),
        (
            {
                "document_type": "BALANCE",
                "lines": [{"line_code": "1600", "values": [{"column_index": "3"}]}],
            },
            "lines[0].values[0].column_index",
        ),
    ],
)
def test_malformed_documents_raise_with_the_field(document: dict[str, Any], field: str) -> None:
    """A body that is not statementDocument-shaped raises InvalidDocumentError naming the field."""
    with pytest.raises(InvalidDocumentError) as info:
        recompute(document)
    assert info.value.field == field


def test_check_rule_is_read_back_from_the_document() -> None:
    """The stored variant verbatim (absent: detect); partial when codes were inferred or
    mapped, or a line's code is unreadable or missing; a variant that is no variant raises."""
    lines = [_line(0, "1600", {3: "10"}), _line(1, "1700", {3: "10"})]
    document = _document("BALANCE", lines)
    assert CheckRule.of_document(document) == CheckRule(None, True)
    del document["form_variant"]
    assert CheckRule.of_document(document) == CheckRule("detect", True)
    inferred = {**document, "form_variant": "full", "warnings": [{"code": "CODES_INFERRED"}]}
    assert CheckRule.of_document(inferred) == CheckRule("full", False)
    missing = _document("BALANCE", [*lines, _line(2, None, {3: "5"}, line_status="missing")])
    assert CheckRule.of_document(missing).complete is False
    with pytest.raises(InvalidDocumentError):
        CheckRule.of_document({**document, "form_variant": "short"})
    result = recheck(missing, CheckRule("full", False))
    assert result.form_variant == "full" and result.checks is not None
