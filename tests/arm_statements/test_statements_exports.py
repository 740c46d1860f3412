"""The public API is complete and importable from the package."""

from __future__ import annotations

import importlib

import services.arm_statements as package

_MODULES = ("catalogue", "checks", "document", "exceptions", "forms", "header_fields", "line",
            "money", "names", "periods", "recompute", "relations", "text", "variant", "version",
            "warnings")  # fmt: skip


def test_all_names_exist() -> None:
    """Every name in ``__all__`` is an attribute of the package."""
    assert all(hasattr(package, name) for name in package.__all__)


def test_public_names_of_modules_are_reexported() -> None:
    """What a module declares public is reachable from the package's ``__all__``."""
    missing = {
        f"{module}.{name}"
        for module in _MODULES
        for name in importlib.import_module(f"services.arm_statements.{module}").__all__
        if name not in package.__all__
    }
    assert missing == set()
