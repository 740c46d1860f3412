"""The refusals of authentication: 401 with `WWW-Authenticate: Bearer` (RFC 6750) and 403.

Their details are fixed texts chosen here: never a token, a claim value or a library's message
(PyJWT's may quote what it was given). How they are answered — a problem document with the
challenge header, or the pages' own login redirect and 403 page — is the REST room's table
(`rest/problems.py`) and the pages' hook (`set_page_refusal`).
"""

from __future__ import annotations

from collections.abc import Callable

from fastapi import FastAPI, Request
from starlette.responses import Response

from services.arm_core.exceptions import Refused

__all__ = [
    "REALM",
    "Forbidden",
    "NotAuthenticated",
    "PageRefusal",
    "page_refusal_of",
    "set_page_refusal",
]

REALM = "arm-ka"

# How the pages answer a refusal (a login redirect, a readable 403 page), or None when the
# request is not a page's: set by the pages (`set_page_refusal`), so auth needs no templates.
PageRefusal = Callable[[Request, "NotAuthenticated | Forbidden"], Response | None]


class NotAuthenticated(Refused):
    """No valid credentials (401). `error` is RFC 6750's code: None when none were sent."""

    def __init__(self, detail: str, *, error: str | None = "invalid_token") -> None:
        super().__init__(detail)
        self.error = error

    @property
    def www_authenticate(self) -> str:
        """The challenge header: the realm, and why the token was refused when one was sent."""
        if self.error is None:
            return f'Bearer realm="{REALM}"'
        return f'Bearer realm="{REALM}", error="{self.error}", error_description="{self.detail}"'


class Forbidden(Refused):
    """Authenticated, but without the role the operation needs (403)."""

    def __init__(
        self, detail: str, *, needs: tuple[str, ...] = (), held: frozenset[str] = frozenset()
    ) -> None:
        super().__init__(detail)
        self.needs = needs
        self.held = held

    @property
    def www_authenticate(self) -> str:
        """The challenge header of a missing role (RFC 6750 `insufficient_scope`)."""
        return f'Bearer realm="{REALM}", error="insufficient_scope"'


def set_page_refusal(app: FastAPI, render: PageRefusal) -> None:
    """Let the pages answer their own refusals (see `PageRefusal`)."""
    app.state.page_refusal = render


def page_refusal_of(request: Request) -> PageRefusal | None:
    """The pages' answer to refusals of `request`'s app, when the pages are installed."""
    page: PageRefusal | None = getattr(request.app.state, "page_refusal", None)
    return page
