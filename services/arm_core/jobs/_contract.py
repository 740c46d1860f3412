"""The core's one door to the contract registry (services.contract).

Everything the core checks against the contract goes through these functions, so the
registry's API is used in one place. The registry picks the schema by the body's own MAJOR and
reports an unknown MAJOR as an error.
"""

from __future__ import annotations

from typing import Any

from services.contract import Kind, Registry, default_registry

__all__ = ["envelope_problems", "request_problems"]


def request_problems(body: dict[str, Any], registry: Registry | None = None) -> list[str]:
    """Why a request body fails the request schema (empty when it passes)."""
    return [str(error) for error in (registry or default_registry()).validate(Kind.REQUEST, body)]


def envelope_problems(body: dict[str, Any], registry: Registry | None = None) -> list[str]:
    """Why a result envelope fails the schema of its own MAJOR (empty when it passes).

    `registry` defaults to the process-wide one; a core may be given another (one that knows
    fewer MAJORs, in tests of the transition).
    """
    registry = registry or default_registry()
    return [str(error) for error in registry.validate(Kind.RESULT_MESSAGE, body)]
