"""Exceptions of the Excel package: one root, data kept as attributes.

    ExcelError
    ├── NotAWorkbook          the bytes carry no Excel signature   → UNSUPPORTED_FORMAT
    └── UnreadableWorkbook    an Excel signature that cannot be read safely → UNREADABLE
        └── LimitExceeded     a guard refused the file (size, ratio, rows, cells…)

Every exception pickles by its attributes so it crosses the worker-process boundary intact.
"""

from __future__ import annotations

__all__ = ["ExcelError", "LimitExceeded", "NotAWorkbook", "UnreadableWorkbook"]


class ExcelError(Exception):
    """Root of the package's exceptions."""


class NotAWorkbook(ExcelError):
    """The bytes are not an XLS, XLSX or XLSB workbook (by content, not by name)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason

    def __reduce__(self) -> tuple[type[NotAWorkbook], tuple[str]]:
        return (type(self), (self.reason,))


class UnreadableWorkbook(ExcelError):
    """An Excel file that is damaged, hostile or otherwise cannot be read."""

    def __init__(self, reason: str, *, fmt: str | None = None) -> None:
        text = (
            f"{fmt} workbook is unreadable: {reason}" if fmt else f"unreadable workbook: {reason}"
        )
        super().__init__(text)
        self.reason = reason
        self.fmt = fmt

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild_unreadable, (type(self), self.reason, self.fmt))


class LimitExceeded(UnreadableWorkbook):
    """A guard's limit was exceeded: `limit` names the `Limits` field, `actual` the value seen."""

    def __init__(self, limit: str, actual: int, allowed: int, *, fmt: str | None = None) -> None:
        super().__init__(f"{limit} is {actual}, above the limit {allowed}", fmt=fmt)
        self.limit = limit
        self.actual = actual
        self.allowed = allowed

    def __reduce__(self) -> tuple[object, ...]:
        return (
            _rebuild_limit,
            (self.limit, self.actual, self.allowed, self.fmt),
        )


def _rebuild_unreadable(
    cls: type[UnreadableWorkbook], reason: str, fmt: str | None
) -> UnreadableWorkbook:
    return cls(reason, fmt=fmt)


def _rebuild_limit(limit: str, actual: int, allowed: int, fmt: str | None) -> LimitExceeded:
    return LimitExceeded(limit, actual, allowed, fmt=fmt)
