"""Errors as answers: problem details (RFC 9457, `application/problem+json`), from one table.

The rooms below (jobs, documents, auth) raise arm-core's own exceptions and know nothing of
HTTP; `PROBLEM_OF` is the one place that says which problem type each of them is. A refusal of
authentication on a page is the pages' to answer (a login redirect, a 403 page).
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DBAPIError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from services.arm_core.auth import Forbidden, NotAuthenticated, page_refusal_of
from services.arm_core.exceptions import (
    ArmCoreError,
    DoubtsLeft,
    EmptyFile,
    FileOverLimits,
    FilesBusy,
    FileTooLarge,
    FileTypeMismatch,
    InvalidCorrection,
    InvalidFileName,
    JobInFlight,
    MissingFileName,
    NoEvidence,
    NotAnOsvDocument,
    NotFound,
    Refused,
    Unavailable,
    UnsupportedFileContent,
    UnsupportedFileType,
)
from services.arm_core.rest import problem_types as pt

__all__ = [
    "PROBLEM_JSON",
    "PROBLEM_OF",
    "error_response",
    "install_problem_handlers",
    "problem_of",
    "problem_response",
]

PROBLEM_JSON = "application/problem+json"

log = logging.getLogger("services.arm_core.rest.problems")

PROBLEM_OF: dict[type[ArmCoreError], pt.ProblemType] = {
    MissingFileName: pt.MISSING_FILE_NAME,
    InvalidFileName: pt.INVALID_FILE_NAME,
    EmptyFile: pt.EMPTY_FILE,
    FileTooLarge: pt.FILE_TOO_LARGE,
    UnsupportedFileType: pt.UNSUPPORTED_FILE_TYPE,
    UnsupportedFileContent: pt.UNSUPPORTED_FILE_CONTENT,
    FileTypeMismatch: pt.FILE_TYPE_MISMATCH,
    NotFound: pt.NOT_FOUND,
    JobInFlight: pt.JOB_IN_FLIGHT,
    NotAnOsvDocument: pt.NOT_AN_OSV_DOCUMENT,
    NoEvidence: pt.NO_EVIDENCE,
    InvalidCorrection: pt.INVALID_CORRECTION,
    DoubtsLeft: pt.DOUBTS_LEFT,
    NotAuthenticated: pt.UNAUTHENTICATED,
    Forbidden: pt.FORBIDDEN,
    Unavailable: pt.UNAVAILABLE,
    FileOverLimits: pt.FILE_OVER_LIMITS,
    FilesBusy: pt.FILES_BUSY,
}
"""Which problem type each exception of arm-core is (the nearest class in its MRO)."""


def problem_of(exc: ArmCoreError) -> pt.ProblemType | None:
    """The problem type of `exc` (None: an error no caller should see, a 500)."""
    for cls in type(exc).__mro__:
        problem = PROBLEM_OF.get(cls)
        if problem is not None:
            return problem
    return None


def problem_response(
    status: int, title: str, detail: str, *, type_: str = "about:blank", **extra: Any
) -> JSONResponse:
    """A problem-details response."""
    body = {"type": type_, "title": title, "status": status, "detail": detail, **extra}
    return JSONResponse(body, status_code=status, media_type=PROBLEM_JSON)


def _title(exc: ArmCoreError, problem: pt.ProblemType) -> str:
    if isinstance(exc, NotFound):
        return f"{exc.what.capitalize()} not found"
    return problem.title


def error_response(request: Request, exc: ArmCoreError) -> Response:
    """The answer to `exc`: the page's own, for a refused page request; else its problem
    document (with the challenge header of a refused token)."""
    if isinstance(exc, NotAuthenticated | Forbidden):
        page = page_refusal_of(request)
        answer = page(request, exc) if page is not None else None
        if answer is not None:
            return answer
    problem = problem_of(exc)
    if problem is None:
        log.error("unanswered error of arm-core: %s", type(exc).__name__)
        problem = pt.UNAVAILABLE
    detail = exc.detail if isinstance(exc, Refused | Unavailable) else problem.meaning
    extra = {"doubts_left": exc.count} if isinstance(exc, DoubtsLeft) else {}
    response = problem_response(
        problem.status, _title(exc, problem), detail, type_=problem.uri, **extra
    )
    if isinstance(exc, NotAuthenticated | Forbidden):
        response.headers["WWW-Authenticate"] = exc.www_authenticate
    return response


async def _arm_core_error(request: Request, exc: Exception) -> Response:
    if not isinstance(exc, ArmCoreError):  # registered for ArmCoreError only
        raise exc
    return error_response(request, exc)


async def _validation(_request: Request, exc: Exception) -> JSONResponse:
    if not isinstance(exc, RequestValidationError):  # registered for it only
        raise exc
    errors = [
        {"loc": list(error.get("loc", ())), "msg": str(error.get("msg", ""))}
        for error in exc.errors()
    ]
    where = ", ".join(".".join(str(p) for p in e["loc"]) for e in errors) or "request"
    return problem_response(
        pt.INVALID_REQUEST.status,
        pt.INVALID_REQUEST.title,
        f"invalid or missing: {where}",
        type_=pt.INVALID_REQUEST.uri,
        errors=errors,
    )


async def _http(_request: Request, exc: Exception) -> JSONResponse:
    if not isinstance(exc, StarletteHTTPException):  # registered for it only
        raise exc
    return problem_response(exc.status_code, _status_title(exc.status_code), str(exc.detail))


def _status_title(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


async def _unavailable(_request: Request, exc: Exception) -> JSONResponse:
    # The driver's text may hold the URL or the statement: only the class is logged. A
    # connection the driver could not open (the database's port closed, its host unknown)
    # comes as a bare OSError, not a DBAPIError: the same 503.
    log.error("a service arm-core needs failed answering a request: %s", type(exc).__name__)
    return problem_response(
        pt.UNAVAILABLE.status,
        pt.UNAVAILABLE.title,
        "a service arm-core needs is unavailable; try again later",
        type_=pt.UNAVAILABLE.uri,
    )


def install_problem_handlers(app: FastAPI) -> None:
    """Make every error of `app` a problem-details response."""
    app.add_exception_handler(ArmCoreError, _arm_core_error)
    app.add_exception_handler(DBAPIError, _unavailable)
    app.add_exception_handler(OSError, _unavailable)
    app.add_exception_handler(RequestValidationError, _validation)
    app.add_exception_handler(StarletteHTTPException, _http)
