"""The OpenAPI document of the REST API and the offline `/docs` page.

FastAPI's document is completed here with what its decorators cannot say: every error response
carries the `Problem` schema under `application/problem+json` with one example per problem type
the route can give, FastAPI's own 422 (`HTTPValidationError`, never sent: the core answers a
problem) is replaced, every operation that needs a role (its `security` names the bearer token
or the login cookie) lists the 401 and 403 problems, and `/docs` loads Swagger UI from the vendored `swagger_ui/` folder, so
that the page works on a machine without internet.
"""

from __future__ import annotations

import html
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles

from services.arm_core.rest.problem_types import (
    FORBIDDEN,
    INVALID_REQUEST,
    UNAUTHENTICATED,
    ProblemType,
)
from services.arm_core.rest.problems import PROBLEM_JSON
from services.arm_core.rest.schemas import Problem

__all__ = ["DOCS_PATH", "SWAGGER_UI_DIR", "install_docs", "openapi_document", "problem_responses"]

DOCS_PATH = "/docs"
SWAGGER_UI_DIR = Path(__file__).with_name("swagger_ui")
_PROBLEM_REF = {"$ref": "#/components/schemas/Problem"}
_FASTAPI_422 = "#/components/schemas/HTTPValidationError"


def _example(problem: ProblemType) -> dict[str, Any]:
    return {
        "summary": problem.title,
        "value": {
            "type": problem.uri,
            "title": problem.title,
            "status": problem.status,
            "detail": problem.meaning,
        },
    }


def problem_responses(*problems: ProblemType) -> dict[int | str, dict[str, Any]]:
    """The `responses=` of a route: one entry per status, each problem type an example."""
    by_status: dict[int, list[ProblemType]] = defaultdict(list)
    for problem in problems:
        by_status[problem.status].append(problem)
    return {
        status: {
            "description": " ".join(f"`{p.slug}`: {p.meaning}" for p in group),
            "content": {
                PROBLEM_JSON: {
                    "schema": _PROBLEM_REF,
                    "examples": {p.slug: _example(p) for p in group},
                }
            },
        }
        for status, group in sorted(by_status.items())
    }


def openapi_document(app: FastAPI) -> dict[str, Any]:
    """The completed OpenAPI document of `app` (what `/openapi.json` serves)."""
    document = get_openapi(
        title=app.title,
        version=app.version,
        description=app.description,
        routes=app.routes,
        tags=app.openapi_tags,
    )
    schemas: dict[str, Any] = document.setdefault("components", {}).setdefault("schemas", {})
    schemas["Problem"] = Problem.model_json_schema(ref_template="#/components/schemas/{model}")
    invalid = problem_responses(INVALID_REQUEST)[INVALID_REQUEST.status]
    secured = {str(k): v for k, v in problem_responses(UNAUTHENTICATED, FORBIDDEN).items()}
    for path in document.get("paths", {}).values():
        for operation in path.values():
            responses = operation.get("responses", {})
            if operation.get("security"):
                responses.update(secured)
                operation["responses"] = responses = dict(sorted(responses.items()))
            given = responses.get("422")
            if given is None:
                continue
            content = given.get("content", {})
            fastapi_default = content.get("application/json", {}).get("schema", {})
            if fastapi_default.get("$ref") == _FASTAPI_422:
                responses["422"] = invalid
            elif INVALID_REQUEST.slug not in content.get(PROBLEM_JSON, {}).get("examples", {}):
                msg = f"{operation.get('operationId')}: 422 without {INVALID_REQUEST.slug}"
                raise ValueError(msg)
    for unused in ("HTTPValidationError", "ValidationError"):
        schemas.pop(unused, None)
    document["components"]["schemas"] = dict(sorted(schemas.items()))
    return document


def install_docs(app: FastAPI) -> None:
    """Serve the completed document at /openapi.json and Swagger UI, offline, at /docs."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = openapi_document(app)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    app.mount(f"{DOCS_PATH}/static", StaticFiles(directory=SWAGGER_UI_DIR), name="swagger-ui")

    @app.get(DOCS_PATH, include_in_schema=False)
    async def docs() -> HTMLResponse:
        # No inline script: the page's CSP allows scripts of this site only (script-src
        # 'self'), so Swagger UI is started by /docs/init.js.
        return HTMLResponse(
            _DOCS_PAGE.format(
                title=html.escape(f"{app.title} — API"),
                static=f"{DOCS_PATH}/static",
                init=f"{DOCS_PATH}/init.js",
            )
        )

    @app.get(f"{DOCS_PATH}/init.js", include_in_schema=False)
    async def docs_init() -> Response:
        config: dict[str, object] = {
            "url": app.openapi_url or "/openapi.json",
            "dom_id": "#swagger-ui",
            "validatorUrl": None,
            "deepLinking": True,
        }
        script = (
            f"window.ui = SwaggerUIBundle(Object.assign({json.dumps(config)}, "
            "{presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset],"
            " layout: 'BaseLayout'}));\n"
        )
        return Response(script, media_type="text/javascript")


_DOCS_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<link rel="stylesheet" href="{static}/swagger-ui.css">
<link rel="icon" href="{static}/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="{static}/swagger-ui-bundle.js"></script>
<script src="{init}"></script>
</body>
</html>
"""
