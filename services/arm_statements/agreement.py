"""Whether the same figure agrees across documents: one line, one period date, many sources.

A borrower's documents print the same figures more than once: year N's balance repeats year
N−1's closing balance in its previous-year column, a scan and an Excel export carry the same
form, a corrected value stands beside the others. These rules take each document's figures
(``figures_of``) and report every (line code, period date) whose amounts differ by more than
rounding to the coarser unit explains (``disagreements``).

Units are normalised to rubles before comparing: «руб.» = 1, «тыс. руб.» = 1 000, «млн. руб.» =
1 000 000. Two amounts agree when they differ by less than one unit of the coarser of the two
documents (a figure printed in thousands is the ruble figure rounded, or truncated, to a
thousand). A document whose units are unknown gives no figures: comparing it would guess a
scale. Per-share lines (2900, 2910) are printed in rubles whatever the form's units.
Pure: no I/O, no clock; see docs/dossier.md.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Final

from services.arm_statements.money import format_money, parse_money
from services.arm_statements.periods import resolve_relative

__all__ = [
    "RUBLE_LINES",
    "UNIT_SCALE",
    "Disagreement",
    "Figure",
    "Source",
    "disagreements",
    "figures_of",
]

UNIT_SCALE: Final[Mapping[str, Decimal]] = {
    "руб.": Decimal(1),
    "тыс. руб.": Decimal(1000),
    "млн. руб.": Decimal(1_000_000),
}
"""Rubles per printed unit, by the normalised units of a statement's header."""

RUBLE_LINES: Final = frozenset({"2900", "2910"})
"""Lines printed in rubles whatever the form's units (basic and diluted earnings per share)."""


@dataclass(frozen=True, slots=True)
class Source:
    """Where a figure comes from: a stored document (``document``) or an official filing."""

    document_id: str
    kind: str = "document"


@dataclass(frozen=True, slots=True)
class Figure:
    """One printed amount: a line's value for one period date, in the document's units."""

    source: Source
    line_code: str
    period_date: dt.date
    amount: Decimal
    units: str
    needs_review: bool = False
    place: tuple[int, int] | None = None
    """Where the source prints it: (position in `lines[]`, `column_index`)."""

    @property
    def rubles(self) -> Decimal:
        """The amount in rubles."""
        return self.amount * self.scale

    @property
    def scale(self) -> Decimal:
        """Rubles per unit of this figure (per-share lines are always in rubles)."""
        return Decimal(1) if self.line_code in RUBLE_LINES else UNIT_SCALE[self.units]


@dataclass(frozen=True, slots=True)
class Disagreement:
    """Figures of one line and period date that rounding to the coarser unit cannot explain.

    ``amounts`` and ``difference`` are in ``units`` (the coarsest units among the figures).
    """

    line_code: str
    period_date: dt.date
    units: str
    figures: tuple[Figure, ...]

    @property
    def difference(self) -> Decimal:
        """The largest amount minus the smallest, in ``units``."""
        rubles = [f.rubles for f in self.figures]
        return (max(rubles) - min(rubles)) / UNIT_SCALE[self.units]

    def amount_of(self, figure: Figure) -> Decimal:
        """``figure``'s amount in this disagreement's ``units``."""
        return figure.rubles / UNIT_SCALE[self.units]

    def as_json(self) -> dict[str, Any]:
        """The API's shape: ``{line_code, period_date, documents, difference, units}``."""
        return {
            "line_code": self.line_code,
            "period_date": self.period_date.isoformat(),
            "documents": [
                {
                    "document_id": f.source.document_id,
                    "source": f.source.kind,
                    "amount": format_money(self.amount_of(f)),
                    "needs_review": f.needs_review,
                    "line": f.place[0] if f.place else None,
                    "column_index": f.place[1] if f.place else None,
                }
                for f in self.figures
            ],
            "difference": format_money(self.difference),
            "units": self.units,
        }


def _date(value: object) -> dt.date | None:
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            return None
    return None


def _column_dates(document: Mapping[str, Any]) -> dict[int, dt.date]:
    """Each value column's period date: printed, or resolved from the report date."""
    header = document.get("header") or {}
    report_date = _date(header.get("report_date"))
    dates: dict[int, dt.date] = {}
    for column in document.get("columns") or ():
        index = column.get("column_index")
        if not isinstance(index, int):
            continue
        date = _date(column.get("period_date"))
        if date is None:
            date = resolve_relative(column.get("period_kind") or "none", report_date)
        if date is not None:
            dates[index] = date
    return dates


def figures_of(source: Source, document: Mapping[str, Any]) -> list[Figure]:
    """The figures a statementDocument (2.0 shape, corrections applied) prints.

    A value gives a figure when its line has a code, its column a period date and its amount is
    money; a document with unknown units gives none (see the module docstring).
    """
    units = (document.get("header") or {}).get("units")
    if not isinstance(units, str) or units not in UNIT_SCALE:
        return []
    dates = _column_dates(document)
    figures: list[Figure] = []
    for position, line in enumerate(document.get("lines") or ()):
        code = line.get("line_code")
        if not isinstance(code, str) or not code:
            continue
        for value in line.get("values") or ():
            date = dates.get(value.get("column_index"))
            amount = parse_money(value.get("amount"))
            if date is None or amount is None:
                continue
            doubted = bool(value.get("needs_review") or line.get("needs_review"))
            place = (position, value["column_index"])
            figures.append(Figure(source, code, date, amount, units, doubted, place))
    return figures


def _coarsest(figures: Sequence[Figure]) -> str:
    return max((f.units for f in figures), key=lambda units: UNIT_SCALE[units])


def _agree(figures: Sequence[Figure]) -> bool:
    rubles = [f.rubles for f in figures]
    coarse = max(f.scale for f in figures)
    return max(rubles) - min(rubles) < coarse


def disagreements(figures: Iterable[Figure]) -> list[Disagreement]:
    """Every (line code, period date) printed by two or more sources that do not agree.

    A source printing one line twice for a date (two columns of one date) counts once, with its
    first value. Ordered by period date, then line code.
    """
    groups: dict[tuple[str, dt.date], dict[Source, Figure]] = defaultdict(dict)
    for figure in figures:
        groups[(figure.line_code, figure.period_date)].setdefault(figure.source, figure)
    found: list[Disagreement] = []
    for (code, date), by_source in sorted(
        groups.items(), key=lambda item: (item[0][1], item[0][0])
    ):
        group = list(by_source.values())
        if len(group) < 2 or _agree(group):
            continue
        units = "руб." if code in RUBLE_LINES else _coarsest(group)
        found.append(Disagreement(code, date, units, tuple(group)))
    return found
