"""Which kernel runs: the C one or its Python reference.

Two loops of a large sheet are written twice, in C for speed and in Python as the reference the
C one is held equal to by the tests: the record walks of the XLS and XLSB sheet passes (about a
million records a sheet; `services.excel._walk`, tests/excel/test_walk_kernels.py) and the cell
primitives the recognisers call for every cell (`services.excel._cells`: squash, the money
string, the sums of a row; tests/excel/test_cell_kernels.py). The C kernel runs when its
extension was built and `ARM_KA_PURE_PYTHON` is unset or empty; otherwise the Python one. The
choice is made once, at import.
"""

from __future__ import annotations

import importlib
import os
from typing import Any, TypeVar

__all__ = ["PURE_PYTHON_ENV", "native", "pure_python"]

PURE_PYTHON_ENV = "ARM_KA_PURE_PYTHON"
_Kernel = TypeVar("_Kernel")
_EXTENSIONS = ("_walk", "_cells")


def pure_python() -> bool:
    """Whether the environment asks for the Python kernels."""
    return bool(os.environ.get(PURE_PYTHON_ENV))


def _extensions() -> list[Any]:
    """The C extension modules that were built (none on a machine without a compiler)."""
    found: list[Any] = []
    for name in _EXTENSIONS:
        try:
            found.append(importlib.import_module(f"{__package__}.{name}"))
        except ImportError:  # not built: the Python kernels serve
            continue
    return found


def native(name: str, reference: _Kernel) -> _Kernel:
    """The C kernel called `name` when it is there and wanted, else `reference`."""
    if not pure_python():
        for module in _extensions():
            if hasattr(module, name):
                kernel: _Kernel = getattr(module, name)
                return kernel
    return reference
