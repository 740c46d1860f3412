"""Issue 26 class 6: the tax-office small-business blank (КНД 0710098) scanned at ~150 dpi,
a little turned, with a folded corner — four pages built in code (tests/scan_gateway/_smallbiz)
— reads as its simplified balance and ОФР by the blank's structure: each comb's digits make
one figure, the title and address pages give no lines. And the comb itself: its walls are
found where both ends meet a horizontal stroke, a digit's stem is not one."""

from __future__ import annotations

import shutil

import pytest

from services.scan_gateway.local import PlacedWord
from services.scan_gateway.local._combs import join_comb_words
from services.scan_gateway.local._raster import Comb, prepare_page
from services.scan_gateway.recognizer import LocalSource, ScanGatewayRecognizer

from ._forms import expected_amount, font_path
from ._fullform import (
    FULL_ASSETS,
    FULL_INCOME,
    FULL_INCOME_END,
    FULL_LIABILITIES,
    NKO_BALANCE,
    NKO_TARGET_USE,
    render_full_form_pdf,
    render_nko_pdf,
)
from ._smallbiz import BALANCE_LINES, INCOME_LINES, Line, render_smallbiz_pdf
from .test_local import InlineRunner, make_job

needs_font = pytest.mark.skipif(font_path() is None, reason="no DejaVuSans font to render with")
needs_tesseract = pytest.mark.skipif(shutil.which("tesseract") is None, reason="no tesseract")


Printed = dict[str, dict[tuple[str, int], str | None]]


def _printed(*forms: tuple[str, tuple[Line, ...]]) -> Printed:
    """Document type → (code, column position) → the money string printed (None: blank)."""
    out: Printed = {}
    for kind, lines in forms:
        for _name, code, values in lines:
            for i, text in enumerate(values):
                filled = text not in ("", "-", "—")
                out.setdefault(kind, {})[(code, i)] = expected_amount(text) if filled else None
    return out


async def _read_by_structure(
    pdf: bytes,
    printed: Printed,
    variants: dict[str, str | None],
    label: str,
    share: float = 0.9,
) -> None:
    """The blank's documents are the statements it prints, in order, and nothing else (no
    table from the cover pages, so no file warning); no value is wrong without review, no
    code the blank does not print is emitted, and at least `share` of the printed figures
    come out exact."""
    recognizer = ScanGatewayRecognizer(LocalSource(InlineRunner()))
    recognition = await recognizer.recognize(pdf, make_job("PDF"))
    kinds = [d["document_type"] for d in recognition.documents]
    assert kinds == list(printed), kinds
    # the cover's «Код по ОКПО», «Код субъекта …» labels start no table: nothing unmapped
    assert [w["code"] for w in recognition.warnings] == [], recognition.warnings
    exact = total = 0
    for document in recognition.documents:
        expected = printed[document["document_type"]]
        assert document["form_variant"] == variants[document["document_type"]]
        columns = sorted(c["column_index"] for c in document["columns"])
        codes = {code for code, _ in expected}
        for line in document["lines"]:
            if line["line_code"] is None:
                continue
            assert line["line_code"] in codes, line  # no line invented from the cover pages
            for value in line["values"]:
                key = (line["line_code"], columns.index(value["column_index"]))
                right = value["amount"] == expected[key]
                assert right or value["needs_review"], (key, value)
        got = {
            (line["line_code"], columns.index(v["column_index"])): v["amount"]
            for line in document["lines"]
            for v in line["values"]
        }
        filled = {key: amount for key, amount in expected.items() if amount is not None}
        exact += sum(got.get(key) == amount for key, amount in filled.items())
        total += len(filled)
    print(f"{label}: {exact}/{total} figures exact")
    assert exact >= share * total


@needs_font
@needs_tesseract
@pytest.mark.slow
async def test_the_small_business_blank_reads_its_balance_and_income_statement() -> None:
    """КНД 0710098: two documents (the simplified balance and ОФР), nothing from the title
    and address pages."""
    printed = _printed(("BALANCE", BALANCE_LINES), ("INCOME", INCOME_LINES))
    variants: dict[str, str | None] = {"BALANCE": "simplified", "INCOME": "simplified"}
    await _read_by_structure(render_smallbiz_pdf(), printed, variants, "small-business blank")


@needs_font
@needs_tesseract
@pytest.mark.slow
@pytest.mark.parametrize(
    ("seed", "pen"),
    [(7, None), (26, None), (7, (35, 55, 160))],
    ids=["grey-7", "grey-26", "blue-7"],
)
async def test_hand_written_figures_in_the_combs_are_never_wrong_unflagged(
    seed: int, pen: tuple[int, int, int] | None
) -> None:
    """КНД 0710098 filled in by hand: each digit of its own size, slant, turn, stroke and
    place in its cell, in a grey scan's dark grey or a ballpoint's blue on a colour scan
    (coloured ink, as a stamp's is). OCR is no judge of handwriting, so the requirement is
    that no figure comes out wrong without review; those read are a bonus (a floor of half
    keeps the blank read as a blank: its two documents, no line from its covers)."""
    printed = _printed(("BALANCE", BALANCE_LINES), ("INCOME", INCOME_LINES))
    variants: dict[str, str | None] = {"BALANCE": "simplified", "INCOME": "simplified"}
    pdf = render_smallbiz_pdf(hand=seed, pen=pen)
    label = f"hand-written blank {seed}{'' if pen is None else ', blue'}"
    await _read_by_structure(pdf, printed, variants, label, share=0.5)


@needs_font
@needs_tesseract
@pytest.mark.slow
async def test_the_full_form_blank_reads_its_balance_and_income_over_two_pages_each() -> None:
    """КНД 0710099: the full balance (АКТИВ and a continuation page with ПАССИВ) is one
    document, the full ОФР (2110 … 2400, and 2500 on its next page) another; the «Пояснения»
    column's note numbers are no figures, the empty fields' dashes no values."""
    printed = _printed(
        ("BALANCE", FULL_ASSETS + FULL_LIABILITIES), ("INCOME", FULL_INCOME + FULL_INCOME_END)
    )
    variants: dict[str, str | None] = {"BALANCE": "full", "INCOME": "full"}
    await _read_by_structure(render_full_form_pdf(), printed, variants, "КНД 0710099 blank")


@needs_font
@needs_tesseract
@pytest.mark.slow
async def test_the_nko_blank_reads_its_balance_and_target_use_report() -> None:
    """КНД 0710096 of an НКО: the simplified balance (целевые средства, no capital) and
    «Отчет о целевом использовании средств» (ОКУД 0710003, 6100 … 6400) as a DISCLOSURE;
    fields struck through along their length are blank."""
    printed = _printed(("BALANCE", NKO_BALANCE), ("DISCLOSURE", NKO_TARGET_USE))
    variants: dict[str, str | None] = {"BALANCE": "simplified", "DISCLOSURE": None}
    await _read_by_structure(render_nko_pdf(), printed, variants, "НКО blank")


@needs_font
@needs_tesseract
@pytest.mark.slow
async def test_the_nko_blank_filled_in_by_tax_software_reads_its_spaced_figures() -> None:
    """The same НКО blank as tax software prints it (no combs drawn: each figure's digits
    spaced a cell apart, an empty field a line, a «Пояснения» column of lines) and scanned:
    the spaced digits are read as one figure each (a comb without walls), as the combs are."""
    printed = _printed(("BALANCE", NKO_BALANCE), ("DISCLOSURE", NKO_TARGET_USE))
    variants: dict[str, str | None] = {"BALANCE": "simplified", "DISCLOSURE": None}
    pdf = render_nko_pdf(printed=True)
    await _read_by_structure(pdf, printed, variants, "НКО blank, printed")


def _comb_page(text: str, *, stem: bool) -> object:
    """A 300-dpi strip: a six-cell comb printing `text` right-aligned; with `stem`, a lone tall
    «1» drawn outside any comb."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("L", (2480, 3508), 255)  # A4 at 300 dpi: not upscaled
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(str(font_path()), 46)
    x0, y0, pitch, height = 400, 800, 50, 70
    draw.rectangle([x0, y0, x0 + 6 * pitch, y0 + height], outline=0, width=2)
    for i in range(1, 6):
        draw.line([(x0 + i * pitch, y0), (x0 + i * pitch, y0 + height)], fill=0, width=2)
    for i, ch in enumerate(text):
        left = x0 + (6 - len(text) + i) * pitch
        draw.text((left + 12, y0 + 8), ch, font=font, fill=0)
    if stem:
        draw.text((100, 800), "1", font=ImageFont.truetype(str(font_path()), 70), fill=0)
    return image


@needs_font
def test_a_comb_is_found_by_its_walls_and_its_walls_are_erased() -> None:
    """The comb's seven walls make one comb of six cells at its pitch; the printed digits
    (a «1» among them, and one outside) stay on the page, the walls do not."""
    import numpy as np

    prepared = prepare_page(_comb_page("2145", stem=True), deskew=False)
    [comb] = prepared.combs
    assert abs(comb.pitch - 50) <= 2 and abs((comb.x1 - comb.x0) - 300) <= 6
    ink = np.asarray(prepared.image) < 128
    assert not ink[810:860, 449:452].any()  # the wall between the first two (empty) cells
    assert ink[800:880, 100:160].any()  # the lone «1» outside the comb


@needs_font
def test_two_combs_side_by_side_are_two_however_close() -> None:
    """Two six-cell combs 42 px apart (about a cell's width: brackets are printed between
    them): the gap closes no cell — no stroke runs along its top — so they are two combs."""
    from PIL import Image, ImageDraw

    image = Image.new("L", (2480, 3508), 255)
    draw = ImageDraw.Draw(image)
    for x0 in (400, 742):
        draw.rectangle([x0, 800, x0 + 300, 870], outline=0, width=2)
        for i in range(1, 6):
            draw.line([(x0 + 50 * i, 800), (x0 + 50 * i, 870)], fill=0, width=2)
    combs = prepare_page(image, deskew=False).combs
    assert sorted(round(c.x0 / 10) for c in combs) == [40, 74], combs


def test_a_combs_characters_join_and_an_empty_cell_splits() -> None:
    """Digits read one to a cell are one figure; a gap of an empty cell is a space."""
    comb = Comb(0.0, 0.0, 500.0, 60.0, 50.0)
    digits = [PlacedWord(d, 15 + 50 * i, 40 + 50 * i, 10, 50, 90.0) for i, d in enumerate("2145")]
    far = PlacedWord("7", 15 + 50 * 6, 40 + 50 * 6, 10, 50, 88.0)
    outside = PlacedWord("1150", 600, 680, 10, 50, 95.0)
    joined = join_comb_words([*digits, far, outside], [comb])
    assert sorted(w.text for w in joined) == ["1150", "2145", "7"]


def _label(text: str, x0: float, top: float) -> list[PlacedWord]:
    """The words of `text` set from x0 on one line (7 units a character, a space between)."""
    out: list[PlacedWord] = []
    for word in text.split():
        out.append(PlacedWord(word, x0, x0 + 7 * len(word), top, top + 10, 95.0))
        x0 += 7 * len(word) + 5
    return out


def test_a_covers_code_labels_start_no_table_a_code_heading_does() -> None:
    """«Код по ОКПО» and «Код субъекта Российской Федерации» on a cover are field labels: the
    page is text lines only; «Код строки» over coded rows starts the table."""
    from services.scan_gateway.local import layout_page

    cover = [
        *_label("Код по ОКПО", 10, 100),
        *_label("76543210", 300, 100),
        *_label("Код субъекта Российской Федерации", 10, 130),
        *_label("78", 300, 130),
    ]
    assert layout_page(cover, 1).tables == ()
    statement = [
        *_label("Наименование показателя", 10, 100),
        *_label("Код строки", 200, 100),
        *_label("2024", 300, 100),
        *_label("Запасы", 10, 130),
        *_label("1210", 200, 130),
        *_label("2145", 300, 130),
        *_label("БАЛАНС", 10, 160),
        *_label("1600", 200, 160),
        *_label("11004", 300, 160),
    ]
    [table] = layout_page(statement, 1).tables
    assert len(table.rows) == 2
