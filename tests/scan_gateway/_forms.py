"""A balance sheet and an income statement rendered in code: a text-layer PDF (reportlab, the
DejaVuSans TTF for Cyrillic) and the same pages as PNG (rendered from that PDF by pypdfium2).

DejaVuSans comes from the system fonts (/usr/share/fonts/truetype/dejavu) or, failing that,
from matplotlib's bundled copy; tests that need it skip when neither exists.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

FONT_CANDIDATES = (
    Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
    Path("/usr/share/fonts/dejavu/DejaVuSans.ttf"),
)


def font_path() -> Path | None:
    for path in FONT_CANDIDATES:
        if path.exists():
            return path
    try:
        import matplotlib  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    bundled = Path(matplotlib.__file__).parent / "mpl-data" / "fonts" / "ttf" / "DejaVuSans.ttf"
    return bundled if bundled.exists() else None


@dataclass(frozen=True)
class Form:
    kind: str
    title: str
    okud: str
    columns: tuple[str, str]
    lines: tuple[tuple[str, str, str, str], ...]  # name, code, current, previous


HEADER = (
    "Форма по ОКУД {okud}",
    "Дата (число, месяц, год) 31.12.2024",
    "Организация ООО «Ромашка-Сервис» по ОКПО 76543210",
    "Идентификационный номер налогоплательщика ИНН 7812345675",
    "Организационно-правовая форма / форма собственности по ОКОПФ / ОКФС 12300 / 16",
    "Единица измерения: в тыс. рублей по ОКЕИ 384",
)

BALANCE = Form(
    "BALANCE",
    "Бухгалтерский баланс на 31 декабря 2024 г.",
    "0710001",
    ("На 31 декабря 2024 г.", "На 31 декабря 2023 г."),
    (
        ("Основные средства", "1150", "5 000", "4 800"),
        ("Финансовые вложения", "1170", "1 200", "1 000"),
        ("Итого по разделу I", "1100", "6 200", "5 800"),
        ("Запасы", "1210", "2 345", "2 100"),
        ("Дебиторская задолженность", "1230", "3 456", "3 000"),
        ("Денежные средства и денежные эквиваленты", "1250", "789", "650"),
        ("Итого по разделу II", "1200", "6 590", "5 750"),
        ("БАЛАНС", "1600", "12 790", "11 550"),
        ("Уставный капитал", "1310", "100", "100"),
        ("Нераспределенная прибыль (непокрытый убыток)", "1370", "7 690", "6 450"),
        ("Итого по разделу III", "1300", "7 790", "6 550"),
        ("Заемные средства", "1410", "2 000", "2 500"),
        ("Итого по разделу IV", "1400", "2 000", "2 500"),
        ("Заемные средства", "1510", "1 000", "800"),
        ("Кредиторская задолженность", "1520", "2 000", "1 700"),
        ("Итого по разделу V", "1500", "3 000", "2 500"),
        ("БАЛАНС", "1700", "12 790", "11 550"),
    ),
)

INCOME = Form(
    "INCOME",
    "Отчет о финансовых результатах за Январь - Декабрь 2024 г.",
    "0710002",
    ("За Январь - Декабрь 2024 г.", "За Январь - Декабрь 2023 г."),
    (
        ("Выручка", "2110", "25 000", "21 000"),
        ("Себестоимость продаж", "2120", "(18 000)", "(15 500)"),
        ("Валовая прибыль (убыток)", "2100", "7 000", "5 500"),
        ("Коммерческие расходы", "2210", "(2 000)", "(1 800)"),
        ("Управленческие расходы", "2220", "(1 500)", "(1 200)"),
        ("Прибыль (убыток) от продаж", "2200", "3 500", "2 500"),
        ("Проценты к получению", "2320", "120", "80"),
        ("Проценты к уплате", "2330", "(300)", "(350)"),
        ("Прочие доходы", "2340", "200", "150"),
        ("Прочие расходы", "2350", "(170)", "(180)"),
        ("Прибыль (убыток) до налогообложения", "2300", "3 350", "2 200"),
        ("Налог на прибыль", "2410", "(670)", "(440)"),
        ("Чистая прибыль (убыток)", "2400", "2 680", "1 760"),
    ),
)

FORMS = (BALANCE, INCOME)


def expected_amount(text: str) -> str:
    """The contract money string a printed amount stands for."""
    negative = text.startswith("(")
    digits = text.strip("()").replace(" ", "")
    return f"-{digits}" if negative else digits


def render_pdf(
    forms: tuple[Form, ...] = FORMS, crop: tuple[float, float, float, float] | None = None
) -> bytes:
    """One landscape A4 page per form, text drawn with DejaVuSans (a real text layer); `crop`
    (x0, y0, x1, y1 in points from the bottom left) sets each page's CropBox."""
    from reportlab.lib.pagesizes import A4, landscape
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.pdfgen import canvas

    path = font_path()
    if path is None:
        msg = "no DejaVuSans font found"
        raise FileNotFoundError(msg)
    if "DejaVuSans" not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(TTFont("DejaVuSans", str(path)))
    buffer = io.BytesIO()
    width, height = landscape(A4)
    pdf = canvas.Canvas(buffer, pagesize=(width, height))
    for form in forms:
        y = height - 50
        pdf.setFont("DejaVuSans", 12)
        pdf.drawString(40, y, form.title)
        y -= 24
        pdf.setFont("DejaVuSans", 10)
        for line in HEADER:
            pdf.drawString(40, y, line.format(okud=form.okud))
            y -= 16
        y -= 12
        pdf.drawString(40, y, "Наименование показателя")
        pdf.drawCentredString(380, y, "Код")
        pdf.drawCentredString(520, y, form.columns[0])
        pdf.drawCentredString(730, y, form.columns[1])
        y -= 20
        for name, code, current, previous in form.lines:
            pdf.drawString(40, y, name)
            pdf.drawCentredString(380, y, code)
            pdf.drawCentredString(520, y, current)
            pdf.drawCentredString(730, y, previous)
            y -= 17
        if crop is not None:
            pdf.setCropBox(crop)
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def render_png(pdf: bytes, page: int, dpi: int = 300) -> bytes:
    """One page of `pdf` as a PNG image with no text layer."""
    import pypdfium2

    document = pypdfium2.PdfDocument(pdf)
    try:
        image = document[page].render(scale=dpi / 72).to_pil()
    finally:
        document.close()
    out = io.BytesIO()
    image.convert("L").save(out, format="PNG")
    return out.getvalue()


def render_scanned_pdf(forms: tuple[Form, ...], dpi: int = 150) -> bytes:
    """A PDF of scanned pages, one a form (images at `dpi`, no text layer): each page goes
    through OCR."""
    from PIL import Image

    text = render_pdf(forms)
    images = [Image.open(io.BytesIO(render_png(text, n, dpi=dpi))) for n in range(len(forms))]
    out = io.BytesIO()
    images[0].save(out, "PDF", resolution=dpi, save_all=True, append_images=images[1:])
    return out.getvalue()
