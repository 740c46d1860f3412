"""TIFF scans (one page or many) made into the PDF the contract knows, losslessly.

The contract has no TIFF, and scanners write TIFF; arm-core converts at upload and the
scan-gateway reads an image-only PDF as usual. Every page's pixels are written unchanged
into a FlateDecode image (zlib: lossless) at the page size its resolution gives, so a scan
loses nothing; Pillow's own PDF writer is not used because it stores grey and colour pages
as JPEG. The original TIFF is kept beside the PDF (arm-core's `jobs/uploads.py`); `arm-ka
parse` converts a TIFF the same way, so it reads the document the core's pipeline reads. Run
it in a sandboxed worker (`services.documents_io.workers.tiff_as_pdf`): a TIFF is a borrower's
file.
"""

from __future__ import annotations

import io
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

from PIL import Image, ImageSequence

from services.documents_io.exceptions import (
    DocumentError,
    DocumentTooLarge,
    DocumentUnreadable,
    NotThatFormat,
)

__all__ = [
    "DEFAULT_DPI",
    "MAX_PAGES",
    "MAX_TIFF_PAGE_PIXELS",
    "TIFF_EXTENSIONS",
    "is_tiff",
    "is_tiff_name",
    "tiff_to_pdf",
]

TIFF_EXTENSIONS = ("tif", "tiff")
MAX_PAGES = 500
MAX_TIFF_PAGE_PIXELS = 120_000_000
"""Pixels one TIFF page may have: an A3 sheet at 600 dpi has 70 million, so a larger page is
no statement but a bomb (a 50 KB group-4 TIFF can hold pages of 169 million), refused before
its pixels are decoded."""
DEFAULT_DPI = 300.0
"""Resolution assumed when a TIFF states none (what office scanners write)."""

_MAGIC = (b"II*\x00", b"MM\x00*", b"II+\x00", b"MM\x00+")  # classic and BigTIFF
# Pillow mode → (PDF colour space, bits per component, mode whose bytes are written).
_PLAIN = {
    "1": ("DeviceGray", 1, "1"),
    "L": ("DeviceGray", 8, "L"),
    "RGB": ("DeviceRGB", 8, "RGB"),
    "CMYK": ("DeviceCMYK", 8, "CMYK"),
    "I;16": ("DeviceGray", 16, "I;16B"),
    "I;16B": ("DeviceGray", 16, "I;16B"),
}


def is_tiff(data: bytes) -> bool:
    """True when `data` starts like a TIFF (little- or big-endian, classic or BigTIFF)."""
    return data[:4] in _MAGIC


def is_tiff_name(name: str) -> bool:
    """True when the file name's last extension is .tif or .tiff (any case)."""
    stem, dot, ext = name.rpartition(".")
    return bool(dot and stem) and ext.lower() in TIFF_EXTENSIONS


@dataclass(frozen=True, slots=True)
class _Page:
    width: int
    height: int
    dpi: tuple[float, float]
    image: bytes  # the XObject dictionary and stream of the page image
    smask: bytes | None  # an alpha channel, as its own image


def tiff_to_pdf(data: bytes, max_bytes: int | None = None) -> bytes:
    """A PDF with one page per TIFF page: `NotThatFormat` when `data` is no TIFF,
    `DocumentUnreadable` when it cannot be read, `DocumentTooLarge` when its pages outgrow
    `max_bytes` or a page has over MAX_TIFF_PAGE_PIXELS (checked page by page: a small TIFF of huge
    blank pages is stopped early, not converted whole)."""
    if not is_tiff(data):
        raise NotThatFormat("the file is named as TIFF, but its content is not a TIFF")
    try:
        with Image.open(io.BytesIO(data), formats=["TIFF"]) as tiff:
            pages = list(_pages(tiff, max_bytes))
    except DocumentError:
        raise
    except Image.DecompressionBombError:
        raise DocumentTooLarge("a page of the TIFF has more pixels than allowed") from None
    except (OSError, ValueError, SyntaxError) as exc:
        raise DocumentUnreadable(f"the TIFF could not be read ({type(exc).__name__})") from None
    return _pdf(pages)


def _pages(tiff: Image.Image, max_bytes: int | None) -> Iterator[_Page]:
    size = 0
    for number, frame in enumerate(ImageSequence.Iterator(tiff), start=1):
        if number > MAX_PAGES:
            raise DocumentTooLarge(f"the TIFF has over {MAX_PAGES} pages")
        width, height = frame.size
        if width * height > MAX_TIFF_PAGE_PIXELS:
            raise DocumentTooLarge(
                f"page {number} of the TIFF has {width} × {height} pixels, over the "
                f"{MAX_TIFF_PAGE_PIXELS // 1_000_000} million a scanned page may have"
            )
        frame.load()
        page = _page(frame, number)
        size += len(page.image) + len(page.smask or b"")
        if max_bytes is not None and size > max_bytes:
            raise DocumentTooLarge(f"the PDF made of the TIFF is larger than {max_bytes} bytes")
        yield page


def _page(frame: Image.Image, number: int) -> _Page:
    image, alpha = _split(frame, number)
    space, bits, raw_mode = _PLAIN[image.mode]
    # Rows are padded to whole bytes in both; in mode 1 a set bit is white, as in DeviceGray.
    pixels = image.tobytes("raw", raw_mode)
    smask = None
    if alpha is not None:
        smask = _image_object(alpha.width, alpha.height, "DeviceGray", 8, alpha.tobytes())
    dpi = frame.info.get("dpi") or (DEFAULT_DPI, DEFAULT_DPI)
    x_dpi, y_dpi = (float(v) if float(v) > 0 else DEFAULT_DPI for v in dpi)
    return _Page(
        image.width,
        image.height,
        (x_dpi, y_dpi),
        _image_object(image.width, image.height, space, bits, pixels),
        smask,
    )


def _split(frame: Image.Image, number: int) -> tuple[Image.Image, Image.Image | None]:
    """The colour part a PDF image can hold as it is, and an alpha channel if any."""
    mode = frame.mode
    if mode in _PLAIN:
        return frame, None
    if mode == "P":  # a palette expands to RGB (and its transparency to alpha) exactly
        rgba = frame.convert("RGBA")
        alpha = rgba.getchannel("A")
        keep = alpha if alpha.getextrema() != (255, 255) else None
        return rgba.convert("RGB"), keep
    if mode in ("LA", "RGBA"):
        return frame.convert(mode[:-1]), frame.getchannel("A")
    raise DocumentUnreadable(f"page {number} of the TIFF has an unsupported mode ({mode})")


def _image_object(width: int, height: int, space: str, bits: int, pixels: bytes) -> bytes:
    """An image XObject; `%SMASK%` marks where its soft mask's reference goes."""
    stream = zlib.compress(pixels, 6)
    head = (
        f"<< /Type /XObject /Subtype /Image /Width {width} /Height {height} "
        f"/ColorSpace /{space} /BitsPerComponent {bits} /Filter /FlateDecode "
        f"/Length {len(stream)}"
    ).encode()
    return head + b"%SMASK% >>\nstream\n" + stream + b"\nendstream"


def _pdf(pages: list[_Page]) -> bytes:
    """A PDF 1.5 (16-bit components need it) with the pages in order."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")  # filled below, once the page tree's number is known
    tree = add(b"")
    kids = []
    for page in pages:
        smask_ref = b""
        if page.smask is not None:
            smask_ref = f" /SMask {add(page.smask.replace(b'%SMASK%', b''))} 0 R".encode()
        image = add(page.image.replace(b"%SMASK%", smask_ref))
        width_pt = page.width * 72.0 / page.dpi[0]
        height_pt = page.height * 72.0 / page.dpi[1]
        content = f"q {width_pt:.4f} 0 0 {height_pt:.4f} 0 0 cm /Im0 Do Q".encode()
        contents = add(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
        kids.append(
            add(
                f"<< /Type /Page /Parent {tree} 0 R /MediaBox [0 0 {width_pt:.4f} "
                f"{height_pt:.4f}] /Resources << /XObject << /Im0 {image} 0 R >> >> "
                f"/Contents {contents} 0 R >>".encode()
            )
        )
    objects[catalog - 1] = f"<< /Type /Catalog /Pages {tree} 0 R >>".encode()
    refs = " ".join(f"{kid} 0 R" for kid in kids)
    objects[tree - 1] = f"<< /Type /Pages /Kids [{refs}] /Count {len(kids)} >>".encode()

    out = io.BytesIO()
    out.write(b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(
        b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n"
        % (len(objects) + 1, catalog, xref)
    )
    return out.getvalue()
