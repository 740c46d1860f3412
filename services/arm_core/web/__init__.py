"""The analyst's review pages, served by arm-core itself (same app, same port).

`install_web(api)` adds the pages under `/ui` (and `/` → the files page) and their static
assets (`/ui/static`: the vendored htmx, one stylesheet, one small script). Server-rendered
Jinja2 with htmx for the live parts; every route reads and writes through the same services as
the JSON API. See docs/review-page.md.
"""

from __future__ import annotations

from services.arm_core.web.mount import install_web
from services.arm_core.web.source_cache import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_ENTRIES,
    SourceCache,
)

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_ENTRIES",
    "SourceCache",
    "install_web",
]
