"""Issue 26 class 7: a stamp over a scanned table. Words its coloured ink overlaps lose their
confidence (under the review threshold), so a figure under a stamp, or digits a stamp gives a
blank cell, are never taken as surely read; the words away from it keep theirs."""

from __future__ import annotations

import io
import json
import shutil

import pytest

from services.scan_gateway.local import recognise_to_items

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
    stamped = _confidences(recognise_to_items(_stamped(_ruled_png(_DPI), colour=True), "PNG"))
    assert stamped["1230"][0] <= 40, stamped  # the cap under a stamp, or worse
    assert stamped["1210"][0] >= 80 and stamped["1600"][2] >= 80, stamped
    plain = _confidences(recognise_to_items(_stamped(_ruled_png(_DPI), colour=False), "PNG"))
    assert plain["1230"][0] >= 80, plain
