"""Which record walk runs: the C one (`services.excel._walk`) or its Python reference.

The sheet passes of XLS and XLSB walk every record of a part (about a million a sheet); the
walk is written twice, in C for speed and in Python as the reference the C one is held equal
to by the tests (tests/excel/test_walk_kernels.py). The C walk runs when the extension was
built and `ARM_KA_PURE_PYTHON` is unset or empty; otherwise the Python one. The choice is
made once, at import.
"""

from __future__ import annotations

import os
from typing import Any, TypeVar

__all__ = ["PURE_PYTHON_ENV", "native", "pure_python"]

PURE_PYTHON_ENV = "ARM_KA_PURE_PYTHON"
_Walk = TypeVar("_Walk")


def pure_python() -> bool:
    """Whether the environment asks for the Python walks."""
    return bool(os.environ.get(PURE_PYTHON_ENV))


def _extension() -> Any:
    try:
        from . import _walk
    except ImportError:  # built without a compiler: the Python walks serve
        return None
    return _walk


def native(name: str, reference: _Walk) -> _Walk:
    """The C walk called `name` when it is there and wanted, else `reference`."""
    module = None if pure_python() else _extension()
    walk: _Walk = getattr(module, name) if module is not None else reference
    return walk
