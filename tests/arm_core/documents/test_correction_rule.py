"""One recompute rule: a correction rechecks the document exactly as its recognition did.

Every document kind, recognised for real from a workbook or a scan result set built in code
(full and simplified forms, codes inferred from names, the pre-2011 ОФР mapped onto 66n, own
numbering 0420002 / 0420003, the НКО target-use report, a scan with an unreadable code): a
confirmation changes no check, and a changed amount or code never makes a relation fail that
does not involve the corrected line.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from decimal import Decimal
from functools import cache
from typing import Any, cast

import pytest

from services.arm_core.db.models import Correction
from services.arm_core.documents.corrections import apply_corrections
from services.arm_statements import CheckRule, parse_money
from services.contract.models.result_v2_dicts import StatementDocument
from services.scan_gateway.mapper import map_items
from services.scan_gateway.resultset import parse_item
from services.tabular_parser.statements import recognize_statements
from tests.builders import SheetSpec
from tests.builders.legacy67n import legacy_67n_workbook
from tests.builders.statement_layouts import nfo_balance, nfo_income
from tests.builders.target_use import target_use_report
from tests.scan_gateway._resultsets import encode, minimal_balance_item
from tests.tabular_parser.statements import _forms as f

Json = dict[str, Any]


def _excel(*specs: SheetSpec) -> list[Json]:
    return list(recognize_statements(f.to_sheets(specs)).documents)


def _scan(page: Json) -> list[Json]:
    return list(map_items([parse_item("page-1.json", encode(page))]).documents)


def _scan_broken() -> Json:
    """The minimal scanned balance with 1600 misread, so 1600 = Σ fails in its first column."""
    page = minimal_balance_item()
    page["tables"][0]["rows"][5]["cells"][2]["text"] = "9 999"
    return page


SOURCES: dict[str, Callable[[], list[Json]]] = {
    "excel-1c": lambda: _excel(*f.onec_workbook()),
    "excel-girbo": lambda: _excel(*f.girbo_workbook()),
    "excel-simplified": lambda: _excel(f.simplified_sheet()),
    "excel-codes-inferred": lambda: _excel(f.codeless_157n()),
    "excel-legacy-67n": lambda: _excel(legacy_67n_workbook()),
    "excel-own-numbering": lambda: _excel(nfo_balance(), nfo_income("ОФР")),
    "excel-target-use": lambda: _excel(target_use_report()),
    "scan-unreadable-code": lambda: _scan(minimal_balance_item()),
    "scan-relation-failed": lambda: _scan(_scan_broken()),
}


@cache
def _documents(source: str) -> tuple[Json, ...]:
    documents = tuple(d for d in SOURCES[source]() if d.get("lines"))
    assert documents, source
    return documents


def _statement(document: Json) -> StatementDocument:
    """A recognised statement (the recogniser's plain JSON) as the core reads it back."""
    return cast(StatementDocument, copy.deepcopy(document))


def _correction(kind: str, line: int, column: int | None, new: str | None) -> Correction:
    return Correction(
        kind=kind, line=line, column_index=column, old_value=None, new_value=new, author="a"
    )


def _failures(document: Mapping[str, Any]) -> set[tuple[str, int, tuple[str, ...]]]:
    checks = document.get("checks") or {}
    return {
        (str(f["relation"]), int(f["column_index"]), tuple(f["codes"]))
        for key in ("relations_failed", "soft_relations_failed")
        for f in checks.get(key) or []
    }


def _amount(line: Json, column: int) -> Decimal | None:
    value = next((v for v in line.get("values") or [] if v["column_index"] == column), None)
    return None if value is None else parse_money(value.get("amount"))


def test_every_source_gives_a_checked_document_of_each_kind() -> None:
    """The sources cover what the rule has to tell apart: both variants and none, complete
    and partial lines, balances, ОФР and the target-use report, Excel and scan."""
    documents = [d for source in SOURCES for d in _documents(source)]
    rules = {CheckRule.of_document(d) for d in documents}
    assert {r.complete for r in rules} == {True, False}
    assert {r.form_variant for r in rules} >= {"full", "simplified", None}
    assert {d["document_type"] for d in documents if "checks" in d} >= {
        "BALANCE",
        "INCOME",
        "DISCLOSURE",
    }
    assert any(_failures(d) for d in documents)  # a failing relation to keep unrelated to


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_a_confirmation_changes_no_check(source: str) -> None:
    """Confirming a value rechecks the document with its recognition's rule: the checks read
    exactly as recognised (the old recheck with every line complete added failures to forms
    whose codes were inferred)."""
    for document in _documents(source):
        line, value = next(
            (i, v) for i, ln in enumerate(document["lines"]) for v in ln.get("values") or []
        )
        confirm = _correction("confirm", line, value["column_index"], value.get("amount"))
        corrected = apply_corrections(_statement(document), [confirm]).document
        assert corrected.get("checks") == document.get("checks"), document["document_type"]


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_a_changed_amount_fails_only_relations_of_its_own_line(source: str) -> None:
    """Every value cell of every coded line (empty ones too) given another amount: each
    relation that fails afterwards and did not before names the corrected line's code."""
    for document in _documents(source):
        before = _failures(document)
        columns = [c["column_index"] for c in document.get("columns") or []]
        for index, line in enumerate(document["lines"]):
            code = line.get("line_code")
            if line.get("line_status") != "ok" or not code:
                continue
            for column in columns:
                amount = _amount(line, column)
                new = str((amount or Decimal(0)) + 4000)
                correction = _correction("value", index, column, new)
                after = _failures(apply_corrections(_statement(document), [correction]).document)
                added = after - before
                assert all(code in codes for _, _, codes in added), (source, code, column, added)


@pytest.mark.parametrize("source", ["scan-unreadable-code", "excel-codes-inferred"])
def test_a_corrected_code_fails_only_relations_of_its_own_line(source: str) -> None:
    """A line's code corrected (an unreadable scan code, an inferred one changed): relations
    failing anew all name the new code; lines the recogniser never mapped stay unchecked."""
    for document in _documents(source):
        before = _failures(document)
        for index, line in enumerate(document["lines"]):
            if line.get("line_status") not in ("ok", "unreadable"):
                continue
            for code in ("1510", "1230", "1250"):
                correction = _correction("line_code", index, None, code)
                after = _failures(apply_corrections(_statement(document), [correction]).document)
                assert all(code in codes for _, _, codes in after - before), (index, code)


def test_a_value_a_now_holding_relation_covers_is_settled_by_it() -> None:
    """The scan's 1600 misread breaks 1600 = Σ, leaving the dirty «1 2З0» (1230) for review;
    once 1600 is corrected the relation holds again and settles 1230 without a confirm."""
    [document] = _documents("scan-relation-failed")
    lines = document["lines"]
    dirty = next(i for i, ln in enumerate(lines) if ln["line_code"] == "1230")
    total = next(i for i, ln in enumerate(lines) if ln["line_code"] == "1600")
    column = lines[dirty]["values"][0]["column_index"]
    assert lines[dirty]["values"][0]["needs_review"] is True
    fixed = apply_corrections(_statement(document), [_correction("value", total, column, "6470")])
    after = fixed.document["lines"][dirty]
    assert after["values"][0]["needs_review"] is False
    assert after["needs_review"] is False
    assert (dirty, column) in fixed.settled
    assert (total, column) not in fixed.settled  # corrected, not settled
    assert not fixed.document["checks"]["relations_failed"]


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_corrections_leave_the_recognised_document_as_it_was(source: str) -> None:
    """apply_corrections returns a new document: the one it is given (the recognised, read
    once per request) is not changed by any kind of correction, the review mark included."""
    for document in _documents(source):
        recognised = _statement(document)
        before = copy.deepcopy(recognised)
        line, value = next(
            (i, v) for i, ln in enumerate(recognised["lines"]) for v in ln.get("values") or []
        )
        column = value["column_index"]
        corrections = [
            _correction("value", line, column, "4000"),
            _correction("confirm", line, column, "4000"),
            _correction("line_code", line, None, "1510"),
            Correction(kind="header", field="inn", new_value="7707083893", author="a"),
            _correction("reviewed", line, None, None),
        ]
        corrected = apply_corrections(recognised, corrections)
        assert recognised == before
        assert corrected.document != before
        assert corrected.document["lines"][line]["line_code"] == "1510"
