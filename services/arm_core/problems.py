"""Errors of the REST API as problem details (RFC 9457, `application/problem+json`)."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DBAPIError
from starlette.exceptions import HTTPException as StarletteHTTPException

from services.arm_core.exceptions import ApiProblem
from services.arm_core.problem_types import INVALID_REQUEST, UNAVAILABLE

__all__ = ["PROBLEM_JSON", "install_problem_handlers", "problem_response"]

PROBLEM_JSON = "application/problem+json"

log = logging.getLogger("services.arm_core.problems")


def problem_response(
    status: int, title: str, detail: str, *, type_: str = "about:blank", **extra: Any
) -> JSONResponse:
    """A problem-details response."""
    body = {"type": type_, "title": title, "status": status, "detail": detail, **extra}
    return JSONResponse(body, status_code=status, media_type=PROBLEM_JSON)


async def _api_problem(_request: Request, exc: Exception) -> JSONResponse:
    if not isinstance(exc, ApiProblem):  # registered for ApiProblem only
        raise exc
    return problem_response(exc.status, exc.title, exc.detail, type_=exc.type)


async def _validation(_request: Request, exc: Exception) -> JSONResponse:
    if not isinstance(exc, RequestValidationError):  # registered for it only
        raise exc
    errors = [
        {"loc": list(error.get("loc", ())), "msg": str(error.get("msg", ""))}
        for error in exc.errors()
    ]
    where = ", ".join(".".join(str(p) for p in e["loc"]) for e in errors) or "request"
    return problem_response(
        INVALID_REQUEST.status,
        INVALID_REQUEST.title,
        f"invalid or missing: {where}",
        type_=INVALID_REQUEST.uri,
        errors=errors,
    )


async def _http(_request: Request, exc: Exception) -> JSONResponse:
    if not isinstance(exc, StarletteHTTPException):  # registered for it only
        raise exc
    return problem_response(exc.status_code, _title(exc.status_code), str(exc.detail))


def _title(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


async def _database(_request: Request, exc: Exception) -> JSONResponse:
    # The driver's text may hold the URL or the statement: only the class is logged.
    log.error("database failure answering a request: %s", type(exc).__name__)
    return problem_response(
        UNAVAILABLE.status,
        UNAVAILABLE.title,
        "the database is unavailable; try again later",
        type_=UNAVAILABLE.uri,
    )


def install_problem_handlers(app: FastAPI) -> None:
    """Make every error of `app` a problem-details response."""
    app.add_exception_handler(ApiProblem, _api_problem)
    app.add_exception_handler(DBAPIError, _database)
    app.add_exception_handler(RequestValidationError, _validation)
    app.add_exception_handler(StarletteHTTPException, _http)
