"""The official filing: a client of the ГИР БО public API (bo.nalog.gov.ru) and its fake.

`GirboClient(url).lookup(inn, years)` answers the official figures of an organisation's
filings as `arm_statements.agreement` figures (source kind `girbo`, thousands of rubles, the
printed form's signs); it never raises. `FakeGirboServer(FakeGirbo(filings))` serves filings
given as data on loopback, for the tests and `make run --girbo`. No service imports this
package but arm-core's app, which wires it behind its `OfficialFilings` seam.
"""

from __future__ import annotations

from services.girbo.client import GirboClient, Lookup, LookupState, plain_inn
from services.girbo.fake import FakeGirbo, FakeGirboServer, filing, load_filings
from services.girbo.filing import (
    BRACKETED,
    GIRBO,
    UNITS,
    filing_figures,
    filing_source,
    filing_year,
    official_figures,
)

__all__ = [
    "BRACKETED",
    "GIRBO",
    "UNITS",
    "FakeGirbo",
    "FakeGirboServer",
    "GirboClient",
    "Lookup",
    "LookupState",
    "filing",
    "filing_figures",
    "filing_source",
    "filing_year",
    "load_filings",
    "official_figures",
    "plain_inn",
]
