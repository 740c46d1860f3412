"""The OpenAPI document says who may call what: the two security schemes, and 401/403 on
every operation that needs a role (every /api/v1 one), none on the open ones."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from services.arm_core.app import create_app
from services.arm_core.rest.openapi import openapi_document
from services.arm_core.settings import CoreSettings
from services.runtime.settings import load_settings

DOCUMENT = Path(__file__).resolve().parents[3] / "openapi" / "arm-core.json"


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    app = create_app(load_settings(CoreSettings), run_background=False)
    return openapi_document(app.api)


def test_the_bearer_and_cookie_schemes_are_declared(document: dict[str, Any]) -> None:
    """`bearer` is HTTP bearer (JWT); `cookie` is the login cookie `arm_ka_token`."""
    schemes = document["components"]["securitySchemes"]
    assert schemes["bearer"]["type"] == "http" and schemes["bearer"]["scheme"] == "bearer"
    assert schemes["bearer"]["bearerFormat"] == "JWT"
    assert (schemes["cookie"]["type"], schemes["cookie"]["in"]) == ("apiKey", "cookie")
    assert schemes["cookie"]["name"] == "arm_ka_token"


def test_every_api_operation_is_secured_with_401_and_403(document: dict[str, Any]) -> None:
    """Each /api/v1 operation takes either scheme and lists the `unauthenticated` 401 and the
    `forbidden` 403 problems; /healthcheck is open and lists neither."""
    operations = [
        (path, method, op)
        for path, item in document["paths"].items()
        for method, op in item.items()
    ]
    api = [(p, m, op) for p, m, op in operations if p.startswith("/api/v1/")]
    assert len(api) >= 10
    for path, method, op in api:
        assert op["security"] == [{"bearer": []}, {"cookie": []}], (path, method)
        for status, slug in (("401", "unauthenticated"), ("403", "forbidden")):
            examples = op["responses"][status]["content"]["application/problem+json"]["examples"]
            assert slug in examples, (path, method, status)
    health = document["paths"]["/healthcheck"]["get"]
    assert "security" not in health
    assert not {"401", "403"} & set(health["responses"])


def test_the_committed_document_says_the_same(document: dict[str, Any]) -> None:
    """openapi/arm-core.json (what integrators read) carries the same security."""
    committed = json.loads(DOCUMENT.read_text(encoding="utf-8"))
    assert committed["components"]["securitySchemes"] == document["components"]["securitySchemes"]
    assert committed["paths"]["/api/v1/files/{file_id}"]["delete"]["security"] == [
        {"bearer": []},
        {"cookie": []},
    ]
