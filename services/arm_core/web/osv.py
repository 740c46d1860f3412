"""The ОСВ page's failed control sums: each named in Russian with the row it concerns, and
the page of rows that row is on, so «следующая ошибка» can walk them across pages.

An ОСВ's `checks.failed[]` name a row by its `ref` (the sheet cell of the row); the page finds
the row's position among the document's rows (in their order) and so its page.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from services.arm_core.web.views import money
from services.contract.models.result_v2_dicts import OsvCheckFailure, OsvChecks

__all__ = ["OSV_CHECKS", "OsvCheck", "RowLabel", "error_steps", "osv_checks", "page_offset"]

OSV_CHECKS: dict[str, str] = {
    "ROW_BALANCE": "Сальдо на начало + обороты ≠ сальдо на конец",
    "CHILDREN_SUM": "Сумма подчинённых строк ≠ строке счёта",
    "TOTAL_SUM": "Итог ≠ сумме счетов",
    "DEBIT_EQUALS_CREDIT": "Дебет ≠ кредиту по счетам баланса",
}
"""What each control sum of an ОСВ found wrong, in the analyst's words."""

_COLUMNS: dict[str, str] = {
    "opening_debit": "сальдо на начало, Дт",
    "opening_credit": "сальдо на начало, Кт",
    "turnover_debit": "обороты, Дт",
    "turnover_credit": "обороты, Кт",
    "closing_debit": "сальдо на конец, Дт",
    "closing_credit": "сальдо на конец, Кт",
    "closing_balance": "сальдо на конец",
    "opening": "сальдо на начало",
    "turnover": "обороты",
    "closing": "сальдо на конец",
}


@dataclass(frozen=True, slots=True)
class RowLabel:
    """What identifies a row to an analyst: its `ref`, account and name."""

    ref: str | None
    account: str | None
    name: str | None


@dataclass(frozen=True, slots=True)
class OsvCheck:
    """One failed control sum: its number (1-based), what failed, where and by how much.

    `row` is the row's position among the document's rows (None: no row has the `ref`);
    `field` the sum column it names (None for a whole row or a pair of columns)."""

    number: int
    check: str
    title: str
    column: str
    field: str | None
    expected: str
    actual: str
    row: int | None
    account: str | None
    name: str | None


def osv_checks(checks: OsvChecks | None, rows: Sequence[RowLabel]) -> list[OsvCheck]:
    """The failed control sums of an ОСВ in row order (those without a row last)."""
    positions: dict[str, int] = {}
    for index, label in enumerate(rows):
        if label.ref is not None:
            positions.setdefault(label.ref, index)
    found: list[tuple[int, int, OsvCheckFailure]] = []
    failures = (checks.get("failed") or []) if checks is not None else []
    for order, failure in enumerate(failures):
        position = positions.get(str(failure.get("ref")))
        found.append((position if position is not None else len(rows), order, failure))
    found.sort(key=lambda item: item[:2])
    out: list[OsvCheck] = []
    for number, (row, _order, failure) in enumerate(found, start=1):
        check = str(failure.get("check"))
        column = str(failure.get("column") or "")
        found_label = rows[row] if row < len(rows) else None
        out.append(
            OsvCheck(
                number=number,
                check=check,
                title=OSV_CHECKS.get(check, check),
                column=_COLUMNS.get(column, column),
                field=column if column.endswith(("_debit", "_credit")) else None,
                expected=money(failure.get("expected")),
                actual=money(failure.get("actual")),
                row=row if found_label is not None else None,
                account=found_label.account if found_label else None,
                name=found_label.name if found_label else None,
            )
        )
    return out


def page_offset(row: int, limit: int) -> int:
    """The offset of the page of `limit` rows that shows `row`."""
    return row - row % limit


def error_steps(
    checks: Sequence[OsvCheck], current: OsvCheck | None, offset: int
) -> tuple[int | None, int | None]:
    """The numbers of the previous and the next failed check: around the `current` one, or,
    on a plain page of rows, the last one above the page and the first one on or below it."""
    if current is not None:
        previous = current.number - 1 if current.number > 1 else None
        following = current.number + 1 if current.number < len(checks) else None
        return previous, following
    above = [c.number for c in checks if c.row is not None and c.row < offset]
    below = [c.number for c in checks if c.row is None or c.row >= offset]
    return (above[-1] if above else None), (below[0] if below else None)
