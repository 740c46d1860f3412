"""The lazy face of a package that a worker process imports through (PEP 562).

`services.runtime`, `services.tabular_parser` and `services.scan_gateway` show names whose
modules pull in FastStream, NATS and aiobotocore; a worker that imports a light submodule
(`services.runtime.recognizer`, `services.excel`, `services.scan_gateway.local`)
runs the package's `__init__` first and must not pay for them. Such a face keeps one table,
name → module, derives `__all__` from it and imports a name on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    namespace: dict[str, Any], table: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module-level `__getattr__` and `__dir__` of the package whose globals are `namespace`."""
    package = namespace["__name__"]

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            msg = f"module {package!r} has no attribute {name!r}"
            raise AttributeError(msg)
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value  # later lookups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *table})

    return __getattr__, __dir__
