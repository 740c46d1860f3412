"""Reading borrowers' files outside the recognisers: pages, TIFF scans, windows of cells.

arm-core (its source view and its TIFF uploads) and `arm-ka parse` (a local TIFF) both import
this room; it imports neither. The work itself (`pages`, `tiff`, `cells`) is plain functions
over bytes, meant to run in a sandboxed worker process; `workers` runs each through
`services.runtime.file_workers.FileWorkers`. Every refusal is a `DocumentError`
(`exceptions`). The face is lazy (`services._lazy`): the CLI's TIFF check does not load
pypdfium2 or the Excel readers through it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from services._lazy import lazy_exports

if TYPE_CHECKING:  # what mypy sees: the same names, typed; `X as X` marks them exported
    from services.documents_io.cells import MAX_COLUMNS as MAX_COLUMNS
    from services.documents_io.cells import ROWS_AROUND as ROWS_AROUND
    from services.documents_io.cells import CellWindow as CellWindow
    from services.documents_io.cells import ExcelRef as ExcelRef
    from services.documents_io.cells import cell_window as cell_window
    from services.documents_io.exceptions import DocumentError as DocumentError
    from services.documents_io.exceptions import DocumentTooLarge as DocumentTooLarge
    from services.documents_io.exceptions import DocumentUnreadable as DocumentUnreadable
    from services.documents_io.exceptions import NotThatFormat as NotThatFormat
    from services.documents_io.pages import MAX_PAGE_PIXELS as MAX_PAGE_PIXELS
    from services.documents_io.pages import PAGE_SCALE as PAGE_SCALE
    from services.documents_io.pages import page_count as page_count
    from services.documents_io.pages import render_page_png as render_page_png
    from services.documents_io.tiff import DEFAULT_DPI as DEFAULT_DPI
    from services.documents_io.tiff import MAX_PAGES as MAX_PAGES
    from services.documents_io.tiff import MAX_TIFF_PAGE_PIXELS as MAX_TIFF_PAGE_PIXELS
    from services.documents_io.tiff import TIFF_EXTENSIONS as TIFF_EXTENSIONS
    from services.documents_io.tiff import is_tiff as is_tiff
    from services.documents_io.tiff import is_tiff_name as is_tiff_name
    from services.documents_io.tiff import tiff_to_pdf as tiff_to_pdf
    from services.documents_io.workers import count_pages as count_pages
    from services.documents_io.workers import read_cell_window as read_cell_window
    from services.documents_io.workers import render_page as render_page
    from services.documents_io.workers import tiff_as_pdf as tiff_as_pdf

_LAZY: dict[str, str] = {
    "DocumentError": "services.documents_io.exceptions",
    "DocumentTooLarge": "services.documents_io.exceptions",
    "DocumentUnreadable": "services.documents_io.exceptions",
    "NotThatFormat": "services.documents_io.exceptions",
    "DEFAULT_DPI": "services.documents_io.tiff",
    "MAX_PAGES": "services.documents_io.tiff",
    "MAX_TIFF_PAGE_PIXELS": "services.documents_io.tiff",
    "TIFF_EXTENSIONS": "services.documents_io.tiff",
    "is_tiff": "services.documents_io.tiff",
    "is_tiff_name": "services.documents_io.tiff",
    "tiff_to_pdf": "services.documents_io.tiff",
    "MAX_PAGE_PIXELS": "services.documents_io.pages",
    "PAGE_SCALE": "services.documents_io.pages",
    "page_count": "services.documents_io.pages",
    "render_page_png": "services.documents_io.pages",
    "CellWindow": "services.documents_io.cells",
    "ExcelRef": "services.documents_io.cells",
    "MAX_COLUMNS": "services.documents_io.cells",
    "ROWS_AROUND": "services.documents_io.cells",
    "cell_window": "services.documents_io.cells",
    "count_pages": "services.documents_io.workers",
    "read_cell_window": "services.documents_io.workers",
    "render_page": "services.documents_io.workers",
    "tiff_as_pdf": "services.documents_io.workers",
}
"""Each name the package shows → the module that defines it, imported on first use."""

__all__ = sorted(_LAZY)

if not TYPE_CHECKING:  # mypy resolves the names above, and flags any other
    __getattr__, __dir__ = lazy_exports(globals(), _LAZY)
