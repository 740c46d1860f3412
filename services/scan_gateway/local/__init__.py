"""The built-in local recogniser: text-layer PDFs directly, raster pages and images through
Tesseract; it produces the scanning system's item format, so one mapper serves both."""

from __future__ import annotations

from services.scan_gateway.local._engine import (
    OCR_LANGUAGES,
    pdf_pages,
    recognize_pdf_pages,
    recognize_reporting,
    recognize_to_items,
)
from services.scan_gateway.local._layout import Frame, PlacedWord, Reread, Stamped, layout_page
from services.scan_gateway.local._pages import (
    page_starting,
    pages_reported,
    report_pages,
    reporting_to,
)

__all__ = [
    "OCR_LANGUAGES",
    "Frame",
    "PlacedWord",
    "Reread",
    "Stamped",
    "layout_page",
    "page_starting",
    "pages_reported",
    "pdf_pages",
    "recognize_pdf_pages",
    "recognize_reporting",
    "recognize_to_items",
    "report_pages",
    "reporting_to",
]
