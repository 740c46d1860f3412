"""The OpenAPI document and the offline /docs page, as an integrator meets them."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from openapi_spec_validator import validate

from services.arm_core.app import CoreApp
from services.arm_core.rest.problem_types import PROBLEM_TYPES

ROOT = Path(__file__).resolve().parents[3]
COMMITTED = ROOT / "openapi" / "arm-core.json"


def _document() -> dict[str, Any]:
    body: dict[str, Any] = json.loads(COMMITTED.read_text(encoding="utf-8"))
    return body


def _operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method.upper(), path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
    ]


@pytest.mark.slow
def test_the_committed_document_is_what_the_code_generates() -> None:
    """`scripts/generate_openapi.py --check` passes (current and valid), as `make check` runs it."""
    run = subprocess.run(
        [sys.executable, "scripts/generate_openapi.py", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr


def test_the_document_is_valid_openapi() -> None:
    """openapi-spec-validator finds no error in the committed document."""
    validate(_document())


def test_each_route_has_one_tag() -> None:
    """No route shows up twice in the page: exactly one tag each."""
    for method, path, operation in _operations(_document()):
        assert len(operation["tags"]) == 1, (method, path, operation["tags"])


def test_routes_list_only_the_errors_they_can_give() -> None:
    """Only the upload can answer 400/413/415; only DELETE and a correction (the review mark
    with doubts left) 409; a route without a path id has
    no 404. Every error response is a Problem under application/problem+json with an example
    of each of its problem types, each type at its own status."""
    by_uri = {p.uri: p for p in PROBLEM_TYPES}
    for method, path, operation in _operations(_document()):
        statuses = {int(s) for s in operation["responses"]}
        if (method, path) != ("POST", "/api/v1/files"):
            assert not statuses & {400, 413, 415}, (method, path)
        conflicts = method == "DELETE" or (path.endswith("/corrections") and method == "POST")
        assert (409 in statuses) is conflicts, (method, path)
        if "{" not in path:
            assert 404 not in statuses, (method, path)
        for status, response in operation["responses"].items():
            if int(status) < 400:
                continue
            content = response["content"]
            assert list(content) == ["application/problem+json"], (method, path, status)
            body = content["application/problem+json"]
            assert body["schema"] == {"$ref": "#/components/schemas/Problem"}
            for example in body["examples"].values():
                assert by_uri[example["value"]["type"]].status == int(status)


def test_statuses_are_enums_and_normalized_has_a_schema() -> None:
    """`status` of a job, an upload and a document is an enum; /normalized documents its body."""
    schemas = _document()["components"]["schemas"]
    assert "dlq" in schemas["JobOut"]["properties"]["status"]["enum"]
    assert "queued" in schemas["UploadOut"]["properties"]["status"]["enum"]
    assert schemas["DocumentSummary"]["properties"]["status"]["enum"] == [
        "done",
        "needs_check",
        "error",
    ]
    normalized = _document()["paths"]["/api/v1/documents/{document_id}/normalized"]["get"]
    schema = normalized["responses"]["200"]["content"]["application/json"]["schema"]
    assert schema == {"$ref": "#/components/schemas/NormalizedDocument"}
    variants = {v["$ref"] for v in schemas["NormalizedDocument"]["anyOf"]}
    assert variants == {
        "#/components/schemas/OsvDocument",
        "#/components/schemas/StatementDocument",
    }


@pytest.mark.db
@pytest.mark.wire
async def test_docs_page_loads_only_local_assets(app: CoreApp, client: httpx.AsyncClient) -> None:
    """/docs names no http(s) URL; each script, style and icon it loads is served by the core
    itself; /openapi.json is the committed document."""
    page = await client.get("/docs")
    assert page.status_code == 200
    assert "http://" not in page.text and "https://" not in page.text
    assets = re.findall(r'(?:src|href)=["\']([^"\']+)["\']', page.text)
    assert any(a.endswith("swagger-ui-bundle.js") for a in assets)
    assert any(a.endswith("swagger-ui.css") for a in assets)
    for asset in assets:
        resp = await client.get(asset)
        assert resp.status_code == 200 and resp.content, asset
    served = (await client.get("/openapi.json")).json()
    assert served == _document()


@pytest.mark.db
@pytest.mark.wire
async def test_docs_page_has_no_inline_script(client: httpx.AsyncClient) -> None:
    """The page's CSP allows scripts of the site only: /docs starts Swagger UI from
    /docs/init.js (pointing it at /openapi.json), with no inline script or handler."""
    page = await client.get("/docs")
    assert "script-src 'self';" in page.headers["content-security-policy"]
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", page.text, re.S)
    assert scripts and all("src=" in attrs and not body.strip() for attrs, body in scripts)
    assert not re.search(r"\son[a-z]+=", page.text)
    init = await client.get("/docs/init.js")
    assert init.headers["content-type"].startswith("text/javascript")
    assert '"url": "/openapi.json"' in init.text and "SwaggerUIBundle(" in init.text
