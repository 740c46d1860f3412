"""Shared fixtures of the contract tests: the repository's contracts folder and its files."""

from __future__ import annotations

from types import ModuleType

import pytest

from services.contract import Registry
from tests.support.contracts import CONTRACTS, load_script


@pytest.fixture(scope="session")
def registry() -> Registry:
    return Registry(CONTRACTS)


@pytest.fixture(scope="session")
def validate_script() -> ModuleType:
    return load_script("validate_contracts")


@pytest.fixture(scope="session")
def generate_script() -> ModuleType:
    return load_script("generate_models")
