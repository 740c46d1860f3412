"""Reviewed means reviewed: the mark is refused while doubts remain unless the request confirms
their exact count; the log keeps who confirmed how many; the page asks with the number."""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.app import CoreApp
from tests.arm_core.web._doubtful import doubtful_income_xlsx
from tests.arm_core.web._recognition import Recognised, upload_and_recognize

pytestmark = pytest.mark.db

PROBLEM = "urn:arm-ka:problem:doubts-left"


@pytest.fixture
async def income(
    app: CoreApp, client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession]
) -> Recognised:
    """The ОФР with one unreadable amount (one doubt), uploaded and recognised."""
    return await upload_and_recognize(app, client, sessions, "ofr.xlsx", doubtful_income_xlsx())


async def test_marking_reviewed_with_doubts_left_needs_their_exact_count(
    client: httpx.AsyncClient, income: Recognised
) -> None:
    """No count, or a wrong one: 409 doubts-left naming the count, nothing stored; the exact
    count: stored, with the count and the analyst in the log and in `review`."""
    url = f"/api/v1/documents/{income.document_id}/corrections"
    for body in ({"kind": "reviewed"}, {"kind": "reviewed", "confirm_doubts": 2}):
        refused = await client.post(url, json=body)
        assert refused.status_code == 409, refused.text
        problem = refused.json()
        assert refused.headers["content-type"].startswith("application/problem+json")
        assert (problem["type"], problem["doubts_left"]) == (PROBLEM, 1)
        assert "1" in problem["detail"]
    assert (await client.get(url)).json() == []
    marked = await client.post(url, json={"kind": "reviewed", "confirm_doubts": 1})
    assert marked.status_code == 201, marked.text
    body = marked.json()
    assert body["reviewed"] is True
    assert body["review"]["confirmed_doubts"] == 1
    assert body["review"]["doubts_left"] == 1
    [mark] = body["corrections"]
    assert (mark["kind"], mark["new_value"], mark["author"]) == ("reviewed", "1", "local")


async def test_without_doubts_the_mark_needs_no_count(
    client: httpx.AsyncClient, income: Recognised
) -> None:
    """The doubt corrected: the plain mark is taken, and records no confirmed doubts."""
    url = f"/api/v1/documents/{income.document_id}/corrections"
    fixed = {"kind": "value", "line": 1, "column_index": 3, "value": "(118 450)"}
    assert (await client.post(url, json=fixed)).status_code == 201
    marked = await client.post(url, json={"kind": "reviewed"})
    assert marked.status_code == 201, marked.text
    review = marked.json()["review"]
    assert (review["state"], review["doubts_left"], review["confirmed_doubts"]) == (
        "reviewed",
        0,
        None,
    )


async def test_the_page_asks_with_the_number_and_confirms_it(
    client: httpx.AsyncClient, income: Recognised
) -> None:
    """The page's mark with a doubt left answers a question naming the count whose button
    sends it; sent, the page says reviewed and how many doubts were left."""
    asked = await client.post(f"{income.page}/corrections", data={"kind": "reviewed"})
    assert asked.status_code == 409
    assert asked.headers["HX-Retarget"] == "#panel-message"
    assert 'name="confirm_doubts" value="1"' in asked.text
    assert "Отметить проверенным с 1 сомнительными" in asked.text
    done = await client.post(
        f"{income.page}/corrections", data={"kind": "reviewed", "confirm_doubts": "1"}
    )
    assert done.status_code == 200, done.text
    assert 'data-review="reviewed"' in done.text
    assert "оставлено сомнительных: 1" in done.text
