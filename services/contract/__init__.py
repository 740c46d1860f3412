"""The recognition contract in code: schema registry, validation errors as data, generated models.

Validate a body with ``validate(Kind.RESULT, body)``: the schema is chosen by the body's
``schema_version`` MAJOR; the generated pydantic models (``services.contract.models``) give the
shape a typed face but do not enforce the schema's conditional rules.
"""

from __future__ import annotations

from .exceptions import ContractSetupError
from .registry import (
    ENV_CONTRACTS_DIR,
    ContractError,
    Kind,
    Registry,
    current_major,
    default_contracts_dir,
    default_registry,
    is_valid,
    kind_of_file,
    known_majors,
    parse_version,
    schema_path,
    validate,
)

__all__ = [
    "ENV_CONTRACTS_DIR",
    "ContractError",
    "ContractSetupError",
    "Kind",
    "Registry",
    "current_major",
    "default_contracts_dir",
    "default_registry",
    "is_valid",
    "kind_of_file",
    "known_majors",
    "parse_version",
    "schema_path",
    "validate",
]
