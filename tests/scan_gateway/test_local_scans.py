"""The local recogniser on the failure classes of real scans, each page built in code: a ruled
table at 75 dpi with a two-line header (rules read as «|» must not glue columns), a «-» in the
current year (a value's column is its position), garbled and values-only text layers, digits
spaced into comb cells, a phone photo in perspective, and broken or empty PDFs (UNREADABLE
with the reason)."""

from __future__ import annotations

import io
import json
import shutil

import pytest

from services.runtime.recognizer import ErrorCode, RecognitionFailed
from services.scan_gateway.local import PlacedWord, layout_page, recognize_to_items
from services.scan_gateway.local._textlayer import LayerVerdict, judge_layer, merge_spaced_digits
from services.scan_gateway.recognizer import LocalSource, ScanGatewayRecognizer

from ._forms import font_path
from .test_local import InlineRunner, make_job

needs_tesseract = pytest.mark.skipif(shutil.which("tesseract") is None, reason="no tesseract")
needs_font = pytest.mark.skipif(font_path() is None, reason="no DejaVuSans font to render with")

_RULED_ROWS = (
    ("Запасы", "1210", "25", "19", "-"),
    ("Денежные средства", "1250", "78", "677", "179"),
    ("Финансовые активы", "1230", "5657", "10397", "2642"),
    ("БАЛАНС", "1600", "5760", "11093", "2821"),
)


def _ruled_png(dpi: int) -> bytes:
    """A ruled balance fragment: a grid of solid rules, dates under «На 31 декабря», numbers
    printed close to the vertical rules, drawn at `dpi` (A4 width)."""
    from PIL import Image, ImageDraw, ImageFont

    scale = dpi / 72
    width, height = int(595 * scale), int(360 * scale)
    image = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(str(font_path()), int(9 * scale))
    draw.text((40 * scale, 20 * scale), "Бухгалтерский баланс на 31 декабря 2024 г.", font=font)
    xs = [40, 250, 300, 400, 480, 560]
    top, header_bottom, row_h = 60, 100, 28
    bottom = header_bottom + row_h * len(_RULED_ROWS)
    for x in xs:
        draw.line([(x * scale, top * scale), (x * scale, bottom * scale)], fill=0, width=2)
    for y in [top, header_bottom] + [
        header_bottom + row_h * (i + 1) for i in range(len(_RULED_ROWS))
    ]:
        draw.line([(xs[0] * scale, y * scale), (xs[-1] * scale, y * scale)], fill=0, width=2)
    header = ("Наименование показателя", "Код", "На 31 декабря", "На 31 декабря", "На 31 декабря")
    years = ("", "", "2024 г.", "2023 г.", "2022 г.")
    for i, (first, second) in enumerate(zip(header, years, strict=True)):
        draw.text(((xs[i] + 4) * scale, (top + 8) * scale), first, font=font)
        draw.text(((xs[i] + 4) * scale, (top + 22) * scale), second, font=font)
    for r, row in enumerate(_RULED_ROWS):
        baseline = (header_bottom + row_h * r + 9) * scale
        draw.text(((xs[0] + 4) * scale, baseline), row[0], font=font)
        draw.text(((xs[1] + 4) * scale, baseline), row[1], font=font)
        for c, value in enumerate(row[2:], start=2):
            right = (xs[c + 1] - 4) * scale  # right-aligned against the next rule
            draw.text((right - draw.textlength(value, font=font), baseline), value, font=font)
    out = io.BytesIO()
    image.save(out, format="PNG", dpi=(dpi, dpi))
    return out.getvalue()


def _table_rows(items: dict[str, bytes]) -> dict[str, list[str]]:
    """Code → the texts of the cells right of it, by column, from the page's item."""
    table = json.loads(items["page-1.json"])["tables"][0]
    out: dict[str, list[str]] = {}
    for row in table["rows"]:
        cells = {c["column"]: c["text"] for c in row["cells"]}
        code_at = next((i for i, t in cells.items() if t in {r[1] for r in _RULED_ROWS}), None)
        if code_at is not None:
            last = max(c["index"] for c in table["columns"])
            out[cells[code_at]] = [cells.get(i, "") for i in range(code_at + 1, last + 1)]
    return out


@needs_font
@needs_tesseract
def test_ruled_75_dpi_page_keeps_each_number_in_its_cell() -> None:
    """A 75-dpi ruled page is upscaled and de-ruled: every number lands in its own column,
    none glued to its neighbour across a rule («78 | 677» never 78677), the «-» included."""
    items = recognize_to_items(_ruled_png(75), "PNG")
    got = _table_rows(items)
    expected = {code: [c.replace(" ", "") for c in values] for _n, code, *values in _RULED_ROWS}
    read = {code: [t.replace(" ", "") for t in texts] for code, texts in got.items()}
    right = sum(read.get(code) == values for code, values in expected.items())
    print(f"ruled 75 dpi: {right}/{len(expected)} rows exact: {read}")
    assert right >= len(expected) - 1
    glued = [t for texts in read.values() for t in texts if t in {"78677", "565710397"}]
    assert glued == []


@needs_font
@needs_tesseract
def test_ruled_page_two_line_header_gives_column_dates() -> None:
    """The dates printed under «На 31 декабря» belong to their columns' headers."""
    items = recognize_to_items(_ruled_png(150), "PNG")
    headers = [c["header"] for c in json.loads(items["page-1.json"])["tables"][0]["columns"]]
    dated = [h for h in headers if "декабря" in h and any(y in h for y in ("2024", "2023", "2022"))]
    assert len(dated) == 3, headers


def _word(text: str, x0: float, top: float = 100.0, width: float | None = None) -> PlacedWord:
    return PlacedWord(text, x0, x0 + (width or 6.0 * len(text)), top, top + 10.0, 100.0)


def test_dash_in_the_current_year_does_not_shift_the_previous_year() -> None:
    """«-» in the current year's cell stays there; the previous year's amount keeps its column
    (positions decide, not the order of the words)."""
    header = [_word("Наименование", 10), _word("Код", 200), _word("2024", 300), _word("2023", 400)]
    rows = [
        [
            _word("Запасы", 10, 120),
            _word("1210", 200, 120),
            _word("-", 320, 120),
            _word("19", 410, 120),
        ],
        [
            _word("Итого", 10, 140),
            _word("1600", 200, 140),
            _word("5", 320, 140),
            _word("7", 410, 140),
        ],
        [_word("Долги", 10, 160), _word("1520", 200, 160), _word("8", 410, 160)],
    ]
    item = layout_page(header + [w for row in rows for w in row], 1)
    table = item.tables[0]
    by_code = {
        next(c.text for c in row.cells if c.column == 1): {c.column: c.text for c in row.cells}
        for row in table.rows
    }
    assert by_code["1210"][2] == "-" and by_code["1210"][3] == "19"
    assert 2 not in by_code["1520"] and by_code["1520"][3] == "8"


_GARBLED = "Eyxranrepcxnfi 6ananc na 31 gexa6pn KoR"
_VALUES = "7751188246 505 2518 891 1396 2518 0"


def test_garbled_text_layer_is_not_trusted() -> None:
    """A scanner's Latin garble of a Russian page is ignored (the page is OCR'd)."""
    words = [_word(t, 10 * i) for i, t in enumerate(_GARBLED.split())]
    assert judge_layer(words) is LayerVerdict.OCR


def test_values_only_text_layer_is_combined_with_ocr() -> None:
    """A layer holding only the filled-in figures is used for its values, not as the page."""
    words = [_word(t, 60 * i) for i, t in enumerate(_VALUES.split())]
    assert judge_layer(words) is LayerVerdict.VALUES


def test_real_text_layer_is_used() -> None:
    """A Cyrillic layer that prints the statement's labels is the page."""
    text = "Бухгалтерский баланс Наименование показателя Код АКТИВ Запасы 1210 2 345 2 100"
    words = [_word(t, 60 * i) for i, t in enumerate(text.split())]
    assert judge_layer(words) is LayerVerdict.USE


def test_comb_digits_join_into_numbers_but_columns_stay_apart() -> None:
    """«1 3 9 6» (one digit a comb cell) is 1396; the next column's «2 5 1 8» stays separate."""
    digits = [_word(d, 100 + 9 * i, width=5) for i, d in enumerate("1396")]
    digits += [_word(d, 300 + 9 * i, width=5) for i, d in enumerate("2518")]
    assert [w.text for w in merge_spaced_digits(digits)] == ["1396", "2518"]


@pytest.mark.parametrize(
    ("data", "reason"),
    [(b"", "empty"), (b"%PDF-1.4\nnot really a pdf\n", "not a PDF"), (b"\x00" * 64, "PDF")],
    ids=["zero-bytes", "no-root", "binary-junk"],
)
async def test_broken_pdf_is_unreadable_with_the_reason(data: bytes, reason: str) -> None:
    """A PDF that cannot be opened ends UNREADABLE saying why, not UNKNOWN_ERROR."""
    recognizer = ScanGatewayRecognizer(LocalSource(InlineRunner()))
    with pytest.raises(RecognitionFailed) as caught:
        await recognizer.recognize(data, make_job("PDF"))
    assert caught.value.code == ErrorCode.UNREADABLE
    assert reason in caught.value.message


def _phone_photo(png: bytes) -> bytes:
    """The page as a phone sees it: on a darker table, in perspective (top edge narrower and
    tilted), blurred a little, saved as JPEG."""
    import cv2
    import numpy as np
    from PIL import Image

    page = np.asarray(Image.open(io.BytesIO(png)).convert("L"))
    h, w = page.shape
    out_w, out_h = int(w * 1.25), int(h * 1.2)
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32)
    dst = np.array(
        [
            [0.12 * out_w + 0.04 * w, 0.08 * out_h],
            [0.88 * out_w - 0.012 * w, 0.06 * out_h],
            [0.92 * out_w, 0.93 * out_h],
            [0.06 * out_w, 0.9 * out_h],
        ],
        dtype=np.float32,
    )
    warped = cv2.warpPerspective(
        page, cv2.getPerspectiveTransform(src, dst), (out_w, out_h), borderValue=90
    )
    ok, buf = cv2.imencode(".jpg", cv2.GaussianBlur(warped, (3, 3), 0))
    assert ok
    return bytes(buf.tobytes())


def test_photo_sheet_is_flattened_and_a_scan_left_as_it_is() -> None:
    """The light quadrilateral of a photographed sheet is warped upright to the sheet's
    proportions; a page that fills its image (a scan) is returned untouched."""
    import numpy as np
    from PIL import Image

    from services.scan_gateway.local._raster import _flatten_photo

    sheet = Image.new("L", (600, 850), 255)
    jpg = _phone_photo(_png_of(sheet))
    flat = _flatten_photo(np.asarray(Image.open(io.BytesIO(jpg)).convert("L")))
    height, width = flat.shape
    assert abs(height / width - 850 / 600) < 0.12, (width, height)
    assert flat.mean() > 240  # the table around the sheet is gone
    scan = np.full((850, 600), 250, np.uint8)
    assert _flatten_photo(scan) is scan


def _png_of(image: object) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")  # type: ignore[attr-defined]
    return out.getvalue()


@needs_font
@needs_tesseract
@pytest.mark.slow
async def test_phone_photo_in_perspective_reads_like_the_page() -> None:
    """A phone photo of the typeset balance, in perspective on a darker table: the sheet is
    flattened before OCR and at least 90 % of the printed values come out exactly."""
    from ._forms import FORMS, render_pdf, render_png
    from .test_local import printed, read

    jpg = _phone_photo(render_png(render_pdf(), 0, dpi=200))
    recognizer = ScanGatewayRecognizer(LocalSource(InlineRunner()))
    recognition = await recognizer.recognize(jpg, make_job("JPG"))
    [document] = recognition.documents
    expected = printed(FORMS[0])
    got = read(document)
    exact = sum(got.get(key) == amount for key, amount in expected.items())
    print(f"phone photo: {exact}/{len(expected)} values exact")
    assert exact >= 0.9 * len(expected)
