"""The generated pydantic models: every example round-trips, and the committed code is fresh;
the generated TypedDicts have the models' shapes."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import NotRequired, get_origin, get_type_hints

import pytest
from pydantic import BaseModel, ValidationError

from services.contract import Kind, kind_of_file
from services.contract.models import (
    request_v1,
    result_message_v1,
    result_message_v2,
    result_v1,
    result_v2,
    result_v2_dicts,
)
from tests.support.contracts import CONTRACTS, EXAMPLES, ROOT, load_json

MODELS: dict[tuple[Kind, int], type[BaseModel]] = {
    (Kind.REQUEST, 1): request_v1.RecognitionRequest,
    (Kind.RESULT, 1): result_v1.RecognitionResult,
    (Kind.RESULT, 2): result_v2.RecognitionResult,
    (Kind.RESULT_MESSAGE, 1): result_message_v1.RecognitionResultMessage,
    (Kind.RESULT_MESSAGE, 2): result_message_v2.RecognitionResultMessage,
}
EXAMPLE_FILES = sorted(EXAMPLES.glob("*.json")) + sorted(EXAMPLES.glob("v*/*.json"))


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: str(p.relative_to(CONTRACTS)))
def test_every_example_round_trips_through_its_model(path: Path) -> None:
    """model_validate → model_dump(json) gives back the example, key for key."""
    kind = kind_of_file(path.name)
    assert kind is not None
    body = load_json(path)
    major = int(body["schema_version"].split(".")[0])
    model = MODELS[kind, major].model_validate(body)
    assert model.model_dump(mode="json", exclude_unset=True, by_alias=True) == body


def test_documents_come_back_as_their_own_classes() -> None:
    osv = result_v2.RecognitionResult.model_validate(load_json(EXAMPLES / "result-osv.json"))
    excel = result_v2.RecognitionResult.model_validate(
        load_json(EXAMPLES / "result-statement-excel.json")
    )
    assert [type(d) for d in osv.documents] == [result_v2.OsvDocument]
    assert {type(d) for d in excel.documents} == {result_v2.StatementDocument}


def test_models_reject_a_float_amount() -> None:
    """The models keep the shape rules the schema states per field (money is a string)."""
    body = load_json(EXAMPLES / "result-statement-minimal.json")
    body["documents"][0]["lines"][0]["values"][0]["amount"] = 3420.0
    with pytest.raises(ValidationError):
        result_v2.RecognitionResult.model_validate(body)


def test_shape_of_strips_rules_and_keeps_the_dispatch(generate_script: ModuleType) -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string"}, "gone": {"not": {}}, "no": False},
        "allOf": [{"if": {"required": ["a"]}, "then": {"required": ["b"]}}],
        "anyOf": [{"required": ["a"]}, {"required": ["b"]}],
        "items": {"if": {"const": 1}, "then": {"$ref": "#/x"}, "else": {"$ref": "#/y"}},
    }
    assert generate_script.shape_of(schema) == {
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "items": {"anyOf": [{"$ref": "#/x"}, {"$ref": "#/y"}]},
    }


@pytest.fixture(scope="module")
def fresh_models(generate_script: ModuleType) -> dict[str, str]:
    return dict(generate_script.generate(CONTRACTS))


def test_committed_models_equal_a_fresh_generation(
    generate_script: ModuleType, fresh_models: dict[str, str]
) -> None:
    """What `make models-check` enforces: regenerating changes nothing (deterministic output)."""
    models = ROOT / "services" / "contract" / "models"
    committed = {p.name: p.read_text(encoding="utf-8") for p in models.glob("*.py")}
    assert committed == fresh_models
    assert generate_script.check(models, CONTRACTS, fresh_models) == []
    assert all("do not edit" in text.splitlines()[0] for text in fresh_models.values())


def test_check_reports_a_stale_module(
    generate_script: ModuleType, fresh_models: dict[str, str], tmp_path: Path
) -> None:
    generate_script.write(fresh_models, tmp_path)
    stale = tmp_path / "result_v2.py"
    stale.write_text(stale.read_text(encoding="utf-8") + "\n# edited by hand\n", encoding="utf-8")
    (tmp_path / "leftover.py").write_text("", encoding="utf-8")
    problems = generate_script.check(tmp_path, CONTRACTS, fresh_models)
    assert len(problems) == 2
    assert "leftover.py" in problems[0]
    assert "result_v2.py" in problems[1]


def _classes(module: ModuleType, base: type) -> dict[str, type]:
    """The classes a generated module defines that derive from `base`, by name."""
    return {
        name: cls
        for name, cls in vars(module).items()
        if isinstance(cls, type) and issubclass(cls, base) and cls.__module__ == module.__name__
    }


def test_typed_dicts_have_the_keys_of_their_models() -> None:
    """The TypedDicts of the result 2.0 describe the same shapes as its pydantic models: each
    class of one module is in the other with the same keys, required where the model requires."""
    dicts = _classes(result_v2_dicts, dict)
    models = _classes(result_v2, BaseModel)
    assert set(dicts) == set(models)
    assert {"StatementDocument", "StatementLine", "StatementValue", "OsvDocument", "OsvRow"} <= set(
        dicts
    )
    for name, model in models.items():
        hints = get_type_hints(dicts[name], include_extras=True)
        assert issubclass(model, BaseModel)
        assert set(hints) == set(model.model_fields), name
        required = {key for key, field in model.model_fields.items() if field.is_required()}
        assert {key for key, hint in hints.items() if get_origin(hint) is not NotRequired} == (
            required
        ), name
