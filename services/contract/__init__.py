"""The recognition contract in code: schema registry, validation errors as data, generated models.

Validate a body with ``validate(Kind.RESULT, body)``: the schema is chosen by the body's
``schema_version`` MAJOR; the generated pydantic models (``services.contract.models``) give the
shape a typed face but do not enforce the schema's conditional rules.

The face is lazy (``services._lazy``): the file-type sniffer (``services.contract.filetypes``)
is imported by `arm-ka parse` and by every parsing worker, which validate no schema and must
not pay for jsonschema (the registry's import) through this ``__init__``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from services._lazy import lazy_exports

if TYPE_CHECKING:  # what mypy sees: the same names, typed; `X as X` marks them exported
    from services.contract.exceptions import ContractSetupError as ContractSetupError
    from services.contract.registry import ENV_CONTRACTS_DIR as ENV_CONTRACTS_DIR
    from services.contract.registry import ContractError as ContractError
    from services.contract.registry import Kind as Kind
    from services.contract.registry import Registry as Registry
    from services.contract.registry import current_major as current_major
    from services.contract.registry import default_contracts_dir as default_contracts_dir
    from services.contract.registry import default_registry as default_registry
    from services.contract.registry import is_valid as is_valid
    from services.contract.registry import kind_of_file as kind_of_file
    from services.contract.registry import known_majors as known_majors
    from services.contract.registry import parse_version as parse_version
    from services.contract.registry import schema_path as schema_path
    from services.contract.registry import validate as validate

_LAZY: dict[str, str] = {
    "ContractSetupError": "services.contract.exceptions",
    "ENV_CONTRACTS_DIR": "services.contract.registry",
    "ContractError": "services.contract.registry",
    "Kind": "services.contract.registry",
    "Registry": "services.contract.registry",
    "current_major": "services.contract.registry",
    "default_contracts_dir": "services.contract.registry",
    "default_registry": "services.contract.registry",
    "is_valid": "services.contract.registry",
    "kind_of_file": "services.contract.registry",
    "known_majors": "services.contract.registry",
    "parse_version": "services.contract.registry",
    "schema_path": "services.contract.registry",
    "validate": "services.contract.registry",
}
"""Each name the package shows → the module that defines it, imported on first use."""

__all__ = sorted(_LAZY)

if not TYPE_CHECKING:  # mypy resolves the names above, and flags any other
    __getattr__, __dir__ = lazy_exports(globals(), _LAZY)
