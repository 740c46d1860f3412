"""The official filing a dossier is held against: the `OfficialFilings` seam.

arm-core does not know where official figures come from: the app wires a client (the ГИР БО
public API, `services.girbo`, when `OPENBAO__GIRBO__GIRBO_URL` is set) that answers the
figures of an organisation's filings as `arm_statements.agreement` figures; they join the
documents' own in the same `disagreements` rule. A client never raises: an unreachable service
leaves the dossier without official figures, and the dossier says why (`Official.state`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from services.arm_statements.agreement import Figure

__all__ = ["OFF", "Official", "OfficialAnswer", "OfficialFilings", "official_of"]


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
    return Official(answer.state, tuple(answer.filings), tuple(answer.figures))
