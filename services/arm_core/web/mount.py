"""Mounting the review pages on the core's FastAPI app."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from services.arm_core.auth import set_page_refusal
from services.arm_core.web import documents, dossier, files
from services.arm_core.web.not_found import install_not_found_page
from services.arm_core.web.refusal import page_refusal
from services.arm_core.web.render import UI_PREFIX, build_templates
from services.arm_core.web.source_cache import SourceCache
from services.arm_core.web.sources import SourceReader

__all__ = ["install_web"]


def install_web(api: FastAPI, cache: SourceCache | None = None) -> None:
    """Mount the pages and their static assets on the core's FastAPI app; a refused page
    request is answered by the pages (a login redirect, a 403 page: refusal.py). The source
    view's reads are `api.state.sources` (keeping what they read in `cache`)."""
    api.state.templates = build_templates()
    api.state.sources = SourceReader(cache)
    api.include_router(files.router)
    api.include_router(documents.router)
    api.include_router(dossier.router)
    api.mount(
        f"{UI_PREFIX}/static",
        StaticFiles(directory=Path(__file__).parent / "static"),
        name="ui-static",
    )
    install_not_found_page(api)
    set_page_refusal(api, page_refusal(UI_PREFIX))
