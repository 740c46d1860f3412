"""Shared fixtures of the contract tests: the repository's contracts folder and its files."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from services.contract import Registry

ROOT = Path(__file__).resolve().parents[2]
CONTRACTS = ROOT / "contracts"
EXAMPLES = CONTRACTS / "examples"
NEGATIVE = CONTRACTS / "negative"


def load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def load_script(name: str) -> ModuleType:
    """Import scripts/<name>.py as a module (scripts/ is not a package)."""
    path = ROOT / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_script_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def registry() -> Registry:
    return Registry(CONTRACTS)


@pytest.fixture(scope="session")
def validate_script() -> ModuleType:
    return load_script("validate_contracts")


@pytest.fixture(scope="session")
def generate_script() -> ModuleType:
    return load_script("generate_models")
