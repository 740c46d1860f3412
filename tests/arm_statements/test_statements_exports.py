"""The arm_statements face is the package's whole public API: every public module is on it.

tests/test_package_faces.py proves the rest for every package (each name of `__all__` imports;
a module the face draws from is shown whole), but not that the face draws from every module:
a new public module left off it would pass there. Here the modules are found, not listed.
"""

from __future__ import annotations

import importlib
import pkgutil

import services.arm_statements as package


def test_every_public_module_is_shown_whole_on_the_face() -> None:
    """Each public module's `__all__` (a new module's too) is in the package's `__all__`."""
    modules = [m.name for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_")]
    assert modules, "the package's modules were found"
    missing = {
        f"{module}.{name}"
        for module in modules
        for name in importlib.import_module(f"{package.__name__}.{module}").__all__
        if name not in package.__all__
    }
    assert missing == set()
