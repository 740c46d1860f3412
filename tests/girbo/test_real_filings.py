"""The reader on 1,309 real ГИР БО filings (../shared/samples/public; skipped when absent): in
the printed form's signs the ОФР adds up as printed (2100 = 2110 + 2120 with 2120 negative …),
which is what proves the sign convention; and the fake serves them to the client unchanged."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from services.girbo import (
    FakeGirbo,
    FakeGirboServer,
    GirboClient,
    filing_figures,
    filing_year,
    load_filings,
)

pytestmark = pytest.mark.shared

_EXPORT = (
    Path(__file__).resolve().parents[3]
    / "shared/samples/public/grind-t_bo-nalog__exports_bfo.json.br"
)
# In printed signs every term is added: deductions are already negative.
_FULL = {
    "2100": ("2110", "2120"),
    "2200": ("2100", "2210", "2220"),
    "2300": ("2200", "2310", "2320", "2330", "2340", "2350"),
    "2400": ("2300", "2410", "2460", "2420"),
}
_SIMPLIFIED = {"2400": ("2110", "2120", "2330", "2340", "2350", "2410")}


@pytest.fixture(scope="module")
def filings() -> list[dict[str, Any]]:
    if not _EXPORT.exists():
        pytest.skip(f"shared sample absent: {_EXPORT}")
    pytest.importorskip("brotli")
    return load_filings(_EXPORT)


def test_the_income_statement_adds_up_in_printed_signs(filings: list[dict[str, Any]]) -> None:
    checked: Counter[str] = Counter()
    held: Counter[str] = Counter()
    for one in filings:
        inn = one["organizationInfo"]["inn"]
        simplified = str(one["knd"]).startswith("0710096")
        values: dict[tuple[str, object], Decimal] = {
            (f.line_code, f.period_date): f.amount for f in filing_figures(inn, one)
        }
        dates = {date for _code, date in values}
        for total, terms in (_SIMPLIFIED if simplified else _FULL).items():
            name = f"{'simplified ' if simplified else ''}{total}"
            for date in dates:
                if (total, date) not in values or (terms[0], date) not in values:
                    continue
                checked[name] += 1
                expected = sum((values.get((t, date), Decimal(0)) for t in terms), Decimal(0))
                held[name] += abs(values[(total, date)] - expected) <= 4
    assert len(filings) == 1309
    shares = {name: held[name] / checked[name] for name in checked}
    assert shares["2100"] > 0.995
    assert shares["2200"] > 0.99
    assert shares["2300"] > 0.99
    assert shares["2400"] > 0.98
    assert shares["simplified 2400"] > 0.95


@pytest.fixture(scope="module")
def served(filings: list[dict[str, Any]]) -> Iterator[FakeGirboServer]:
    with FakeGirboServer(FakeGirbo(filings)) as server:
        yield server


async def test_the_fake_serves_real_filings_to_the_client(
    filings: list[dict[str, Any]], served: FakeGirboServer
) -> None:
    """For a few real organisations the client's figures are the reader's, year by year."""
    inns = sorted({f["organizationInfo"]["inn"] for f in filings})[:5]
    client = GirboClient(served.url)
    for inn in inns:
        own = [f for f in filings if f["organizationInfo"]["inn"] == inn]
        year = max(filing_year(f) or 0 for f in own)
        answer = await client.lookup(inn, [year])
        expected = {
            (x.line_code, x.period_date): x.amount
            for x in filing_figures(inn, next(f for f in own if filing_year(f) == year))
        }
        got = {(x.line_code, x.period_date): x.amount for x in answer.figures}
        assert answer.state == "compared"
        assert {k: got[k] for k in expected} == expected
