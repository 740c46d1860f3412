"""The registry: schema by kind and MAJOR, any MINOR, errors as data with paths."""

from __future__ import annotations

import copy
import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import services.contract as contract
from services.contract import (
    ContractError,
    ContractSetupError,
    Kind,
    Registry,
    kind_of_file,
    parse_version,
)
from tests.support.contracts import CONTRACTS, EXAMPLES, load_json


def _example(name: str) -> Any:
    return load_json(EXAMPLES / name)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("2.0", (2, 0)), ("2.7", (2, 7)), ("1.12", (1, 12)), ("10.3", (10, 3))],
)
def test_parse_version_reads_major_minor(text: str, expected: tuple[int, int]) -> None:
    assert parse_version(text) == expected


@pytest.mark.parametrize("value", ["2", "2.0.1", "v2.0", "2.x", "", " 2.0", None, 2.0, 2])
def test_parse_version_rejects_anything_else(value: object) -> None:
    assert parse_version(value) is None


def test_kinds_by_file_name_prefix() -> None:
    assert kind_of_file("request-image.json") is Kind.REQUEST
    assert kind_of_file("result-message-done.json") is Kind.RESULT_MESSAGE
    assert kind_of_file("examples/v1/result-osv.json") is Kind.RESULT
    assert kind_of_file("notes.json") is None


def test_known_and_current_majors(registry: Registry) -> None:
    assert registry.known_majors(Kind.REQUEST) == (1,)
    assert registry.known_majors(Kind.RESULT) == (1, 2)
    assert registry.known_majors(Kind.RESULT_MESSAGE) == (1, 2)
    assert registry.current_major(Kind.RESULT) == 2
    assert registry.current_major(Kind.REQUEST) == 1


def test_schema_path_follows_the_file_naming_rule(registry: Registry) -> None:
    assert registry.schema_path(Kind.RESULT, 2).name == "recognition-result.schema.json"
    assert registry.schema_path(Kind.RESULT, 1).name == "recognition-result.v1.schema.json"
    assert registry.schema_path(Kind.REQUEST, 1).name == "recognition-request.schema.json"
    with pytest.raises(ContractSetupError):
        registry.schema_path(Kind.REQUEST, 2)


def test_the_body_major_picks_the_schema(registry: Registry) -> None:
    """A 1.0 envelope with string warnings is valid as 1.x and invalid when it claims 2.0."""
    body = load_json(EXAMPLES / "v1" / "result-message-needs-check.json")
    assert registry.validate(Kind.RESULT_MESSAGE, body) == []
    body["schema_version"] = "2.0"
    body["result_schema_version"] = "2.0"
    paths = [e.path for e in registry.validate(Kind.RESULT_MESSAGE, body)]
    assert paths == ["metrics/warnings/0"]


@pytest.mark.parametrize(
    ("kind", "name"),
    [
        (Kind.RESULT, "result-statement-excel.json"),
        (Kind.RESULT_MESSAGE, "result-message-done.json"),
        (Kind.REQUEST, "request-image.json"),
    ],
)
def test_any_minor_of_a_known_major_is_accepted(kind: Kind, name: str) -> None:
    """A newer MINOR may add optional fields: "x.7" with an unknown field still passes."""
    body = _example(name)
    major = body["schema_version"].split(".")[0]
    body["schema_version"] = f"{major}.7"
    if "result_schema_version" in body:
        body["result_schema_version"] = f"{major}.7"
    body["added_in_a_minor"] = {"anything": True}
    assert contract.validate(kind, body) == []


def test_unknown_major_is_an_error_at_schema_version() -> None:
    body = _example("result-osv.json")
    body["schema_version"] = "3.0"
    errors = contract.validate(Kind.RESULT, body)
    assert len(errors) == 1
    assert errors[0].path == "schema_version"
    assert "unknown MAJOR 3" in errors[0].message
    assert not contract.is_valid(Kind.RESULT, body)


@pytest.mark.parametrize("version", [None, "2", 2.0, "two"])
def test_missing_or_malformed_schema_version_is_an_error(version: object) -> None:
    body = _example("result-message-processing.json")
    if version is None:
        del body["schema_version"]
    else:
        body["schema_version"] = version
    assert [e.path for e in contract.validate(Kind.RESULT_MESSAGE, body)] == ["schema_version"]


@pytest.mark.parametrize("body", [[], "text", 42, None])
def test_a_body_that_is_not_an_object_is_an_error(body: object) -> None:
    assert contract.validate(Kind.REQUEST, body) == [
        ContractError("", "the body is not a JSON object")
    ]


def test_errors_are_data_with_slash_paths() -> None:
    """Each error names where it is; the message says what and, for a rule, which rule."""
    body = _example("result-statement-minimal.json")
    unreadable = next(
        i for i, line in enumerate(body["documents"][0]["lines"]) if line["line_code"] is None
    )
    body["documents"][0]["lines"][unreadable]["line_code"] = "1510"
    body["documents"][0]["lines"][0]["values"][1]["amount"] = 3610.5
    errors = contract.validate(Kind.RESULT, body)
    assert [e.path for e in errors] == [
        "documents/0/lines/0/values/1/amount",
        f"documents/0/lines/{unreadable}/line_code",
    ]
    assert "line_status" in errors[1].message
    assert str(errors[1]).startswith(f"documents/0/lines/{unreadable}/line_code: ")
    with pytest.raises(dataclasses.FrozenInstanceError):
        errors[0].path = "elsewhere"  # type: ignore[misc]


def test_a_forbidden_property_is_reported_at_its_own_path() -> None:
    body = _example("result-message-done.json")
    body["group_schema"] = "rsbu"
    errors = contract.validate(Kind.RESULT_MESSAGE, body)
    assert [e.path for e in errors] == ["group_schema"]


def test_validation_does_not_change_the_body() -> None:
    body = _example("result-statement-excel.json")
    before = copy.deepcopy(body)
    contract.validate(Kind.RESULT, body)
    assert body == before


def test_the_default_registry_is_built_once() -> None:
    assert contract.default_registry() is contract.default_registry()


def test_contracts_dir_env_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ARM_CONTRACTS_DIR points the default registry elsewhere (here: a folder with v1 only)."""
    folder = tmp_path / "contracts"
    folder.mkdir()
    shutil.copy(CONTRACTS / "recognition-request.schema.json", folder)
    monkeypatch.setenv(contract.ENV_CONTRACTS_DIR, str(folder))
    contract.default_registry.cache_clear()
    try:
        assert contract.default_contracts_dir() == folder
        assert contract.known_majors(Kind.REQUEST) == (1,)
        assert contract.known_majors(Kind.RESULT) == ()
        assert [e.path for e in contract.validate(Kind.RESULT, _example("result-osv.json"))] == [
            "schema_version"
        ]
    finally:
        monkeypatch.delenv(contract.ENV_CONTRACTS_DIR)
        contract.default_registry.cache_clear()
    assert contract.default_contracts_dir() == CONTRACTS


def test_a_missing_contracts_folder_is_a_setup_error(tmp_path: Path) -> None:
    with pytest.raises(ContractSetupError) as info:
        Registry(tmp_path / "absent")
    assert info.value.path == tmp_path / "absent"


def test_a_schema_whose_id_contradicts_its_file_name_is_a_setup_error(tmp_path: Path) -> None:
    schema = load_json(CONTRACTS / "recognition-result.schema.json")
    (tmp_path / "recognition-result.v1.schema.json").write_text(json.dumps(schema))
    with pytest.raises(ContractSetupError, match="v1"):
        Registry(tmp_path)


def test_two_schemas_for_one_major_is_a_setup_error(tmp_path: Path) -> None:
    shutil.copy(CONTRACTS / "recognition-result.schema.json", tmp_path)
    shutil.copy(
        CONTRACTS / "recognition-result.schema.json", tmp_path / "recognition-result.v2.schema.json"
    )
    with pytest.raises(ContractSetupError, match="two schemas"):
        Registry(tmp_path)


def test_public_api_is_exported() -> None:
    for name in contract.__all__:
        assert hasattr(contract, name), name
