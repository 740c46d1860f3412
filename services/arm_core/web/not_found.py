"""The pages' 404: an unknown file, document, line or page, as a Russian page."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse

from services.arm_core.web.render import render

__all__ = ["PageNotFound", "install_not_found_page"]


class PageNotFound(Exception):
    """No such file or document (or not of that file): the 404 page names `what`."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


async def _not_found(request: Request, exc: Exception) -> HTMLResponse:
    what = exc.what if isinstance(exc, PageNotFound) else "страница"
    return render(request, "not_found.html", 404, what=what)


def install_not_found_page(app: FastAPI) -> None:
    """The 404 page of the pages (the JSON API keeps its problem documents)."""
    app.add_exception_handler(PageNotFound, _not_found)
