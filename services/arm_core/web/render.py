"""The pages' templates, one environment per app (`app.state.templates`), and rendering."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from services.arm_core.auth import csrf_token_of
from services.arm_core.web.names import (
    DOCUMENT_TYPES,
    FORM_VARIANTS,
    LINE_STATUSES,
    REVIEW_STATES,
    STATUS_NAMES,
    correction_what,
    document_name,
    money,
    ru_date,
)
from services.arm_core.web.views import header_shown, waited

__all__ = ["UI_PREFIX", "build_templates", "render", "templates_of"]

UI_PREFIX = "/ui"
_TEMPLATES = Path(__file__).parent / "templates"


def build_templates() -> Jinja2Templates:
    """The pages' Jinja2 environment with their filters and the names they show."""
    templates = Jinja2Templates(directory=str(_TEMPLATES))
    templates.env.filters["money"] = money
    templates.env.filters["waited"] = waited
    templates.env.filters["ru_date"] = ru_date
    templates.env.globals.update(
        csrf_token=csrf_token_of,
        STATUS_NAMES=STATUS_NAMES,
        DOCUMENT_TYPES=DOCUMENT_TYPES,
        FORM_VARIANTS=FORM_VARIANTS,
        LINE_STATUSES=LINE_STATUSES,
        REVIEW_STATES=REVIEW_STATES,
        document_name=document_name,
        correction_what=correction_what,
        header_shown=header_shown,
    )
    return templates


def templates_of(request: Request) -> Jinja2Templates:
    """The templates of `request`'s app (set by `install_web`)."""
    templates: Jinja2Templates = request.app.state.templates
    return templates


def render(request: Request, template: str, code: int = 200, **context: Any) -> HTMLResponse:
    """`template` rendered with `context`, answered with `code`."""
    return templates_of(request).TemplateResponse(request, template, context, status_code=code)
