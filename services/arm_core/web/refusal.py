"""How the pages answer a refused request: a login, or a readable Russian 403 page.

An API client is told 401/403 as a problem document; a browser on a page is not helped by
JSON. Without a (valid) token a page request is sent to the login with `next` back to the
page (an htmx request gets 401 with `HX-Redirect`, so the whole window goes, not a fragment);
without the role it gets a page (an htmx request: the fragment of a refusal) naming the role.
"""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit

from fastapi import Request
from starlette.responses import RedirectResponse, Response

from services.arm_core.auth import LOGIN_PATH, LOGOUT_PATH, Forbidden, NotAuthenticated, PageRefusal
from services.arm_core.web.render import render

__all__ = ["ROLE_NAMES", "page_refusal"]

ROLE_NAMES = {"integrator": "интегратор", "analyst": "аналитик", "admin": "администратор"}


def _is_page(request: Request, prefix: str) -> bool:
    path = request.url.path
    return path == prefix or path.startswith(prefix + "/")


def _back_to(request: Request, prefix: str) -> str:
    """The page to come back to after the login: the one the browser shows (htmx names it),
    else the requested page itself, else the files page."""
    current = request.headers.get("hx-current-url")
    if current:
        parts = urlsplit(current)
        if parts.netloc in ("", request.url.netloc) and parts.path.startswith(prefix):
            return parts.path + (f"?{parts.query}" if parts.query else "")
    if request.method == "GET" and "hx-request" not in request.headers:
        query = request.url.query
        return request.url.path + (f"?{query}" if query else "")
    return f"{prefix}/files"


def _reason(refused: Forbidden) -> str:
    if not refused.needs:  # the unauthenticated core refusing another machine
        return "Этот АРМ КА работает без входа и открыт только с того же компьютера."
    needs = " или ".join(f"«{ROLE_NAMES.get(r, r)}»" for r in refused.needs)
    held = ", ".join(f"«{ROLE_NAMES.get(r, r)}»" for r in sorted(refused.held)) or "никаких"
    return f"Здесь нужна роль {needs} (или «администратор»); у вас роли: {held}."


def page_refusal(prefix: str) -> PageRefusal:
    """The `PageRefusal` of the pages under `prefix` (registered by `install_web`)."""

    def refuse(request: Request, refused: NotAuthenticated | Forbidden) -> Response | None:
        if not _is_page(request, prefix):
            return None
        htmx = "hx-request" in request.headers
        if isinstance(refused, NotAuthenticated):
            login = f"{LOGIN_PATH}?{urlencode({'next': _back_to(request, prefix)})}"
            if htmx:
                return Response(status_code=401, headers={"HX-Redirect": login})
            return RedirectResponse(login, status_code=303)
        return render(
            request,
            "_refused.html" if htmx else "forbidden.html",
            403,
            reason=_reason(refused),
            logout=LOGOUT_PATH if refused.needs else None,
        )

    return refuse
