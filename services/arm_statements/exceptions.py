"""The package's exceptions: one root, data kept as attributes.

ArmStatementsError
├── InvalidDocumentError   (recompute: the document is not statementDocument-shaped)
└── InvalidToleranceError  (a negative tolerance)
"""

from __future__ import annotations

from decimal import Decimal

__all__ = ["ArmStatementsError", "InvalidDocumentError", "InvalidToleranceError"]


class ArmStatementsError(Exception):
    """Root of every error this package raises."""


class InvalidDocumentError(ArmStatementsError, ValueError):
    """A field of the document has a shape recompute cannot read; ``field`` names it."""

    def __init__(self, field: str, problem: str) -> None:
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")


class InvalidToleranceError(ArmStatementsError, ValueError):
    """The tolerance must be a non-negative amount."""

    def __init__(self, tolerance: Decimal) -> None:
        self.tolerance = tolerance
        super().__init__(f"tolerance must be >= 0, got {tolerance}")
