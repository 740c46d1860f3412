"""The problems of authentication: 401 with `WWW-Authenticate: Bearer` (RFC 6750) and 403.

Their details are fixed texts chosen here: never a token, a claim value or a library's message
(PyJWT's may quote what it was given).
"""

from __future__ import annotations

from collections.abc import Callable

from fastapi import FastAPI, Request
from starlette.responses import Response

from services.arm_core.exceptions import ApiProblem
from services.arm_core.problem_types import FORBIDDEN, UNAUTHENTICATED
from services.arm_core.problems import problem_response

__all__ = [
    "REALM",
    "Forbidden",
    "NotAuthenticated",
    "PageRefusal",
    "install_auth_problems",
    "refusal_response",
    "set_page_refusal",
]

REALM = "arm-ka"

# How the pages answer a refusal (a login redirect, a readable 403 page), or None when the
# request is not a page's: set by the pages (`set_page_refusal`), so auth needs no templates.
PageRefusal = Callable[[Request, "NotAuthenticated | Forbidden"], Response | None]


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

    def __init__(
        self, detail: str, *, needs: tuple[str, ...] = (), held: frozenset[str] = frozenset()
    ) -> None:
        super().__init__(FORBIDDEN, detail)
        self.needs = needs
        self.held = held


def set_page_refusal(app: FastAPI, render: PageRefusal) -> None:
    """Let the pages answer their own refusals (see `PageRefusal`)."""
    app.state.page_refusal = render


def refusal_response(request: Request, exc: NotAuthenticated | Forbidden) -> Response:
    """The answer to a refused request: the page's, when it is a page's; else the problem
    with its challenge header."""
    page: PageRefusal | None = getattr(request.app.state, "page_refusal", None)
    answer = page(request, exc) if page is not None else None
    if answer is not None:
        return answer
    response = problem_response(exc.status, exc.title, exc.detail, type_=exc.type)
    if isinstance(exc, NotAuthenticated):
        response.headers["WWW-Authenticate"] = exc.www_authenticate
    else:
        response.headers["WWW-Authenticate"] = f'Bearer realm="{REALM}", error="insufficient_scope"'
    return response


async def _refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, NotAuthenticated | Forbidden)  # registered for these two only
    return refusal_response(request, exc)


def install_auth_problems(app: FastAPI) -> None:
    """Answer the two with their challenge headers (more specific than `ApiProblem`)."""
    app.add_exception_handler(NotAuthenticated, _refused)
    app.add_exception_handler(Forbidden, _refused)
