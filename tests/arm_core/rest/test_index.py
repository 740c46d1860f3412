"""`GET /api/v1`, the API's root: an index naming every route of the API, so the URL `make run`
prints answers 200 and a newcomer finds the resources from there."""

from __future__ import annotations

import httpx
import pytest

from services.arm_core.app import CoreApp
from services.arm_core.rest.index import RESOURCES
from services.arm_core.rest.schemas import API_PREFIX

pytestmark = [pytest.mark.db]


async def test_the_api_root_answers_an_index_of_its_resources(client: httpx.AsyncClient) -> None:
    resp = await client.get(API_PREFIX)
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert (body["api"], body["docs_url"], body["openapi_url"]) == (
        "/api/v1",
        "/docs",
        "/openapi.json",
    )
    assert {r["name"] for r in body["resources"]} >= {"files", "jobs", "document"}
    files = next(r for r in body["resources"] if r["name"] == "files")
    assert (files["url"], files["methods"]) == ("/api/v1/files", ["GET", "POST"])
    # The links it gives lead somewhere: the list of files and the documentation answer.
    assert (await client.get(files["url"])).status_code == 200
    assert (await client.get(body["docs_url"])).status_code == 200
    assert (await client.get(body["openapi_url"])).status_code == 200


async def test_the_index_names_every_route_of_the_api_and_no_other(app: CoreApp) -> None:
    """A route added without its index entry (or an entry left after its route) fails here."""
    routes = {
        path: {method.upper() for method in operations}
        for path, operations in app.api.openapi()["paths"].items()
        if path.startswith(API_PREFIX + "/")
    }
    indexed = {r.url: set(r.methods) for r in RESOURCES}
    assert indexed == routes
