"""A page of a scan or a PDF as a PNG, its pixels capped.

A PDF's page size is the file's word: a 331-byte PDF may declare a 7200 × 7200 pt MediaBox,
which at screen scale is a 10800 × 10800 bitmap (over 400 MB). The page is rendered at
`scale`, or downscaled so it has at most `max_pixels` pixels, whatever its size says. An image
upload (PNG, JPG) is its own page 1, downscaled to the same cap (a JPEG is decoded at a
reduced size to begin with); one so large that Pillow takes it for a decompression bomb is
`DocumentTooLarge`. Run it in a sandboxed worker (`services.documents_io.workers`).

Not shared with scan-gateway's OCR rendering (`scan_gateway/local/_engine.py`): what both do
alike is one pypdfium2 call. The OCR renders at its OCR resolution only the pages whose text
layer it does not trust and hands PIL images to Tesseract; this renders one page a person
asked for at screen scale and answers PNG bytes.
"""

from __future__ import annotations

import io
import math
import warnings

import pypdfium2
from PIL import Image

from services.documents_io.exceptions import DocumentTooLarge, DocumentUnreadable, NotThatFormat

__all__ = ["MAX_PAGE_PIXELS", "PAGE_SCALE", "page_count", "render_page_png"]

PAGE_SCALE = 1.5
"""Screen scale of a rendered PDF page (1 pt → 1.5 px)."""
MAX_PAGE_PIXELS = 12_000_000
"""A rendered page has at most this many pixels (about 3500 × 3500; an A4 page at the screen
scale has 1.2 million)."""


def render_page_png(
    data: bytes,
    file_type: str,
    page: int,
    *,
    scale: float = PAGE_SCALE,
    max_pixels: int = MAX_PAGE_PIXELS,
) -> bytes | None:
    """Page `page` (1-based) as PNG, at most `max_pixels` pixels; None when there is no such
    page. `file_type` is the stored type ("PDF", "PNG", "JPG")."""
    if file_type == "PDF":
        image = _pdf_page(data, page, scale, max_pixels)
    elif file_type in ("PNG", "JPG"):
        image = _image_page(data, page, max_pixels) if page == 1 else None
    else:
        raise NotThatFormat(f"a {file_type} file has no pages to show")
    if image is None:
        return None
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, format="PNG")
    return buffer.getvalue()


def page_count(data: bytes, file_type: str) -> int:
    """How many pages the stored scan has (an image is one): the total a running recognition
    of it works through. Reads the PDF's page tree only, renders nothing."""
    if file_type in ("PNG", "JPG"):
        return 1
    if file_type != "PDF":
        raise NotThatFormat(f"a {file_type} file has no pages to count")
    try:
        document = pypdfium2.PdfDocument(data)
    except pypdfium2.PdfiumError as exc:
        raise DocumentUnreadable(f"the PDF could not be read ({exc})") from None
    try:
        return len(document)
    finally:
        document.close()


def _capped(width: float, height: float, max_pixels: int) -> float:
    """The factor (≤ 1) that brings width × height within max_pixels."""
    area = width * height
    return 1.0 if area <= max_pixels else math.sqrt(max_pixels / area)


def _pdf_page(data: bytes, page: int, scale: float, max_pixels: int) -> Image.Image | None:
    try:
        document = pypdfium2.PdfDocument(data)
    except pypdfium2.PdfiumError as exc:
        raise DocumentUnreadable(f"the PDF could not be read ({exc})") from None
    try:
        if not 1 <= page <= len(document):
            return None
        sheet = document[page - 1]
        width, height = sheet.get_size()
        if not (width > 0 and height > 0):
            raise DocumentUnreadable(f"page {page} of the PDF has no size")
        scale *= _capped(width * scale, height * scale, max_pixels)
        while math.ceil(width * scale) * math.ceil(height * scale) > max_pixels:
            scale *= 0.999  # pdfium rounds the bitmap's sides up
        image: Image.Image = sheet.render(scale=scale).to_pil()
        return image
    except pypdfium2.PdfiumError as exc:
        raise DocumentUnreadable(f"page {page} of the PDF could not be rendered ({exc})") from None
    finally:
        document.close()


def _image_page(data: bytes, page: int, max_pixels: int) -> Image.Image:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # capped below
            image = Image.open(io.BytesIO(data))
            factor = _capped(image.width, image.height, max_pixels)
            target = (max(1, int(image.width * factor)), max(1, int(image.height * factor)))
            if factor < 1.0:
                image.draft("RGB", target)  # a JPEG decodes at 1/2, 1/4 or 1/8 already
            image.load()
    except Image.DecompressionBombError:
        raise DocumentTooLarge("the image has more pixels than allowed") from None
    except (OSError, ValueError, SyntaxError) as exc:
        raise DocumentUnreadable(f"the image could not be read ({type(exc).__name__})") from None
    if image.width * image.height > max_pixels:
        image.thumbnail(target)
    return image
