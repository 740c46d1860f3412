"""After a correction, values a now holding relation confirms are settled by it, as the
recogniser settles them: no confirm is left to make for each of them.

The 157n balance prints no codes (they are inferred from the names, so an amount no holding
relation covers is in doubt); its asset total is misprinted 1900 for 1000, so 1600 = Σ assets
fails and every asset of that column is in doubt. Typing 1000 into 1600 settles them all.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.app import CoreApp
from tests.arm_core.web._recognition import upload_and_recognize
from tests.builders import write_xlsx
from tests.tabular_parser.statements import _forms as f

ASSETS = ("1150", "1170", "1210", "1250", "1230")


def _misprinted_balance() -> bytes:
    spec = f.codeless_157n()
    row, col = f.find_cell(spec, 1000)  # the asset БАЛАНС of the first column
    return write_xlsx([f.with_cell(spec, row, col, 1900)])


def _values(document: dict[str, Any], column: int) -> dict[str, dict[str, Any]]:
    return {
        line["line_code"]: value
        for line in document["lines"]
        for value in line["values"]
        if value["column_index"] == column and line["line_code"]
    }


@pytest.mark.db
async def test_correcting_the_total_settles_the_terms_it_now_covers(
    app: CoreApp, client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession]
) -> None:
    recognised = await upload_and_recognize(
        app, client, sessions, "balance.xlsx", _misprinted_balance()
    )
    api = f"/api/v1/documents/{recognised.document_id}"
    before = (await client.get(f"{api}/corrected")).json()
    document = before["document"]
    total = next(i for i, ln in enumerate(document["lines"]) if ln["line_code"] == "1600")
    column = min(c["column_index"] for c in document["columns"])
    doubted = _values(document, column)
    assert all(doubted[code]["needs_review"] for code in ASSETS)
    assert document["checks"]["relations_failed"]

    fixed = {"kind": "value", "line": total, "column_index": column, "value": "1000"}
    after = (await client.post(f"{api}/corrections", json=fixed)).json()
    values = _values(after["document"], column)
    assert not any(values[code]["needs_review"] for code in ASSETS)
    assert after["document"]["checks"]["relations_failed"] == []
    assert after["review"]["doubts_left"] <= before["review"]["doubts_left"] - len(ASSETS) - 1
    assert [c["kind"] for c in after["corrections"]] == ["value"]  # no confirm was needed
    page = (await client.get(recognised.page)).text
    lines = after["document"]["lines"]
    for code in ASSETS:
        index = next(i for i, ln in enumerate(lines) if ln["line_code"] == code)
        cell = page.split(f'id="v-{index}-{column}"')[0].rsplit("<td", 1)[1]
        assert " settled" in cell, code
