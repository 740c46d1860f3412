"""A ГИР БО filing read as the figures its printed forms show: line code, period date, amount.

The public API (bo.nalog.gov.ru, `GET /nbo/organizations/{id}/bfo/`) answers one object per
reporting year: `period` ("2024"), `knd` (0710099 full, 0710096 simplified) and
`typeCorrections[].correction` whose `balance` holds `current1600`, `previous1600`,
`beforePrevious1600` (31 December of the year, of the year before, of the year before that)
and whose `financialResult` holds `current2110`, `previous2110` (the year, the year before).

What the data says (measured on 1,309 real filings, ../shared/notes/domain.md):

- amounts are thousands of rubles (ОКЕИ 384) whatever the paper form printed;
- the lines the form brackets (2120, 2210, 2220, 2330, 2350, 2411, 1320) are stored as
  positive numbers by ~96 % of filers (2 200 ОФР columns where 2100 = 2110 − 2120) and with a
  minus by the rest (81 where 2100 = 2110 + 2120): both mean a deduction, which the printed
  form shows in brackets and the recognisers emit negative, so they become −|amount|;
- 2410 is signed as printed in the full form (2400 = 2300 + 2410 + 2460 in 99 % of columns)
  but positive and subtracted in the simplified one, where it becomes −|amount| too;
- an НКО's section III is kept under 13x01 (13201 «Целевой капитал»): read as line 13x0 with
  its sign, as the НКО form prints it.

Pure: no I/O.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Collection, Iterable, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any, Final

from services.arm_statements.agreement import Figure, Source

__all__ = [
    "BRACKETED",
    "GIRBO",
    "UNITS",
    "filing_figures",
    "filing_source",
    "filing_year",
    "official_figures",
]

GIRBO: Final = "girbo"
"""The `Source.kind` of an official figure."""

UNITS: Final = "тыс. руб."
"""ГИР БО keeps every amount in thousands of rubles (ОКЕИ 384)."""

BRACKETED: Final = frozenset({"1320", "2120", "2210", "2220", "2330", "2350", "2411"})
"""Lines the printed form brackets (a deduction) whatever sign the filer typed."""

_SIMPLIFIED_BRACKETED: Final = frozenset({"2410"})
_SIMPLIFIED_KND: Final = "0710096"
# (form, column prefix, years before the filing's year); the longest prefix first.
_COLUMNS: Final = (
    ("balance", "beforePrevious", 2),
    ("balance", "previous", 1),
    ("balance", "current", 0),
    ("financialResult", "previous", 1),
    ("financialResult", "current", 0),
)
_CODE: Final = re.compile(r"^(?:(\d{4})|(13\d)01)$")  # 13201 is the НКО's 1320


def filing_year(filing: Mapping[str, Any]) -> int | None:
    """The reporting year of a filing (`period`), or None when it is not a year."""
    period = filing.get("period")
    if isinstance(period, str) and period.isdigit() and len(period) == 4:
        return int(period)
    if isinstance(period, int) and not isinstance(period, bool):
        return period
    return None


def filing_source(inn: str, filing: Mapping[str, Any]) -> Source:
    """The source of a filing's figures: `girbo:<ИНН>:<year>` (stable across corrections)."""
    return Source(f"girbo:{inn}:{filing_year(filing)}", GIRBO)


def _correction(filing: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The filing's latest correction (the highest `correctionVersion`) with a form in it."""
    found: list[Mapping[str, Any]] = []
    for entry in filing.get("typeCorrections") or ():
        correction = entry.get("correction") if isinstance(entry, Mapping) else None
        if isinstance(correction, Mapping) and (
            correction.get("balance") or correction.get("financialResult")
        ):
            found.append(correction)
    if not found and (filing.get("balance") or filing.get("financialResult")):
        return filing  # the forms kept on the filing itself
    if not found:
        return None
    return max(found, key=lambda c: c.get("correctionVersion") or 0)


def _amount(raw: object) -> Decimal | None:
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        return None
    try:
        amount = Decimal(str(raw))
    except InvalidOperation:  # pragma: no cover - str() of an int or float is a decimal
        return None
    return amount if amount.is_finite() else None


def _printed(code: str, amount: Decimal, *, simplified: bool) -> Decimal:
    """The amount in the printed form's sign convention (brackets → negative)."""
    if code in BRACKETED or (simplified and code in _SIMPLIFIED_BRACKETED):
        return -abs(amount)
    return amount


def filing_figures(inn: str, filing: Mapping[str, Any]) -> list[Figure]:
    """Every amount of a filing's balance and ОФР, in the printed form's signs and in
    thousands; lines with no amount (null) give none."""
    year = filing_year(filing)
    correction = _correction(filing)
    if year is None or correction is None:
        return []
    knd = str(filing.get("knd") or correction.get("knd") or "")
    simplified = knd.startswith(_SIMPLIFIED_KND)
    source = filing_source(inn, filing)
    figures: list[Figure] = []
    for form, prefix, back in _COLUMNS:
        values = correction.get(form)
        if not isinstance(values, Mapping):
            continue
        date = dt.date(year - back, 12, 31)
        lines: dict[str, Decimal] = {}
        nko: dict[str, Decimal] = {}
        for key, raw in values.items():
            match = _CODE.match(key[len(prefix) :]) if key.startswith(prefix) else None
            amount = _amount(raw)
            if match is not None and amount is not None:
                if match.group(1):
                    lines[match.group(1)] = amount
                else:
                    nko[match.group(2) + "0"] = amount
        for code in {**nko, **lines}:  # a four-digit line wins over its 13x01 twin
            if code in lines:
                amount = _printed(code, lines[code], simplified=simplified)
            else:
                amount = nko[code]  # an НКО's section III, with the sign its form prints
            figures.append(Figure(source, code, date, amount, UNITS))
    return figures


def official_figures(
    inn: str, filings: Iterable[Mapping[str, Any]], years: Collection[int]
) -> tuple[list[Figure], list[str]]:
    """The official figures for statements of `years`: the filings of those years and of the
    year after (its previous-year columns), one figure per line and date — the filing of the
    date's own year first, else the nearest later one. Also the ids of the filings used."""
    wanted = {y for year in years for y in (year, year + 1)}
    chosen = sorted(
        (f for f in filings if filing_year(f) in wanted),
        key=lambda f: filing_year(f) or 0,
    )
    best: dict[tuple[str, dt.date], tuple[int, Figure]] = {}
    for filing in chosen:
        year = filing_year(filing) or 0
        for figure in filing_figures(inn, filing):
            key = (figure.line_code, figure.period_date)
            rank = year - figure.period_date.year  # 0: the date's own filing
            if key not in best or rank < best[key][0]:
                best[key] = (rank, figure)
    figures = [figure for _rank, figure in best.values()]
    used = sorted({f.source.document_id for f in figures})
    return figures, used
