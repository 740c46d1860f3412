"""The local recogniser: a file → a result set in the scanning system's item format.

Runs in a worker process (services.runtime.sandbox): PDF pages with a text layer are read
directly by pdfplumber (confidence 100); pages without one, and PNG / JPG files, go through
Tesseract (rus + eng), which gives words with boxes and confidences — in the worker's own
process through its library where it is there (`_tesseract`). Raster PDF pages are rendered
with pypdfium2. Without the tesseract binary such files raise `OcrUnavailable` saying what is
missing. Every cell keeps its box as fractions of
the page (the layer's page size, or the image before its preparation), the evidence of a value.
"""

from __future__ import annotations

import io
import json
import shutil
from dataclasses import replace
from typing import Any

from services.scan_gateway.exceptions import FileUnreadable, OcrUnavailable
from services.scan_gateway.local._combs import join_comb_words, reread_combs
from services.scan_gateway.local._layout import Frame, PlacedWord, layout_page
from services.scan_gateway.local._pages import page_starting, reporting_to
from services.scan_gateway.local._raster import Comb, prepare_page
from services.scan_gateway.local._stamps import signature_blocks
from services.scan_gateway.local._tesseract import read_words
from services.scan_gateway.local._textlayer import LayerVerdict, judge_layer, merge_spaced_digits
from services.scan_gateway.resultset import Box, Item, item_to_json

__all__ = [
    "OCR_LANGUAGES",
    "pdf_pages",
    "recognize_pdf_pages",
    "recognize_reporting",
    "recognize_to_items",
]

OCR_LANGUAGES = "rus+eng"
_MAX_PAGES = 50
# Tesseract: one uniform block of text keeps table rows as lines.
_TESSERACT_CONFIG = "--psm 6 -c preserve_interword_spaces=1"
# one cell read again: a single line, digits only (amounts: their signs and separators too)
_CODE_CONFIG = "--psm 7 -c tessedit_char_whitelist=0123456789"
_AMOUNT_CONFIG = "--psm 7 -c tessedit_char_whitelist=0123456789()-,."
# a comb's cells set side by side: one line of text, or of digits (and dashes)
_COMB_TEXT = "--psm 7"
_COMB_DIGITS = "--psm 7 -c tessedit_char_whitelist=0123456789-"


def recognize_to_items(
    data: bytes, file_type: str, tesseract_cmd: str = "tesseract", dpi: int = 300
) -> dict[str, bytes]:
    """Item name → item JSON bytes for every page of the file."""
    if file_type == "PDF":
        items = _pdf(data, tesseract_cmd, dpi)
    elif file_type in ("PNG", "JPG"):
        items = [_ocr(_open_image(data, file_type), 1, tesseract_cmd)]
    else:
        raise OcrUnavailable(f"the local recogniser does not read {file_type} files")
    return _encoded(items)


def recognize_reporting(
    channel: str, data: bytes, file_type: str, tesseract_cmd: str = "tesseract", dpi: int = 300
) -> dict[str, bytes]:
    """`recognize_to_items`, telling the file at `channel` each page it starts
    (`_pages.reporting_to`)."""
    with reporting_to(channel):
        return recognize_to_items(data, file_type, tesseract_cmd, dpi)


def pdf_pages(data: bytes) -> int:
    """How many pages of the PDF the recogniser reads (at most its page limit): what the
    service splits among its workers (`recognize_pdf_pages`); a file that is no PDF is
    unreadable here, as in `recognize_to_items`."""
    return _layers(data, 1, 0)[0]


def recognize_pdf_pages(
    data: bytes, first: int, last: int, tesseract_cmd: str = "tesseract", dpi: int = 300
) -> dict[str, bytes]:
    """`recognize_to_items` of a PDF, for its pages `first`..`last` (1-based, inclusive) only:
    the same items, byte for byte, as those pages have in the whole file's result."""
    return _encoded(_pdf(data, tesseract_cmd, dpi, first, last))


def _encoded(items: list[Item]) -> dict[str, bytes]:
    return {
        item.name: json.dumps(item_to_json(item), ensure_ascii=False).encode("utf-8")
        for item in items
    }


def _open_image(data: bytes, file_type: str) -> Any:
    from PIL import Image, UnidentifiedImageError

    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        raise FileUnreadable(f"the {file_type} file cannot be decoded: {exc}") from None
    return image


def _fraction_of(left: float, top: float, right: float, bottom: float) -> Frame:
    """Boxes in the units of a page whose visible area is (left, top, right, bottom) as
    fractions of that area (what a renderer shows)."""
    width, height = max(right - left, 1e-6), max(bottom - top, 1e-6)

    def frame(box: Box) -> Box:
        x0, y0, x1, y1 = box
        return (
            min(max((x0 - left) / width, 0.0), 1.0),
            min(max((y0 - top) / height, 0.0), 1.0),
            min(max((x1 - left) / width, 0.0), 1.0),
            min(max((y1 - top) / height, 0.0), 1.0),
        )

    return frame


def _layer_frame(page: Any) -> Frame | None:
    """Where a text layer's words print on the page as rendered: fractions of the crop box;
    none for a rotated page (its words' axes are not the rendering's: no box, not a wrong
    one)."""
    if getattr(page, "rotation", 0):
        return None
    left, top, right, bottom = (float(v) for v in page.cropbox)
    return _fraction_of(left, top, right, bottom)


def _layers(
    data: bytes, first: int = 1, last: int = _MAX_PAGES
) -> tuple[int, list[tuple[list[PlacedWord], Frame | None]]]:
    """The pages the recogniser reads in all, and the words of the text layer (PDF points) of
    pages `first`..`last` with the frame that places them on their page; a file that is no
    PDF is unreadable."""
    import pdfplumber
    from pdfplumber.utils.exceptions import PdfminerException

    if not data.strip():
        raise FileUnreadable("the PDF file is empty (0 bytes)")
    try:
        with pdfplumber.open(io.BytesIO(data)) as pdf:
            total = min(len(pdf.pages), _MAX_PAGES)
            pages = pdf.pages[first - 1 : min(last, total)]
            return total, [
                (
                    merge_spaced_digits(
                        [
                            _pdf_word(w)
                            for w in page.extract_words(keep_blank_chars=False, use_text_flow=False)
                        ]
                    ),
                    _layer_frame(page),
                )
                for page in pages
            ]
    except PdfminerException as exc:
        raise FileUnreadable(f"the file cannot be opened as a PDF: {_pdf_reason(exc)}") from None


def _pdf_reason(exc: Exception) -> str:
    inner = exc.args[0] if exc.args else exc
    text = str(inner).strip() or type(inner).__name__
    if "/Root" in text or "No /Root" in text:
        return "no /Root object — not a PDF"
    return text[:200]


def _pdf(
    data: bytes, tesseract_cmd: str, dpi: int, first: int = 1, last: int = _MAX_PAGES
) -> list[Item]:
    import pypdfium2

    total, layers = _layers(data, first, last)
    items: list[Item] = []
    document: Any = None
    try:
        for number, (words, frame) in enumerate(layers, start=first):
            page_starting(number, total)
            verdict = judge_layer(words)
            if verdict is LayerVerdict.USE:
                items.append(layout_page(words, number, frame=frame))
                continue
            if document is None:
                document = pypdfium2.PdfDocument(data)
            image = document[number - 1].render(scale=dpi / 72).to_pil()
            values = words if verdict is LayerVerdict.VALUES else None
            items.append(_ocr(image, number, tesseract_cmd, values, dpi / 72))
    finally:
        if document is not None:
            document.close()
    return items


def _pdf_word(word: dict[str, Any]) -> PlacedWord:
    return PlacedWord(
        text=str(word["text"]),
        x0=float(word["x0"]),
        x1=float(word["x1"]),
        top=float(word["top"]),
        bottom=float(word["bottom"]),
        confidence=100.0,
    )


def _ocr(
    image: Any,
    page: int,
    tesseract_cmd: str,
    layer: list[PlacedWord] | None = None,
    layer_scale: float = 1.0,
) -> Item:
    """One page image through Tesseract; `layer` (a values-only text layer, in units that
    `layer_scale` turns into the image's pixels) replaces the OCR's words where it prints —
    its words too, not only its figures: the organisation's name a tax program fills in is
    exact there, where OCR reads «ЛЕОНТЬЕВОЙ» as «ЛЕОНТЬЕВОИ»."""
    if shutil.which(tesseract_cmd) is None:
        raise OcrUnavailable(
            f"Tesseract OCR is not installed (no {tesseract_cmd!r} on PATH): raster PDF pages, "
            "PNG and JPG files need it (install tesseract-ocr with the rus and eng languages, "
            "or configure OPENBAO__SCAN__SCAN_URL)"
        )
    import numpy as np

    prepared = prepare_page(image, deskew=layer is None)
    words = _tesseract(prepared.image, tesseract_cmd)
    if layer:
        factor = layer_scale * prepared.scale
        scaled = [
            PlacedWord(
                w.text, w.x0 * factor, w.x1 * factor, w.top * factor, w.bottom * factor, 100.0
            )
            for w in layer
        ]
        words = [w for w in words if not any(_overlaps(w, v) for v in scaled)] + scaled
        combs = tuple(c for c in prepared.combs if not any(_in_comb(c, v) for v in scaled))
        prepared = replace(prepared, combs=combs)  # a text layer's figures are exact as given
    words = join_comb_words(words, prepared.combs)
    words = reread_combs(
        words,
        prepared,
        lambda crop, digits: _tesseract(
            crop, tesseract_cmd, _COMB_DIGITS if digits else _COMB_TEXT
        ),
    )
    stamp = prepared.stamp
    blocks = signature_blocks(words, prepared.hrules, (prepared.image.height, prepared.image.width))
    if blocks is not None:
        stamp = blocks if stamp is None else np.maximum(stamp, blocks)
    words = [_under_stamp(_dash_for_digit(w, prepared.image), stamp) for w in words]

    def reread(
        x0: float, x1: float, top: float, bottom: float, code: bool
    ) -> tuple[str, float] | None:
        box = (max(int(x0), 0), max(int(top), 0), int(x1), int(bottom))
        if box[2] - box[0] < 4 or box[3] - box[1] < 4:
            return None
        crop = prepared.image.crop(box)
        config = _CODE_CONFIG if code else _AMOUNT_CONFIG
        found = _tesseract(crop, tesseract_cmd, config)
        if not found:  # a short figure alone in a box: psm 7 may see no line, raw psm 13 does
            found = _tesseract(crop, tesseract_cmd, config.replace("--psm 7", "--psm 13"))
        if not found:
            return None
        confidence = min(w.confidence for w in found)
        if _stamp_share(stamp, box) >= _STAMP_OVERLAP:
            confidence = min(confidence, _UNDER_STAMP)
        return " ".join(w.text for w in found), confidence

    def stamped(x0: float, top: float, x1: float, bottom: float) -> bool:
        box = (int(x0), int(top), int(x1) + 1, int(bottom) + 1)
        return _stamp_share(stamp, box) >= _CELL_STAMP_OVERLAP

    return layout_page(
        words,
        page,
        prepared.rules,
        prepared.hrules,
        reread,
        frame=prepared.page_box,
        stamped=stamped if stamp is not None else None,
    )


_STAMP_OVERLAP = 0.08  # of a word's box covered by coloured ink
_CELL_STAMP_OVERLAP = 0.03  # of a value cell's band (wider than its words: a smaller share)
_UNDER_STAMP = 40.0
"""The confidence of a word a stamp or signature overlaps: under the review threshold (80), so
its value is up for review unless a holding relation vouches for it (blank cells the stamp
gives digits to, figures half hidden under it)."""


def _stamp_share(stamp: Any, box: tuple[int, int, int, int]) -> float:
    """The share of the box (x0, top, x1, bottom) that coloured ink covers; 0 without a mask."""
    if stamp is None:
        return 0.0
    x0, top, x1, bottom = box
    patch = stamp[max(top, 0) : max(bottom, 0), max(x0, 0) : max(x1, 0)]
    return float(patch.mean()) / 255 if patch.size else 0.0


def _under_stamp(word: PlacedWord, stamp: Any) -> PlacedWord:
    box = (int(word.x0), int(word.top), int(word.x1) + 1, int(word.bottom) + 1)
    if _stamp_share(stamp, box) < _STAMP_OVERLAP:
        return word
    return replace(word, confidence=min(word.confidence, _UNDER_STAMP))


_DASH_ASPECT = 2.5
"""A dash's ink is this many times wider than tall, or more; no digit's glyph (nor two touching
ones) is: «1» and «7» are taller than wide, «22» about square."""


def _dash_for_digit(word: PlacedWord, image: Any) -> PlacedWord:
    """A one- or two-digit word whose ink is one flat horizontal stroke is a dash OCR read as
    «2», «5» or «7» (a blank cell of a 200-dpi office scan): it reads «-», never a figure."""
    if not (word.text.isdigit() and len(word.text) <= 2):
        return word
    pad = 2
    box = (int(word.x0) - pad, int(word.top) - pad, int(word.x1) + pad, int(word.bottom) + pad)
    if _is_stroke(image.crop((max(box[0], 0), max(box[1], 0), box[2], box[3]))):
        return replace(word, text="-")
    return word


def _is_stroke(crop: Any) -> bool:
    """The crop's ink is one connected, flat, wide stroke (a dash), not a digit's glyph."""
    import cv2
    import numpy as np

    gray = np.asarray(crop.convert("L"))
    if gray.size == 0:
        return False
    ink = (gray < 128).astype(np.uint8)  # mid-grey splits ink from paper
    count, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    blobs = [stats[i] for i in range(1, count) if stats[i][cv2.CC_STAT_AREA] > 2]
    if len(blobs) != 1:
        return False
    width, height = blobs[0][cv2.CC_STAT_WIDTH], blobs[0][cv2.CC_STAT_HEIGHT]
    return bool(width >= _DASH_ASPECT * height)


def _in_comb(comb: Comb, word: PlacedWord) -> bool:
    return (
        comb.x0 < word.x1
        and word.x0 < comb.x1
        and comb.top < word.bottom
        and word.top < comb.bottom
    )


def _overlaps(a: PlacedWord, b: PlacedWord) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.top < b.bottom and b.top < a.bottom


def _tesseract(image: Any, tesseract_cmd: str, config: str = _TESSERACT_CONFIG) -> list[PlacedWord]:
    return read_words(image, tesseract_cmd, OCR_LANGUAGES, config)
