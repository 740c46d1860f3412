"""Issue 26 on the local recogniser's page reader. Class 7: words a stamp overlaps — its
coloured ink, the disk of a round stamp found by its ring on a grey scan, or a box stamp found
by its frame — lose their confidence (under the review threshold), so a figure under a stamp,
or digits a stamp gives a blank cell, are never taken as surely read; the words away from it
keep theirs. A 70-dpi page with a stamp over its table reads every figure away from the stamp,
and none wrong unflagged. Class 1: a one- or two-digit word whose ink is one flat stroke is a
dash, never a figure."""

from __future__ import annotations

import io
import json
import shutil
from typing import Any

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


_VIOLET, _GREY = (70, 40, 170), (125, 125, 125)


def _stamped(
    png: bytes,
    *,
    colour: bool,
    ink: tuple[int, int, int] | None = None,
    at: tuple[float, float] = (380, 170),
    dpi: int = _DPI,
    oval: bool = False,
) -> bytes:
    """The page with a round stamp (two rings, text; with `oval`, two ovals) centred `at`
    (points from the top left): violet, or in `ink`; without `colour` and `ink`, the page left as it is. A grey stamp is
    saved on a grey page (no colour to tell it by)."""
    from PIL import Image, ImageDraw, ImageFont

    page = Image.open(io.BytesIO(png)).convert("RGB")
    ink = _VIOLET if colour else ink
    if ink is not None:
        draw = ImageDraw.Draw(page)
        scale = dpi / 72
        cx, cy, r = at[0] * scale, at[1] * scale, 34 * scale
        rx, ry = (r * 1.35, r * 0.85) if oval else (r, r)  # an oval stamp: 64 × 40 pt
        draw.ellipse([cx - rx, cy - ry, cx + rx, cy + ry], outline=ink, width=max(2, int(scale)))
        ix, iy = rx * 0.8, ry * 0.8
        draw.ellipse([cx - ix, cy - iy, cx + ix, cy + iy], outline=ink, width=1)
        font = ImageFont.truetype(str(font_path()), int(7 * scale))
        draw.text((cx - r * 0.7, cy - 4 * scale), "ПЕЧАТЬ 1027", font=font, fill=ink)
    if not colour:
        page = page.convert("L")
    out = io.BytesIO()
    page.save(out, format="PNG", dpi=(dpi, dpi))
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


def test_a_grey_stamps_ring_puts_the_value_under_it_up_for_review() -> None:
    """A grey scan's stamp has no colour: its ring tells it, and the figure under it loses
    its confidence as under a coloured one; the figures away from it keep theirs."""
    page = _stamped(_ruled_png(_DPI), colour=False, ink=_GREY)
    stamped = _confidences(recognize_to_items(page, "PNG"))
    assert stamped["1230"][0] <= 40, stamped
    assert stamped["1210"][0] >= 80 and stamped["1600"][2] >= 80, stamped


def test_a_grey_oval_stamp_puts_the_value_under_it_up_for_review() -> None:
    """An oval stamp (no circle: 1.6 times as wide as tall) in grey: the page squeezed along
    its long axis shows its ring, and the figure under it loses its confidence; the figures
    away from it keep theirs."""
    from PIL import Image

    from services.scan_gateway.local._raster import prepare_page

    page = _stamped(_ruled_png(_DPI), colour=False, ink=_GREY, oval=True)
    prepared = prepare_page(Image.open(io.BytesIO(page)))
    x, y = (round(v * _DPI / 72 * prepared.scale) for v in (380, 170))
    assert prepared.stamp is not None and prepared.stamp[y, x] == 255  # found by its shape
    assert prepare_page(Image.open(io.BytesIO(_ruled_png(_DPI)))).stamp is None
    stamped = _confidences(recognize_to_items(page, "PNG"))
    assert stamped["1230"][0] <= 40, stamped
    assert stamped["1210"][0] >= 80 and stamped["1600"][-1] >= 80, stamped


# the stamp over the 2024 column of rows 1170–1250 of the typeset balance
_UNDER_STAMP_ROWS = {"1170", "1100", "1210", "1230", "1250"}


@pytest.mark.slow
@pytest.mark.parametrize("colour", [True, False], ids=["violet", "grey"])
async def test_a_70_dpi_page_with_a_stamp_over_its_table(colour: bool) -> None:
    """The typeset balance at 70 dpi (a web scan), a stamp over five rows of the 2024 column:
    every value the recogniser gives unflagged is the printed one (a figure the stamp's edge
    cuts short, «1» for «1 200», is flagged by its cell, not its ink), and the figures away
    from the stamp come out exact, but for one at most."""
    from services.scan_gateway.recognizer import LocalSource, ScanGatewayRecognizer

    from ._forms import BALANCE, render_pdf, render_png
    from .test_local import InlineRunner, make_job, printed

    png = render_png(render_pdf((BALANCE,)), 0, dpi=70)
    page = _stamped(png, colour=colour, ink=_GREY, at=(530, 253), dpi=70)
    recognition = await ScanGatewayRecognizer(LocalSource(InlineRunner())).recognize(
        page, make_job("PNG")
    )
    [document] = recognition.documents
    expected = printed(BALANCE)
    columns = sorted(c["column_index"] for c in document["columns"])
    got = {
        (line["line_code"], columns.index(v["column_index"])): v
        for line in document["lines"]
        for v in line["values"]
    }
    wrong = [k for k, v in got.items() if v["amount"] != expected.get(k) and not v["needs_review"]]
    assert wrong == [], {k: got[k]["amount"] for k in wrong}
    away = [k for k in expected if not (k[0] in _UNDER_STAMP_ROWS and k[1] == 0)]
    exact = sum(k in got and got[k]["amount"] == expected[k] for k in away)
    print(f"70 dpi, {'violet' if colour else 'grey'} stamp: {exact}/{len(away)} away exact")
    assert exact >= len(away) - 1


# an e-signature block (a rounded frame, its heading and three rows) over the 2024 column of
# rows 1310–1410 of the typeset balance: its text is no line, the figures it covers need review
_UNDER_BLOCK_ROWS = {"1310", "1370", "1300", "1410"}
_BLOCK_TEXT = (
    "ДОКУМЕНТ ПОДПИСАН ЭЛЕКТРОННОЙ ПОДПИСЬЮ",
    "Сертификат: 06 60 EB 98 00 00 AE 7A 8E 42",
    "Владелец: Иванов Иван Иванович",
    "Действителен: с 16.12.2024 по 16.03.2026",
)


def _signed(png: bytes, dpi: int, *, box: tuple[float, float, float, float]) -> bytes:
    """The page in grey with an e-signature block drawn in grey over `box` (points: left, top,
    right, bottom): a rounded frame, the heading, the certificate's serial, owner, validity."""
    from PIL import Image, ImageDraw, ImageFont

    page = Image.open(io.BytesIO(png)).convert("L")
    draw = ImageDraw.Draw(page)
    scale = dpi / 72
    left, top, right, bottom = (v * scale for v in box)
    draw.rounded_rectangle(
        [left, top, right, bottom], radius=6 * scale, outline=110, width=max(2, int(scale))
    )
    font = ImageFont.truetype(str(font_path()), int(7.5 * scale))
    step = (bottom - top - 8 * scale) / len(_BLOCK_TEXT)
    for n, text in enumerate(_BLOCK_TEXT):
        draw.text((left + 8 * scale, top + 5 * scale + n * step), text, font=font, fill=110)
    out = io.BytesIO()
    page.save(out, format="PNG", dpi=(dpi, dpi))
    return out.getvalue()


def test_an_e_signature_blocks_words_mark_its_frame_one_label_alone_does_not() -> None:
    """«Сертификат», «Владелец», «Действителен» stacked: the block, from its words' left edge
    to the right end of the rule framing it; a lone «Сертификат» in a footnote marks nothing."""
    from services.scan_gateway.local._raster import HRule
    from services.scan_gateway.local._stamps import signature_blocks

    words = [
        PlacedWord("Сертификат:", 1000, 1200, 500, 530, 90.0),
        PlacedWord("Владелец:", 1000, 1180, 560, 590, 90.0),
        PlacedWord("Действителен:", 1000, 1230, 620, 650, 90.0),
    ]
    mask = signature_blocks(words, [HRule(440.0, 980.0, 1900.0)], (2000, 2400))
    assert mask is not None
    assert mask[575, 1850] == 255 and mask[575, 1950] == 0 and mask[300, 1100] == 0
    assert signature_blocks(words[:1], [], (2000, 2400)) is None


async def _read_under_cover(page: bytes, rows: set[str], column: int) -> tuple[int, int]:
    """Recognise `page` (the typeset balance with something covering the value cells of
    `rows` in `column`) and check what a cover must not cause: a line from its text, a covered
    figure given unflagged, a wrong figure anywhere unflagged (a misread code is a line up for
    review, its figures with it). Returns the figures away from the cover read exact, and
    their number."""
    from services.scan_gateway.recognizer import LocalSource, ScanGatewayRecognizer

    from ._forms import BALANCE
    from .test_local import InlineRunner, make_job, printed

    recognition = await ScanGatewayRecognizer(LocalSource(InlineRunner())).recognize(
        page, make_job("PNG")
    )
    [document] = recognition.documents
    expected = printed(BALANCE)
    codes = {code for code, _ in expected}
    invented = [
        line["line_code"]
        for line in document["lines"]
        if line["line_code"] not in codes and not line["needs_review"]
    ]
    assert invented == []  # the cover's serial, number, dates and labels make no line
    columns = sorted(c["column_index"] for c in document["columns"])
    got = {
        (line["line_code"], columns.index(v["column_index"])): v
        for line in document["lines"]
        for v in line["values"]
    }
    doubted = {line["line_code"] for line in document["lines"] if line["needs_review"]}
    covered = [(code, column) for code in rows]
    unflagged = {k: got[k]["amount"] for k in covered if k in got and not got[k]["needs_review"]}
    assert unflagged == {}  # each figure the cover hides is up for review (or absent)
    wrong = [
        k
        for k, v in got.items()
        if v["amount"] != expected.get(k) and not v["needs_review"] and k[0] not in doubted
    ]
    assert wrong == [], {k: got[k]["amount"] for k in wrong}
    away = [k for k in expected if not (k[0] in rows and k[1] == column)]
    return sum(k in got and got[k]["amount"] == expected[k] for k in away), len(away)


@pytest.mark.slow
async def test_a_grey_e_signature_block_over_the_table_is_no_line_and_its_cells_need_review() -> (
    None
):
    """A grey 150-dpi page, a grey e-signature block (no ring, no colour) over four rows of the
    2024 column: each figure whose cell the block covers needs review, the block's text
    (certificate serial, dates) gives no line, and the figures away from it are exact but for
    two at most, none wrong unflagged."""
    from ._forms import BALANCE, render_pdf, render_png

    dpi = 150
    png = render_png(render_pdf((BALANCE,)), 0, dpi=dpi)
    page = _signed(png, dpi, box=(440, 324, 690, 394))
    exact, away = await _read_under_cover(page, _UNDER_BLOCK_ROWS, 0)
    print(f"150 dpi, grey e-signature block: {exact}/{away} away exact")
    assert exact >= away - 2


# a plain rectangular stamp (no e-signature words, grey, slightly turned) over three value cells
# of one column of the typeset balance: (dpi, the column's position, the rows it covers, its box
# in points (left, top, right, bottom), its turn in degrees, double frame, its text)
_BOXES = {
    "150dpi-received": (
        150,
        1,
        {"1510", "1520", "1500"},
        (668.0, 407.0, 800.0, 462.0),
        3.0,
        True,
        ("ПОЛУЧЕНО", "Вх. № 1547", "03.04.2025"),
    ),
    "200dpi-true-copy": (
        200,
        0,
        {"1210", "1230", "1250"},
        (452.0, 240.0, 596.0, 292.0),
        -2.0,
        False,
        ("КОПИЯ ВЕРНА", "Инспектор 2 разряда", "12.02.2025"),
    ),
}


def _boxed(
    png: bytes,
    dpi: int,
    *,
    box: tuple[float, float, float, float],
    turn: float,
    double: bool,
    text: tuple[str, ...],
) -> bytes:
    """The page in grey with a plain rectangular stamp drawn in grey over `box` (points: left,
    top, right, bottom), turned by `turn` degrees about its centre: one thin frame, or two a
    little apart, and a few lines of text inside («ПОЛУЧЕНО», «Вх. №», a date)."""
    from PIL import Image, ImageChops, ImageDraw, ImageFont

    page = Image.open(io.BytesIO(png)).convert("L")
    scale = dpi / 72
    left, top, right, bottom = (v * scale for v in box)
    stamp = Image.new("L", (int(right - left), int(bottom - top)), 255)
    draw = ImageDraw.Draw(stamp)
    line = max(1, round(scale * 0.7))
    draw.rectangle([1, 1, stamp.width - 2, stamp.height - 2], outline=105, width=line)
    if double:
        gap = int(2.5 * scale)
        draw.rectangle(
            [gap, gap, stamp.width - 1 - gap, stamp.height - 1 - gap], outline=105, width=1
        )
    font = ImageFont.truetype(str(font_path()), int(8 * scale))
    step = (stamp.height - 10 * scale) / len(text)
    for n, words in enumerate(text):
        draw.text((7 * scale, 5 * scale + n * step), words, font=font, fill=105)
    turned = stamp.rotate(turn, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=255)
    at = (int((left + right - turned.width) / 2), int((top + bottom - turned.height) / 2))
    layer = Image.new("L", page.size, 255)
    layer.paste(turned, at)
    page = ImageChops.darker(page, layer)
    out = io.BytesIO()
    page.save(out, format="PNG", dpi=(dpi, dpi))
    return out.getvalue()


_MM = 200 / 25.4  # pixels a millimetre on the 200-dpi A4 pages below


def _a4() -> Any:
    from PIL import Image

    return Image.new("L", (int(210 * _MM), int(297 * _MM)), 255)


def _box_stamp(page: Any, at: tuple[float, float], turn: float, ink: int = 100) -> Any:
    """`page` with a 50 × 20 mm box stamp in grey `ink`, its text inside, its top left `at`
    (mm), turned `turn` degrees."""
    from PIL import Image, ImageChops, ImageDraw, ImageFont

    stamp = Image.new("L", (int(50 * _MM), int(20 * _MM)), 255)
    draw = ImageDraw.Draw(stamp)
    draw.rectangle([1, 1, stamp.width - 2, stamp.height - 2], outline=ink, width=2)
    font = ImageFont.truetype(str(font_path()), int(3 * _MM))
    for n, text in enumerate(("ПОЛУЧЕНО", "Вх. № 1547", "03.04.2025")):
        draw.text((3 * _MM, (2 + 5 * n) * _MM), text, font=font, fill=ink)
    turned = stamp.rotate(turn, expand=True, fillcolor=255)
    layer = Image.new("L", page.size, 255)
    layer.paste(turned, (int(at[0] * _MM), int(at[1] * _MM)))
    return ImageChops.darker(page, layer)


def _grid(page: Any, at: tuple[float, float], cols: list[float], rows: list[float]) -> Any:
    """`page` with a ruled table whose top left is `at` (mm), its columns' and rows' sizes."""
    from itertools import accumulate

    from PIL import ImageDraw

    draw = ImageDraw.Draw(page)
    xs = [x * _MM for x in accumulate(cols, initial=at[0])]
    ys = [y * _MM for y in accumulate(rows, initial=at[1])]
    for x in xs:
        draw.line([(x, ys[0]), (x, ys[-1])], fill=0, width=3)
    for y in ys:
        draw.line([(xs[0], y), (xs[-1], y)], fill=0, width=3)
    return page


def _filled(page: Any) -> Any:
    """`page` with the ruled table of `_grid` (20 rows of 8 mm) filled in: a name, a code
    and two figures a row, the text a stamp set over a table touches."""
    from PIL import ImageDraw, ImageFont

    draw = ImageDraw.Draw(_grid(page, (20, 40), [80, 25, 50, 30], [8] * 20))
    font = ImageFont.truetype(str(font_path()), int(3.2 * _MM))
    for row in range(20):
        y = (42 + 8 * row) * _MM
        for x, text in ((22, "Дебиторская задолженность"), (105, str(1210 + row))):
            draw.text((x * _MM, y), text, font=font, fill=0)
        for x, text in ((140, "12 345"), (170, "9 876")):
            draw.text((x * _MM, y), text, font=font, fill=0)
    return page


def _codes_box(page: Any) -> Any:
    """`page` with a «Коды» box: a 35 × 45 mm frame, rules inside ending at it, codes."""
    from PIL import ImageDraw, ImageFont

    draw = ImageDraw.Draw(page)
    draw.rectangle([150 * _MM, 20 * _MM, 185 * _MM, 65 * _MM], outline=0, width=3)
    font = ImageFont.truetype(str(font_path()), int(3 * _MM))
    for n in range(1, 6):
        y = (20 + 7.5 * n) * _MM
        draw.line([(150 * _MM, y), (185 * _MM, y)], fill=0, width=2)
        draw.text((160 * _MM, y - 6 * _MM), "0710001", font=font, fill=0)
    return page


def _framed_page(page: Any) -> Any:
    from PIL import ImageDraw

    ImageDraw.Draw(page).rectangle([10 * _MM, 10 * _MM, 200 * _MM, 287 * _MM], outline=0, width=3)
    return page


@pytest.mark.parametrize(
    ("case", "stamp"),
    [
        ("turned 3°", True),
        ("upright", True),
        ("over a ruled table, turned 2°", True),
        ("over a ruled table, upright", True),
        ("over a filled ruled table, turned 5°", True),
        ("over a filled ruled table, turned −4°", True),
        ("a ruled table with stamp-sized cells", False),
        ("a small ruled table", False),
        ("a «Коды» box", False),
        ("the page's border", False),
    ],
)
def test_a_box_stamp_is_found_by_its_frame_a_tables_cells_and_frames_are_not(
    case: str, stamp: bool
) -> None:
    """A closed frame of a stamp's size with text inside, paper around it and sides that stop
    at its corners is a stamp whether upright, turned or over a table's rules and figures
    (touching its frame, its sides crossing the rows at a shallow angle); a table's cells
    (their rules run on), a frame with rules inside ending at it and the page's border are
    not."""
    import numpy as np

    from services.scan_gateway.local._stamps import boxed_stamps

    pages = {
        "turned 3°": lambda: _box_stamp(_a4(), (60, 100), 3.0),
        "upright": lambda: _box_stamp(_a4(), (60, 100), 0.0),
        "over a ruled table, turned 2°": lambda: _box_stamp(
            _grid(_a4(), (20, 40), [80, 25, 50, 30], [8] * 20), (108, 80), 2.0
        ),
        "over a ruled table, upright": lambda: _box_stamp(
            _grid(_a4(), (20, 40), [80, 25, 50, 30], [8] * 20), (108, 83), 0.0
        ),
        "over a filled ruled table, turned 5°": lambda: _box_stamp(_filled(_a4()), (110, 83), 5.0),
        "over a filled ruled table, turned −4°": lambda: _box_stamp(
            _filled(_a4()), (130, 101), -4.0
        ),
        "a ruled table with stamp-sized cells": lambda: _grid(
            _a4(), (20, 40), [80, 25, 50, 30], [20] * 8
        ),
        "a small ruled table": lambda: _grid(_a4(), (20, 40), [45, 45], [20, 20, 20]),
        "a «Коды» box": lambda: _codes_box(_a4()),
        "the page's border": lambda: _framed_page(_a4()),
    }
    mask = boxed_stamps(np.asarray(pages[case]()))
    assert (mask is not None) == stamp, case
    if mask is not None:  # the stamp's 50 × 20 mm and a millimetre around it, no more
        assert 0.8 < float((mask > 0).sum()) / (52 * 22 * _MM**2) < 1.2


@pytest.mark.parametrize(
    ("at", "turn", "ink"),
    [((110, 83), 2.0, 100), ((110, 83), -2.0, 100), ((130, 101), 7.5, 100), ((130, 101), 6.0, 150)],
)
def test_a_box_whose_frame_closes_at_a_turn_between_gets_the_whole_pages_mask(
    at: tuple[float, float], turn: float, ink: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The box search looks for strokes at every other turn on the whole page and at a turn
    between only around the frame-like outlines of the turns next to it (`_regions`). A box
    over a filled table, grey or
    faint, first judged a stamp at a turn between gets the very mask that the strokes of the
    whole page at every turn give; with no regions each of these would get another (a
    neighbouring turn's rectangle), so the test fails if a region misses its box."""
    import numpy as np

    from services.scan_gateway.local import _stamps

    page = np.asarray(_box_stamp(_filled(_a4()), at, turn, ink=ink))
    found = _stamps.boxed_stamps(page)

    def everywhere(ink: Any, outlines: Any, per_mm: float) -> list[_stamps._Region]:
        height, width = ink.shape  # the whole page, turned or not, at every turn
        return [(-width, -height, 2 * width, 2 * height, frozenset(_stamps._turns()))]

    monkeypatch.setattr(_stamps, "_regions", everywhere)
    whole = _stamps.boxed_stamps(page)
    assert whole is not None, "the box is found by the whole page's strokes"
    assert found is not None and np.array_equal(found, whole)


def test_the_rules_long_opening_is_opencvs_pixel_for_pixel() -> None:
    """The box search erases a table's rules by opening the ink with a 583-px line across and a
    371-px one down in a few shifted passes (`_opened`): on random ink of any shape, ink at the
    image's edges included, lines odd or even, shorter or longer than the image, it gives
    exactly `cv2.morphologyEx`'s opening."""
    import cv2
    import numpy as np

    from services.scan_gateway.local._stamps import _opened

    rng = np.random.default_rng(7)
    for _ in range(60):
        height, width = (int(v) for v in rng.integers(1, 160, size=2))
        ink = np.where(rng.random((height, width)) < rng.random(), 255, 0).astype(np.uint8)
        for length in (1, 2, 5, 40, 101, 371, 583):
            for axis, kernel in ((1, (1, length)), (0, (length, 1))):
                want = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones(kernel, np.uint8))
                assert np.array_equal(_opened(ink, length, axis=axis), want), (length, axis)


@pytest.mark.slow
@pytest.mark.parametrize("variant", sorted(_BOXES))
async def test_a_grey_rectangular_stamp_over_the_table_puts_its_cells_up_for_review(
    variant: str,
) -> None:
    """A plain grey box («ПОЛУЧЕНО / Вх. № / date», «КОПИЯ ВЕРНА»: no ring, no colour, no
    e-signature words), turned a few degrees, over three value cells of one column: each figure
    whose cell it covers needs review or is absent, its text gives no line, and the figures
    away from it are exact but for two at most, none wrong unflagged."""
    from ._forms import BALANCE, render_pdf, render_png

    dpi, column, rows, box, turn, double, text = _BOXES[variant]
    png = render_png(render_pdf((BALANCE,)), 0, dpi=dpi)
    page = _boxed(png, dpi, box=box, turn=turn, double=double, text=text)
    exact, away = await _read_under_cover(page, rows, column)
    print(f"{variant}: {exact}/{away} away exact")
    assert exact >= away - 2


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
