"""scripts/validate_contracts.py: examples pass, negative cases fail, and breakage is reported."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import ModuleType

import pytest

from services.contract import Kind, Registry, kind_of_file
from tests.support.contracts import CONTRACTS, EXAMPLES, NEGATIVE, load_json

EXAMPLE_FILES = sorted(EXAMPLES.glob("*.json")) + sorted(EXAMPLES.glob("v*/*.json"))
NEGATIVE_FILES = sorted(NEGATIVE.glob("*.json"))


def _id(path: Path) -> str:
    return str(path.relative_to(CONTRACTS))


def test_the_repository_contract_is_valid(validate_script: ModuleType) -> None:
    """The whole run (meta-schema, examples, negatives) reports no problem on the repository."""
    report = validate_script.run(CONTRACTS)
    assert report.problems == []
    assert report.schemas == 5
    assert report.examples == len(EXAMPLE_FILES)
    assert report.negatives == len(NEGATIVE_FILES)


def test_main_exits_zero_and_summarises(
    validate_script: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    assert validate_script.main([]) == 0
    assert "OK" in capsys.readouterr().out


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=_id)
def test_every_example_passes_its_kind_and_major(path: Path, registry: Registry) -> None:
    """An example of examples/ passes the current MAJOR, one of examples/v<N>/ MAJOR N."""
    kind = kind_of_file(path.name)
    assert kind is not None
    major = int(path.parent.name[1:]) if path.parent != EXAMPLES else registry.current_major(kind)
    body = load_json(path)
    assert str(body["schema_version"]).startswith(f"{major}.")
    assert registry.validate_as(kind, major, body) == []
    assert registry.validate(kind, body) == []


@pytest.mark.parametrize("path", NEGATIVE_FILES, ids=_id)
def test_every_negative_case_fails_its_target(
    path: Path, registry: Registry, validate_script: ModuleType
) -> None:
    """A negative case fails the MAJOR its name targets (an unknown MAJOR: every known one)."""
    target = validate_script.negative_target(path.name)
    assert target is not None, "negative cases are named <kind>-v<MAJOR>-<what>.json"
    kind, major = target
    body = load_json(path)
    majors = [major] if major in registry.known_majors(kind) else registry.known_majors(kind)
    for checked in majors:
        assert registry.validate_as(kind, checked, body) != []


def test_negative_names_tell_kind_and_major(validate_script: ModuleType) -> None:
    assert validate_script.negative_target("result-message-v2-group-schema.json") == (
        Kind.RESULT_MESSAGE,
        2,
    )
    assert validate_script.negative_target("result-v3-major.json") == (Kind.RESULT, 3)
    assert validate_script.negative_target("request-v1-missing-s3-key.json") == (Kind.REQUEST, 1)
    assert validate_script.negative_target("bad-name.json") is None


@pytest.fixture
def contracts_copy(tmp_path: Path) -> Path:
    target = tmp_path / "contracts"
    shutil.copytree(CONTRACTS, target)
    return target


def _edit(path: Path, **changes: object) -> None:
    body = load_json(path)
    body.update(changes)
    path.write_text(json.dumps(body, ensure_ascii=False), encoding="utf-8")


def test_a_broken_example_fails_the_run_and_is_named(
    validate_script: ModuleType, contracts_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _edit(contracts_copy / "examples" / "result-osv.json", group_schema="balance")
    assert validate_script.main(["--contracts", str(contracts_copy)]) == 1
    err = capsys.readouterr().err
    assert "result-osv.json" in err
    assert "group_schema" in err


def test_an_example_of_the_wrong_major_is_reported(
    validate_script: ModuleType, contracts_copy: Path
) -> None:
    """A 1.2 body among the current examples is a problem, even though a 1.x schema exists."""
    shutil.copy(
        contracts_copy / "examples" / "v1" / "result-osv.json",
        contracts_copy / "examples" / "result-osv.json",
    )
    report = validate_script.run(contracts_copy)
    assert [p.file.name for p in report.problems] and all(
        p.file.name == "result-osv.json" for p in report.problems
    )


def test_a_negative_case_that_passes_is_reported(
    validate_script: ModuleType, contracts_copy: Path
) -> None:
    shutil.copy(
        contracts_copy / "examples" / "result-osv.json",
        contracts_copy / "negative" / "result-v2-actually-valid.json",
    )
    report = validate_script.run(contracts_copy)
    assert [p.file.name for p in report.problems] == ["result-v2-actually-valid.json"]


def test_a_schema_that_breaks_the_meta_schema_is_reported(
    validate_script: ModuleType, contracts_copy: Path
) -> None:
    path = contracts_copy / "recognition-request.schema.json"
    schema = load_json(path)
    schema["properties"]["attempt"]["minimum"] = "one"
    path.write_text(json.dumps(schema), encoding="utf-8")
    problems, count = validate_script.check_schemas(contracts_copy)
    assert count == 5
    assert [p.file.name for p in problems] == ["recognition-request.schema.json"]


def test_format_checking_is_on(registry: Registry) -> None:
    """date-time, date and uuid formats are asserted, not just annotated."""
    request = load_json(EXAMPLES / "request-tabular.json")
    request["reply_deadline"] = "2026-02-30T10:00:00Z"
    assert [e.path for e in registry.validate(Kind.REQUEST, request)] == ["reply_deadline"]
    osv = load_json(EXAMPLES / "result-osv.json")
    osv["documents"][0]["header"]["period_end"] = "2025-09-31"
    assert [e.path for e in registry.validate(Kind.RESULT, osv)] == [
        "documents/0/header/period_end"
    ]
