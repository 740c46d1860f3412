"""Spec 001, «Файл результата» and «Версионирование контракта»: each scenario and what covers it.

Every scenario of the two requirements is listed by its title as the spec writes it, with the
example or negative case that covers it; each test asserts the covering file exists and passes
or fails as the scenario says. The copy-rule scenarios of «Копия контракта в сервисе…» belong
to the services' own tests and are not listed here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from services.contract import Kind, Registry, kind_of_file
from tests.support.contracts import CONTRACTS, EXAMPLES, NEGATIVE, ROOT, load_json

SPEC_GLOB = "001_*.txt"
SEEDS = ROOT.parent / "shared" / "seeds"


def _doc(body: dict[str, Any], document_type: str) -> dict[str, Any]:
    return next(d for d in body["documents"] if d["document_type"] == document_type)


def _passes(registry: Registry, path: Path, major: int | None = None) -> dict[str, Any]:
    kind = kind_of_file(path.name)
    assert kind is not None
    assert path.is_file(), path
    body: dict[str, Any] = load_json(path)
    errors = (
        registry.validate(kind, body) if major is None else registry.validate_as(kind, major, body)
    )
    assert errors == [], path
    return body


def _fails(registry: Registry, path: Path, kind: Kind, majors: tuple[int, ...]) -> None:
    assert path.is_file(), path
    body = load_json(path)
    for major in majors:
        assert registry.validate_as(kind, major, body) != [], (path, major)
    assert not registry.is_valid(kind, body), path


# ----------------------------------------------------------------------------- Файл результата


def results_validated_by_examples(registry: Registry) -> None:
    """All result-*.json pass the result schema 2.0; request-*/result-message-* their schemas."""
    files = sorted(EXAMPLES.glob("*.json"))
    assert {kind_of_file(p.name) for p in files} == set(Kind)
    for path in files:
        body = _passes(registry, path)
        if kind_of_file(path.name) is Kind.RESULT:
            assert body["schema_version"] == "2.0"


def extra_column_kept(registry: Registry) -> None:
    body = _passes(registry, EXAMPLES / "result-osv.json")
    rows = _doc(body, "OSV")["rows"]
    counterparties = [r for r in rows if r["kind"] == "subconto"]
    assert counterparties
    for row in counterparties:
        assert set(row["extra"]) == {"КПП"}
        assert re.fullmatch(r"[0-9]{9}", row["extra"]["КПП"])


def excel_form_with_checks(registry: Registry) -> None:
    body = _passes(registry, EXAMPLES / "result-statement-excel.json")
    balance = _doc(body, "BALANCE")
    assert {loc["sheet"] for loc in balance["locator"]} == {"Баланс (актив)", "Баланс (пассив)"}
    assert balance["status"] in {"done", "needs_check"}
    assert balance["checks"]["soft_relations_failed"]
    income = _doc(body, "INCOME")
    detail = next(line for line in income["lines"] if line["line_status"] == "detail")
    parent = next(line for line in income["lines"] if line["ref"] == detail["parent_ref"])
    assert detail["line_code"] is None
    assert parent["line_code"] == "2110"
    disclosure = _doc(body, "DISCLOSURE")
    assert disclosure["columns"] == [] and disclosure["lines"] == []
    assert "checks" not in disclosure


def ocr_form_with_doubtful_values(registry: Registry) -> None:
    body = _passes(registry, EXAMPLES / "result-statement-minimal.json")
    balance = _doc(body, "BALANCE")
    dirty = [v for line in balance["lines"] for v in line["values"] if v["is_recognized"] is False]
    assert len(dirty) == 1
    assert dirty[0]["needs_review"] is False
    assert dirty[0]["text"] != dirty[0]["string_value"]
    unreadable = [line for line in balance["lines"] if line["line_status"] == "unreadable"]
    assert len(unreadable) == 1
    assert unreadable[0]["line_code"] is None and unreadable[0]["line_code_text"]
    assert balance["status"] == "needs_check"
    assert "page" in balance["locator"][0]


def osv_period_bounds(registry: Registry) -> None:
    body = _passes(registry, EXAMPLES / "result-osv.json")
    osv = _doc(body, "OSV")
    assert osv["header"]["period_text"] == "Октябрь 2024 г. – Сентябрь 2025 г."
    assert osv["header"]["period_start"] == "2024-10-01"
    assert osv["header"]["period_end"] == "2025-09-30"
    assert osv["header"]["is_from_year_start"] is False
    assert "status" in osv and "warnings" in osv


def other_document_in_v2(registry: Registry) -> None:
    _fails(registry, NEGATIVE / "result-v2-other-document.json", Kind.RESULT, (2,))
    _fails(registry, NEGATIVE / "result-v2-missing-form-variant.json", Kind.RESULT, (2,))


def line_without_code_with_code(registry: Registry) -> None:
    _fails(registry, NEGATIVE / "result-v2-unreadable-line-with-code.json", Kind.RESULT, (2,))


# ----------------------------------------------------------------------------- Версионирование


def incompatible_request_version(registry: Registry) -> None:
    """A request "2.0" to a service that knows 1.x: rejected at schema_version."""
    path = NEGATIVE / "request-v2-incompatible-major.json"
    _fails(registry, path, Kind.REQUEST, registry.known_majors(Kind.REQUEST))
    body = load_json(path)
    assert body["schema_version"] == "2.0"
    assert [e.path for e in registry.validate(Kind.REQUEST, body)] == ["schema_version"]


def core_gets_unknown_major(registry: Registry) -> None:
    for name, kind in [
        ("result-v3-major.json", Kind.RESULT),
        ("result-message-v3-major.json", Kind.RESULT_MESSAGE),
    ]:
        _fails(registry, NEGATIVE / name, kind, registry.known_majors(kind))
        assert load_json(NEGATIVE / name)["schema_version"] == "3.0"


SCENARIOS: dict[str, tuple[str, Callable[[Registry], None]]] = {
    "Результат валидируется примерами": ("examples/*.json", results_validated_by_examples),
    "Лишняя колонка сохранена": ("examples/result-osv.json", extra_column_kept),
    "Форма из Excel с проверками": ("examples/result-statement-excel.json", excel_form_with_checks),
    "Форма из OCR с сомнительными значениями": (
        "examples/result-statement-minimal.json",
        ocr_form_with_doubtful_values,
    ),
    "Границы периода ОСВ": ("examples/result-osv.json", osv_period_bounds),
    "Документ OTHER в v2.0": (
        "negative/result-v2-other-document.json, negative/result-v2-missing-form-variant.json",
        other_document_in_v2,
    ),
    "Строка без кода с кодом в поле": (
        "negative/result-v2-unreadable-line-with-code.json",
        line_without_code_with_code,
    ),
    "Несовместимая версия запроса": (
        "negative/request-v2-incompatible-major.json",
        incompatible_request_version,
    ),
    "Ядро получает MAJOR, которого не знает": (
        "negative/result-v3-major.json, negative/result-message-v3-major.json",
        core_gets_unknown_major,
    ),
}


@pytest.mark.parametrize("title", list(SCENARIOS))
def test_scenario_is_covered(title: str, registry: Registry) -> None:
    covered_by, check = SCENARIOS[title]
    for name in covered_by.split(", "):
        if "*" not in name:
            assert (CONTRACTS / name).is_file(), name
    check(registry)


def test_a_core_that_knows_only_1x_rejects_a_2_0_result(registry: Registry) -> None:
    """«Порядок нарушен» (transition requirement): a 2.0 result with a null line_code fails 1.x."""
    body = load_json(NEGATIVE / "result-v1-v2-body.json")
    paths = {e.path for e in registry.validate_as(Kind.RESULT, 1, body)}
    assert "schema_version" in paths
    assert any(p.endswith("line_code") for p in paths)


def test_previous_major_examples_are_checked(registry: Registry) -> None:
    """The transition window: examples/v1/ holds 1.x examples, each valid under its 1.x schema."""
    files = sorted((EXAMPLES / "v1").glob("*.json"))
    assert {kind_of_file(p.name) for p in files} == {Kind.RESULT, Kind.RESULT_MESSAGE}
    for path in files:
        _passes(registry, path, major=1)
    v1_excel = load_json(EXAMPLES / "v1" / "result-statement-excel.json")
    assert any(d["document_type"] == "OTHER" for d in v1_excel["documents"])
    assert any(d.get("checks", {}).get("duplicate_line_codes") for d in v1_excel["documents"])


def _spec_scenarios(text: str, requirement: str) -> list[str]:
    start = text.index(f"Requirement: {requirement}")
    end = text.find("Requirement:", start + 1)
    block = text[start : end if end != -1 else None]
    return re.findall(r"^Scenario: (.+?)\s*$", block, flags=re.MULTILINE)


@pytest.mark.shared
def test_the_list_matches_the_spec() -> None:
    """Every scenario title of the two requirements in shared/seeds/001 is listed above."""
    specs = sorted(SEEDS.glob(SPEC_GLOB)) if SEEDS.is_dir() else []
    if not specs:
        pytest.skip("shared/seeds is not beside the repository")
    text = specs[0].read_text(encoding="utf-8")
    titles = _spec_scenarios(text, "Файл результата") + _spec_scenarios(
        text, "Версионирование контракта"
    )
    assert len(titles) == 9
    assert sorted(titles) == sorted(SCENARIOS)
