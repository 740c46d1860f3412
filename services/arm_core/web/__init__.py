"""The analyst's review pages, served by arm-core itself (same app, same port).

`install_web(api)` adds the pages under `/ui` (and `/` → the files page) and their static
assets (`/ui/static`: the vendored htmx, one stylesheet, one small script). See
docs/review-page.md.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from services.arm_core.auth import set_page_refusal
from services.arm_core.web.refusal import page_refusal as _page_refusal
from services.arm_core.web.routes import (
    UI_PREFIX,
    build_web_router,
    install_not_found_page,
    templates,
)
from services.arm_core.web.source_cache import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_ENTRIES,
    SourceCache,
    workbook_bytes,
)

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_ENTRIES",
    "UI_PREFIX",
    "SourceCache",
    "build_web_router",
    "install_not_found_page",
    "install_web",
    "templates",
    "workbook_bytes",
]


def install_web(api: FastAPI, cache: SourceCache | None = None) -> None:
    """Mount the pages and their static assets on the core's FastAPI app; a refused page
    request is answered by the pages (a login redirect, a 403 page: refusal.py). The source
    view's cache is `api.state.source_cache`."""
    api.state.source_cache = cache if cache is not None else SourceCache()
    api.include_router(build_web_router(api.state.source_cache))
    api.mount(
        f"{UI_PREFIX}/static",
        StaticFiles(directory=Path(__file__).parent / "static"),
        name="ui-static",
    )
    install_not_found_page(api)
    set_page_refusal(api, _page_refusal(templates, UI_PREFIX))
