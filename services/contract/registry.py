"""The contract registry: which schema a body answers to, and what is wrong with it, as data.

Each body names its contract version in ``schema_version`` ("MAJOR.MINOR"). A schema accepts
its own MAJOR with any MINOR, so the registry picks the schema by MAJOR alone and rejects a MAJOR
it does not know. Schemas are discovered in the contracts folder (``<name>.schema.json`` holds
the current MAJOR of a kind, ``<name>.v<N>.schema.json`` a previous one; the MAJOR is read from
the ``$id``), and their validators are built once: validation sits on the path of every message.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match

from ._semantics import document_reference_problems
from .exceptions import ContractSetupError

__all__ = [
    "ENV_CONTRACTS_DIR",
    "ContractError",
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

#: environment variable that points the default registry at another contracts folder
ENV_CONTRACTS_DIR = "ARM_CONTRACTS_DIR"

_VERSION = re.compile(r"^([0-9]+)\.([0-9]+)$")
_SCHEMA_FILE = re.compile(r"^(?P<stem>[a-z0-9-]+?)(?:\.v(?P<major>[0-9]+))?\.schema\.json$")
_ID_MAJOR = re.compile(r"/v([0-9]+)$")
_REQUIRED_FORMATS = ("date", "date-time", "uuid")
_MAX_MESSAGE = 300


class Kind(StrEnum):
    """The three kinds of contract body."""

    REQUEST = "request"
    RESULT = "result"
    RESULT_MESSAGE = "result-message"

    @property
    def schema_stem(self) -> str:
        """The schema file name without ``.schema.json``: ``recognition-<kind>``."""
        return f"recognition-{self.value}"


_KIND_BY_STEM = {kind.schema_stem: kind for kind in Kind}


@dataclass(frozen=True, slots=True)
class ContractError:
    """One reason a body fails its contract.

    ``path`` is the slash-joined location in the body ("documents/0/lines/3/line_code"; "" for
    the body itself); ``message`` says what is wrong there.
    """

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path or '<body>'}: {self.message}"


def parse_version(value: object) -> tuple[int, int] | None:
    """``"2.7"`` → ``(2, 7)``; anything that is not a MAJOR.MINOR string → None."""
    if not isinstance(value, str):
        return None
    match = _VERSION.match(value)
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2))


def kind_of_file(name: str) -> Kind | None:
    """The kind of an example file by its name prefix (spec 001): request-, result-message-, result-."""
    base = Path(name).name
    if base.startswith("request-"):
        return Kind.REQUEST
    if base.startswith("result-message-"):
        return Kind.RESULT_MESSAGE
    if base.startswith("result-"):
        return Kind.RESULT
    return None


@dataclass(frozen=True, slots=True)
class _Schema:
    kind: Kind
    major: int
    path: Path
    current: bool
    document: Mapping[str, Any]
    validator: Draft202012Validator


class Registry:
    """The schemas of one contracts folder, with their validators built once."""

    def __init__(self, contracts_dir: Path | str) -> None:
        self._dir = Path(contracts_dir)
        if not self._dir.is_dir():
            msg = "contracts folder not found"
            raise ContractSetupError(msg, path=self._dir)
        missing = [f for f in _REQUIRED_FORMATS if f not in _format_checker().checkers]
        if missing:
            msg = f"formats {missing} cannot be checked (is rfc3339-validator installed?)"
            raise ContractSetupError(msg)
        self._schemas = _discover(self._dir)

    @property
    def contracts_dir(self) -> Path:
        return self._dir

    def known_majors(self, kind: Kind) -> tuple[int, ...]:
        """Every MAJOR of ``kind`` that has a schema, ascending."""
        return tuple(sorted(major for (k, major) in self._schemas if k is kind))

    def current_major(self, kind: Kind) -> int:
        """The MAJOR of the main schema file of ``kind`` (the one without ``.v<N>``)."""
        for (k, major), entry in self._schemas.items():
            if k is kind and entry.current:
                return major
        msg = f"no current schema for {kind.value}"
        raise ContractSetupError(msg, path=self._dir)

    def schema_path(self, kind: Kind, major: int) -> Path:
        return self._entry(kind, major).path

    def schema(self, kind: Kind, major: int) -> Mapping[str, Any]:
        return self._entry(kind, major).document

    def validate(self, kind: Kind, body: object) -> list[ContractError]:
        """Errors of ``body`` against the schema of its own ``schema_version`` MAJOR."""
        if not isinstance(body, dict):
            return [ContractError("", "the body is not a JSON object")]
        raw = body.get("schema_version")
        version = parse_version(raw)
        if version is None:
            text = "missing" if raw is None else f"{_shorten(repr(raw))} is not MAJOR.MINOR"
            return [ContractError("schema_version", text)]
        major = version[0]
        if (kind, major) not in self._schemas:
            known = ", ".join(str(m) for m in self.known_majors(kind)) or "none"
            text = f"unknown MAJOR {major} of {kind.value} (known: {known})"
            return [ContractError("schema_version", text)]
        return self.validate_as(kind, major, body)

    def validate_as(self, kind: Kind, major: int, body: object) -> list[ContractError]:
        """Errors of ``body`` against the schema of ``major``, whatever its schema_version says."""
        entry = self._entry(kind, major)
        errors = [_to_error(err, entry.document) for err in entry.validator.iter_errors(body)]
        if not errors and kind is Kind.RESULT and major >= 2 and isinstance(body, Mapping):
            errors = [ContractError(p, m) for p, m in document_reference_problems(body)]
        return sorted(set(errors), key=lambda e: (e.path, e.message))

    def is_valid(self, kind: Kind, body: object) -> bool:
        return not self.validate(kind, body)

    def _entry(self, kind: Kind, major: int) -> _Schema:
        try:
            return self._schemas[kind, major]
        except KeyError:
            msg = f"no schema for {kind.value} MAJOR {major}"
            raise ContractSetupError(msg, path=self._dir) from None


def _format_checker() -> Any:
    return Draft202012Validator.FORMAT_CHECKER


def _discover(folder: Path) -> dict[tuple[Kind, int], _Schema]:
    found: dict[tuple[Kind, int], _Schema] = {}
    for path in sorted(folder.glob("*.schema.json")):
        match = _SCHEMA_FILE.match(path.name)
        kind = _KIND_BY_STEM.get(match.group("stem")) if match else None
        if match is None or kind is None:
            continue
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            msg = f"schema unreadable ({exc})"
            raise ContractSetupError(msg, path=path) from exc
        id_match = _ID_MAJOR.search(str(document.get("$id", "")))
        if id_match is None:
            msg = "schema $id does not end with /v<MAJOR>"
            raise ContractSetupError(msg, path=path)
        major = int(id_match.group(1))
        named = match.group("major")
        if named is not None and int(named) != major:
            msg = f"file name says v{named} but $id says v{major}"
            raise ContractSetupError(msg, path=path)
        if (kind, major) in found:
            msg = f"two schemas for {kind.value} MAJOR {major}"
            raise ContractSetupError(msg, path=path)
        validator = Draft202012Validator(document, format_checker=_format_checker())
        found[kind, major] = _Schema(kind, major, path, named is None, document, validator)
    return found


def _to_error(err: ValidationError, root: Mapping[str, Any]) -> ContractError:
    path = "/".join(str(part) for part in err.absolute_path)
    own = err.schema.get("description") if isinstance(err.schema, Mapping) else None
    if err.validator == "not" and own:
        message = f"not allowed: {own}"
    elif err.validator == "not":
        message = f"{_shorten(repr(err.instance))} is not allowed here"
    elif err.validator in ("anyOf", "oneOf") and own:
        message = str(own)
    elif err.validator in ("anyOf", "oneOf") and err.context:
        message = best_match(err.context).message
    elif err.validator is None:  # a `false` schema
        message = "not allowed here"
    else:
        message = err.message
    rule = _rule_description(root, err.absolute_schema_path)
    if rule and rule != own:
        message = f"{message} (rule: {rule})"
    return ContractError(path, _shorten(message))


def _rule_description(root: Mapping[str, Any], schema_path: Iterable[str | int]) -> str | None:
    """The description of the innermost conditional rule (if/then/else) the error came from."""
    node: Any = root
    rule: str | None = None
    for step in schema_path:
        while isinstance(node, Mapping) and "$ref" in node and step not in node:
            node = _resolve(root, str(node["$ref"]))
        if isinstance(node, Mapping) and step in ("then", "else") and "if" in node:
            description = node.get("description")
            rule = str(description) if description else rule
        try:
            node = node[step]
        except (KeyError, IndexError, TypeError):
            return rule
    return rule


def _resolve(root: Mapping[str, Any], ref: str) -> Any:
    if not ref.startswith("#/"):
        return {}
    node: Any = root
    for part in ref[2:].split("/"):
        node = node.get(part.replace("~1", "/").replace("~0", "~"), {})
    return node


def _shorten(text: str) -> str:
    return text if len(text) <= _MAX_MESSAGE else text[: _MAX_MESSAGE - 1] + "…"


def default_contracts_dir() -> Path:
    """``$ARM_CONTRACTS_DIR``, else ``contracts/`` at the repository root (the parent of services/)."""
    override = os.environ.get(ENV_CONTRACTS_DIR)
    if override:
        return Path(override)
    return Path(__file__).resolve().parents[2] / "contracts"


@lru_cache(maxsize=1)
def default_registry() -> Registry:
    """The process-wide registry of ``default_contracts_dir()``, built on first use."""
    return Registry(default_contracts_dir())


def validate(kind: Kind, body: object) -> list[ContractError]:
    """Errors of ``body`` against its kind's schema of its own MAJOR (empty when valid)."""
    return default_registry().validate(kind, body)


def is_valid(kind: Kind, body: object) -> bool:
    return default_registry().is_valid(kind, body)


def known_majors(kind: Kind) -> tuple[int, ...]:
    return default_registry().known_majors(kind)


def current_major(kind: Kind) -> int:
    return default_registry().current_major(kind)


def schema_path(kind: Kind, major: int) -> Path:
    return default_registry().schema_path(kind, major)
