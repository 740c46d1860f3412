"""Issue 26 on the local recogniser's page reader. Class 7: words a stamp's coloured ink
overlaps lose their confidence (under the review threshold), so a figure under a stamp, or
digits a stamp gives a blank cell, are never taken as surely read; the words away from it keep
theirs. Class 1: a one- or two-digit word whose ink is one flat stroke is a dash, never a
figure."""

from __future__ import annotations

import io
import json
import shutil

import pytest

from services.scan_gateway.local import PlacedWord, recognize_to_items
from services.scan_gateway.local._engine import _dash_for_digit

from ._forms import font_path
from .test_local_scans import _ruled_png

pytestmark = [
    pytest.mark.skipif(shutil.which("tesseract") is None, reason="no tesseract"),
    pytest.mark.skipif(font_path() is None, reason="no DejaVuSans font to render with"),
]

_DPI = 100


def _stamped(png: bytes, *, colour: bool) -> bytes:
    """The ruled page with a round violet stamp (ring, text) over the 1230 row's 2024 figure,
    or the same page left grey."""
    from PIL import Image, ImageDraw, ImageFont

    page = Image.open(io.BytesIO(png)).convert("RGB")
    if colour:
        draw = ImageDraw.Draw(page)
        scale = _DPI / 72
        cx, cy, r = 380 * scale, 170 * scale, 34 * scale
        violet = (70, 40, 170)
        draw.ellipse([cx - r, cy - r, cx + r, cy + r], outline=violet, width=max(2, int(scale)))
        font = ImageFont.truetype(str(font_path()), int(7 * scale))
        draw.text((cx - r * 0.7, cy - 4 * scale), "ПЕЧАТЬ 1027", font=font, fill=violet)
    out = io.BytesIO()
    page.save(out, format="PNG", dpi=(_DPI, _DPI))
    return out.getvalue()


def _confidences(items: dict[str, bytes]) -> dict[str, list[float]]:
    """Code → the confidences of the value cells right of it."""
    table = json.loads(items["page-1.json"])["tables"][0]
    out: dict[str, list[float]] = {}
    for row in table["rows"]:
        cells = sorted(row["cells"], key=lambda c: c["column"])
        codes = [i for i, c in enumerate(cells) if c["text"] in {"1210", "1250", "1230", "1600"}]
        if codes:
            out[cells[codes[0]]["text"]] = [c["confidence"] for c in cells[codes[0] + 1 :]]
    return out


def test_a_value_under_a_coloured_stamp_loses_its_confidence_the_rest_keep_theirs() -> None:
    stamped = _confidences(recognize_to_items(_stamped(_ruled_png(_DPI), colour=True), "PNG"))
    assert stamped["1230"][0] <= 40, stamped  # the cap under a stamp, or worse
    assert stamped["1210"][0] >= 80 and stamped["1600"][2] >= 80, stamped
    plain = _confidences(recognize_to_items(_stamped(_ruled_png(_DPI), colour=False), "PNG"))
    assert plain["1230"][0] >= 80, plain


# class 1: a dash read as a digit


def _glyph(text: str, *, dash: bool = False) -> tuple[object, PlacedWord]:
    """A 200-dpi crop of one cell printing ``text`` (or a dash), and the word OCR reported
    there, its box tight around the ink as Tesseract gives it."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("L", (120, 60), 255)
    draw = ImageDraw.Draw(image)
    if dash:
        draw.rectangle([40, 30, 62, 33], fill=0)
    else:
        draw.text((40, 12), text, font=ImageFont.truetype(str(font_path()), 28), fill=0)
    x0, top, x1, bottom = image.point(lambda v: 255 - v).getbbox() or (0, 0, 0, 0)
    return image, PlacedWord(text, x0, x1, top, bottom, 91.0)


@pytest.mark.parametrize("misread", ["2", "5", "7", "11"])
def test_a_dash_ocr_read_as_a_digit_reads_as_a_dash(misread: str) -> None:
    image, word = _glyph(misread, dash=True)
    assert _dash_for_digit(word, image).text == "-"


@pytest.mark.parametrize("digits", ["1", "2", "4", "5", "7", "22"])
def test_a_printed_digit_stays_a_digit(digits: str) -> None:
    image, word = _glyph(digits)
    assert _dash_for_digit(word, image).text == digits
