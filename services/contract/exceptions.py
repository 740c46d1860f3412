"""Errors of the contract package: the contract files themselves are missing or inconsistent.

A body that fails validation is not an exception: `validate` returns it as data
(`ContractError`), because every service decides on its own what a bad body means.

    ContractSetupError          the contracts folder or a schema cannot be used
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["ContractSetupError"]


class ContractSetupError(Exception):
    """The contract files cannot be used: folder missing, schema unreadable or ambiguous."""

    def __init__(self, message: str, *, path: Path | None = None) -> None:
        super().__init__(message if path is None else f"{message}: {path}")
        self.path = path
