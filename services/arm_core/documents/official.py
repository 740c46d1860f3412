"""The official filing a dossier is held against: the `OfficialFilings` seam.

arm-core does not know where official figures come from: the app wires a client (the ГИР БО
public API, `services.girbo`, when `OPENBAO__GIRBO__GIRBO_URL` is set) that answers the
figures of an organisation's filings as `arm_statements.agreement` figures; they join the
documents' own in the same `disagreements` rule. A client never raises: an unreachable service
leaves the dossier without official figures, and the dossier says why (`Official.state`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from services.arm_statements.agreement import Figure

__all__ = [
    "OFF",
    "Official",
    "OfficialAnswer",
    "OfficialFilings",
    "in_documents_signs",
    "official_of",
]


class OfficialAnswer(Protocol):
    """What an official source holds for an ИНН and years."""

    @property
    def state(self) -> str:
        """`compared`, `not_found` or `unavailable`."""
        ...

    @property
    def figures(self) -> Sequence[Figure]: ...

    @property
    def filings(self) -> Sequence[str]:
        """The source ids of the filings the figures come from."""
        ...

    @property
    def deductions(self) -> Collection[str]:
        """The lines the source holds as deductions (negative, the form's brackets): a
        document printing one as a plain number presents the same figure."""
        ...


class OfficialFilings(Protocol):
    """A source of official figures; `lookup` never raises."""

    async def lookup(self, inn: str, years: Collection[int]) -> OfficialAnswer: ...


@dataclass(frozen=True, slots=True)
class Official:
    """What a dossier says of the official filing: `off` (no source configured), `no_inn` (a
    dossier by name), `no_report_year` (no statement with a report date), or the source's
    answer (`compared`, `not_found`, `unavailable`) with the filings compared."""

    state: str
    filings: tuple[str, ...] = ()
    figures: tuple[Figure, ...] = field(default=(), repr=False)
    deductions: frozenset[str] = frozenset()


OFF = Official("off")


async def official_of(
    source: OfficialFilings | None, inn: str | None, years: Collection[int]
) -> Official:
    """The official figures of `inn` for statements of `years`, or why there are none."""
    if source is None:
        return OFF
    if inn is None:
        return Official("no_inn")
    if not years:
        return Official("no_report_year")
    answer = await source.lookup(inn, years)
    return Official(
        answer.state, tuple(answer.filings), tuple(answer.figures), frozenset(answer.deductions)
    )


def in_documents_signs(official: Official, documents: Iterable[Figure]) -> list[Figure]:
    """The official figures, a deduction taken positive where every document printing that
    line and date prints it positive.

    A deduction line (`official.deductions`, e.g. 2120, 2210, 2220, 2330, 2350, 2411, 1320)
    comes from the filing negative; a borrower's workbook that prints it as a plain number
    presents the same figure, and a sign of presentation must not read as a disagreement.
    Lines whose sign means something (1370, 2400, 2410) are left as they are.
    """
    signs: dict[tuple[str, dt.date], set[bool]] = defaultdict(set)
    for figure in documents:
        signs[(figure.line_code, figure.period_date)].add(figure.amount > 0)
    aligned = []
    for figure in official.figures:
        printed = signs.get((figure.line_code, figure.period_date))
        if figure.line_code in official.deductions and figure.amount < 0 and printed == {True}:
            figure = dataclasses.replace(figure, amount=-figure.amount)
        aligned.append(figure)
    return aligned
