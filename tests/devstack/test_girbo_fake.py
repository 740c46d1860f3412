"""`make run --girbo`: the fake ГИР БО serves the sample company's filing (or a file's)."""

from __future__ import annotations

import json
from pathlib import Path

from services.devstack.__main__ import _fake_girbo
from services.devstack._official import official_filing
from services.devstack._samples import ORG_INN
from services.girbo import GirboClient


async def test_the_fake_serves_the_sample_companys_filing_by_default() -> None:
    with _fake_girbo(None) as url:
        answer = await GirboClient(url).lookup(ORG_INN, [2024])
    assert answer.state == "compared"
    assert answer.filings == (f"girbo:{ORG_INN}:2024",)


async def test_the_fake_serves_the_filings_of_a_file(tmp_path: Path) -> None:
    path = tmp_path / "filings.json"
    path.write_text(json.dumps([official_filing(2023, inn="7707083893")]), encoding="utf-8")
    with _fake_girbo(path) as url:
        client = GirboClient(url)
        found = await client.lookup("7707083893", [2023])
        sample = await client.lookup(ORG_INN, [2024])
    assert (found.state, found.filings) == ("compared", ("girbo:7707083893:2023",))
    assert sample.state == "not_found"
