"""docs/configuration.md stays truthful: it names every environment variable the code reads."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import AliasChoices, BaseModel
from pydantic_settings import BaseSettings

from services.arm_core.settings import CoreSettings
from services.runtime.settings import Settings
from services.scan_gateway.settings import ScanGatewaySettings
from services.tabular_parser.settings import TabularParserSettings

DOC = Path(__file__).resolve().parents[1] / "docs" / "configuration.md"


def _env_names(cls: type[BaseSettings]) -> set[str]:
    """Every variable a settings class reads: OPENBAO__<GROUP>__<KEY> for grouped fields, the
    plain alias for knobs (also inside a group: the worker pool's `PARSE_WORKERS`)."""
    names: set[str] = set()
    for name, field in cls.model_fields.items():
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            names |= {
                str(knob.validation_alias.choices[0])
                if isinstance(knob.validation_alias, AliasChoices)
                else f"OPENBAO__{name.upper()}__{key.upper()}"
                for key, knob in annotation.model_fields.items()
            }
        elif isinstance(field.validation_alias, AliasChoices):
            names.add(str(field.validation_alias.choices[0]))
        elif isinstance(field.validation_alias, str):
            names.add(field.validation_alias)
        else:
            names.add(f"OPENBAO__{name.upper()}")
    return names


@pytest.mark.parametrize(
    "cls",
    [Settings, CoreSettings, TabularParserSettings, ScanGatewaySettings],
    ids=lambda c: c.__name__,
)
def test_every_setting_is_documented(cls: type[BaseSettings]) -> None:
    """A setting added to the code without a line in docs/configuration.md fails here."""
    text = DOC.read_text(encoding="utf-8")
    missing = sorted(name for name in _env_names(cls) if f"`{name}`" not in text)
    assert missing == []
