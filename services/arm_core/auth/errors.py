"""The problems of authentication: 401 with `WWW-Authenticate: Bearer` (RFC 6750) and 403.

Their details are fixed texts chosen here: never a token, a claim value or a library's message
(PyJWT's may quote what it was given).
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from services.arm_core.exceptions import ApiProblem
from services.arm_core.problem_types import FORBIDDEN, UNAUTHENTICATED
from services.arm_core.problems import problem_response

__all__ = ["REALM", "Forbidden", "NotAuthenticated", "install_auth_problems"]

REALM = "arm-ka"


class NotAuthenticated(ApiProblem):
    """No valid credentials (401). `error` is RFC 6750's code: None when none were sent."""

    def __init__(self, detail: str, *, error: str | None = "invalid_token") -> None:
        super().__init__(UNAUTHENTICATED, detail)
        self.error = error

    @property
    def www_authenticate(self) -> str:
        """The challenge header: the realm, and why the token was refused when one was sent."""
        if self.error is None:
            return f'Bearer realm="{REALM}"'
        return f'Bearer realm="{REALM}", error="{self.error}", error_description="{self.detail}"'


class Forbidden(ApiProblem):
    """Authenticated, but without the role the operation needs (403)."""

    def __init__(self, detail: str) -> None:
        super().__init__(FORBIDDEN, detail)


async def _not_authenticated(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, NotAuthenticated)  # registered for NotAuthenticated only
    response = problem_response(exc.status, exc.title, exc.detail, type_=exc.type)
    response.headers["WWW-Authenticate"] = exc.www_authenticate
    return response


async def _forbidden(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, Forbidden)
    response = problem_response(exc.status, exc.title, exc.detail, type_=exc.type)
    response.headers["WWW-Authenticate"] = f'Bearer realm="{REALM}", error="insufficient_scope"'
    return response


def install_auth_problems(app: FastAPI) -> None:
    """Answer the two with their challenge headers (more specific than `ApiProblem`)."""
    app.add_exception_handler(NotAuthenticated, _not_authenticated)
    app.add_exception_handler(Forbidden, _forbidden)
