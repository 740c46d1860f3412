"""The core's one door to the contract registry (services.contract).

Everything the core checks against the contract goes through these functions, so the
registry's API is used in one place. The registry picks the schema by the body's own MAJOR and
reports an unknown MAJOR as an error.
"""

from __future__ import annotations

from typing import Any

from services.contract import Kind, validate

__all__ = ["envelope_problems", "request_problems"]


def request_problems(body: dict[str, Any]) -> list[str]:
    """Why a request body fails the request schema (empty when it passes)."""
    return [str(error) for error in validate(Kind.REQUEST, body)]


def envelope_problems(body: dict[str, Any]) -> list[str]:
    """Why a result envelope fails the schema of its own MAJOR (empty when it passes)."""
    return [str(error) for error in validate(Kind.RESULT_MESSAGE, body)]
