"""The header of a tax-office form whose text layer holds only the filled-in values, built in
code: the blank's labels are an image (OCR reads them), the values a text layer — ИНН and КПП
one digit a comb cell, the organisation above its caption. The values are invisible text, so
the page image does not print them and only the layer can give them: the test proves the header
is read from the layer (its words, not only its figures) and that an ИНН whose label is not
read at all is found by the КПП beside it."""

from __future__ import annotations

import io
import shutil

import pytest

from services.scan_gateway.local import recognize_to_items
from services.scan_gateway.mapper import map_items
from services.scan_gateway.resultset import parse_item

from ._forms import font_path

pytestmark = [
    pytest.mark.skipif(font_path() is None, reason="no DejaVuSans font to render with"),
    pytest.mark.skipif(shutil.which("tesseract") is None, reason="no tesseract"),
]

_NAME = 'БЛАГОТВОРИТЕЛЬНЫЙ ФОНД "МАРИИ ЛЕОНТЬЕВОЙ"'
_INN = "7751188246"
_KPP = "775101001"
_CELL = 14.0  # a comb cell's width, points
_PAGE = (595.0, 842.0)  # A4 portrait, points
_DPI = 200

# (x, top) in points: the blank's printed labels
_LABELS = (
    ("КПП", 40.0, 80.0),
    ("Номер корректировки", 40.0, 170.0),
    ("(наименование организации)", 200.0, 225.0),
)
_BALANCE = (
    ("Денежные средства и денежные эквиваленты", "1250", "505", "2518"),
    ("Финансовые и другие оборотные активы", "1230", "891", "0"),
    ("БАЛАНС", "1600", "1396", "2518"),
    ("Целевые средства", "1350", "1356", "2518"),
    ("Кредиторская задолженность", "1520", "40", "0"),
    ("БАЛАНС", "1700", "1396", "2518"),
)


def _labels_png() -> bytes:
    """The blank's labels as a page image (no ИНН label: OCR of a real blank misreads it)."""
    from PIL import Image, ImageDraw, ImageFont

    scale = _DPI / 72
    image = Image.new("L", (int(_PAGE[0] * scale), int(_PAGE[1] * scale)), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(str(font_path()), int(10 * scale))
    for text, x, top in _LABELS:
        draw.text((x * scale, top * scale), text, font=font)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _tax_form_pdf() -> bytes:
    """Page 1: the cover (labels an image, values invisible text: ИНН and КПП a digit a cell,
    the correction number 0, the organisation); page 2: a balance with a real text layer that
    prints neither the organisation nor the ИНН."""
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.pdfgen import canvas

    if "DejaVuSans" not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(TTFont("DejaVuSans", str(font_path())))
    width, height = _PAGE
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=_PAGE)
    pdf.drawImage(ImageReader(io.BytesIO(_labels_png())), 0, 0, width, height)

    def invisible(text: str, x: float, top: float) -> None:
        layer = pdf.beginText(x, height - top - 9)
        layer.setFont("DejaVuSans", 10)
        layer.setTextRenderMode(3)
        layer.textOut(text)
        pdf.drawText(layer)

    for row_top, digits in ((40.0, _INN), (80.0, _KPP)):
        for i, digit in enumerate(digits):
            invisible(digit, 150 + i * _CELL, row_top)
    invisible("0", 160.0, 170.0)
    invisible(_NAME, 150.0, 205.0)
    pdf.showPage()
    pdf.setFont("DejaVuSans", 10)
    y = height - 60
    for text in ("Бухгалтерский баланс на 31 декабря 2021 г.", "Форма по ОКУД 0710001"):
        pdf.drawString(40, y, text)
        y -= 18
    y -= 10
    pdf.drawString(40, y, "Наименование показателя")
    pdf.drawCentredString(300, y, "Код")
    pdf.drawCentredString(400, y, "На 31 декабря 2021 г.")
    pdf.drawCentredString(510, y, "На 31 декабря 2020 г.")
    for name, code, current, previous in _BALANCE:
        y -= 17
        pdf.drawString(40, y, name)
        pdf.drawCentredString(300, y, code)
        pdf.drawCentredString(400, y, current)
        pdf.drawCentredString(510, y, previous)
    pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def test_header_of_a_values_only_text_layer_comes_from_the_layer() -> None:
    """The balance takes the cover's organisation as the layer prints it (confidence 100, not
    up for review) and the ИНН from the comb cells above «КПП», whose own label is not
    read: no HEADER_FIELD_MISSING."""
    items = recognize_to_items(_tax_form_pdf(), "PDF", dpi=_DPI)
    parsed = [parse_item(name, data) for name, data in sorted(items.items())]
    [document] = map_items(parsed).documents
    header = document["header"]
    assert document["document_type"] == "BALANCE"
    assert header["organization_name"] == _NAME
    assert header["organization_name_confidence"] == 100
    assert header["inn"] == _INN
    assert header["report_date"] == "2021-12-31"
    assert "organization_name" not in header["needs_review_fields"]
    assert "inn" not in header["needs_review_fields"]
    assert "HEADER_FIELD_MISSING" not in {w["code"] for w in document["warnings"]}
