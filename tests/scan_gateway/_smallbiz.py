"""A tax-office blank of the small-business family (КНД 0710098 «Бухгалтерская отчетность
субъектов малого предпринимательства») drawn in code as it comes back from a scanner: four
pages (title, address, simplified balance, simplified ОФР), every filled-in figure one digit
to a comb cell, codes printed beside the combs, each page with the blank's furniture (the ИНН /
КПП / «Стр.» combs, «Форма по КНД» or «Форма по ОКУД»), rasterised at ~150 dpi, turned a little
and with a folded corner, in a PDF of images (no text layer).

The figures are the form's simplified lines and hold its relations (1600 = 1700, the ОФР's
net profit), so a right reading is a `done` document.
"""

from __future__ import annotations

import io
import textwrap
from typing import Any

from ._forms import font_path

DPI = 150
INN, KPP = "7812345675", "781201001"

BALANCE_LINES: tuple[tuple[str, str, tuple[str, str, str]], ...] = (
    ("Материальные внеоборотные активы", "1150", ("4870", "4120", "3905")),
    ("Нематериальные, финансовые и другие внеоборотные активы", "1170", ("350", "", "")),
    ("Запасы", "1210", ("2145", "1980", "1760")),
    ("Денежные средства и денежные эквиваленты", "1250", ("612", "455", "398")),
    ("Финансовые и другие оборотные активы", "1230", ("3027", "2641", "2210")),
    ("БАЛАНС", "1600", ("11004", "9196", "8273")),
    ("Капитал и резервы", "1300", ("5318", "4402", "3650")),
    ("Целевые средства", "1350", ("", "", "")),
    ("Фонд недвижимого и особо ценного движимого имущества", "1360", ("", "", "")),
    ("Долгосрочные заемные средства", "1410", ("1500", "1800", "2000")),
    ("Другие долгосрочные обязательства", "1450", ("", "", "")),
    ("Краткосрочные заемные средства", "1510", ("900", "600", "450")),
    ("Кредиторская задолженность", "1520", ("3286", "2394", "2173")),
    ("Другие краткосрочные обязательства", "1550", ("", "", "")),
    ("БАЛАНС", "1700", ("11004", "9196", "8273")),
)
INCOME_LINES: tuple[tuple[str, str, tuple[str, str]], ...] = (
    ("Выручка", "2110", ("28450", "24310")),
    ("Расходы по обычной деятельности", "2120", ("(25120)", "(21870)")),
    ("Проценты к уплате", "2330", ("(180)", "(210)")),
    ("Прочие доходы", "2340", ("96", "140")),
    ("Прочие расходы", "2350", ("(410)", "(322)")),
    ("Налоги на прибыль (доходы)", "2410", ("(567)", "(410)")),
    ("Чистая прибыль (убыток)", "2400", ("2269", "1638")),
)
_SECTIONS = {"1150": "АКТИВ", "1300": "ПАССИВ"}

_MM = DPI / 25.4
_CELL_W, _CELL_H = int(4.2 * _MM), int(6.0 * _MM)  # one comb cell: a digit's place


class _Page:
    """One A4 page at `DPI` and the drawing helpers of the blank; with `hand` (a seeded
    random.Random) the figures in its combs are written by hand (`_hand_digit`), with `pen`
    (an RGB colour) in that ink rather than a grey scan's dark grey."""

    def __init__(
        self, number: int, hand: Any = None, pen: tuple[int, int, int] | None = None
    ) -> None:
        from PIL import Image, ImageDraw, ImageFont

        self.hand, self.pen = hand, pen
        self.image = Image.new("L", (int(210 * _MM), int(297 * _MM)), 255)
        self.ink = Image.new("L", self.image.size, 255)  # the hand's strokes, for `pen`
        self.draw = ImageDraw.Draw(self.image)
        path = str(font_path())
        self.font = ImageFont.truetype(path, int(9 * DPI / 72))
        self.small = ImageFont.truetype(path, int(7 * DPI / 72))
        self.bold = ImageFont.truetype(path, int(11 * DPI / 72))
        self.digit = ImageFont.truetype(path, int(11 * DPI / 72))
        self._furniture(number)

    def text(self, x_mm: float, y_mm: float, text: str, font: Any = None) -> None:
        self.draw.text((x_mm * _MM, y_mm * _MM), text, font=font or self.font, fill=0)

    def centred(self, y_mm: float, text: str, font: Any = None) -> None:
        font = font or self.bold
        width = self.draw.textlength(text, font=font)
        self.draw.text(((self.image.width - width) / 2, y_mm * _MM), text, font=font, fill=0)

    def comb(
        self,
        x_mm: float,
        y_mm: float,
        cells: int,
        text: str,
        *,
        right: bool = False,
        hand: bool = False,
    ) -> float:
        """`cells` comb cells from (x, y), `text` one character to a cell (left-aligned, or
        right-aligned as figures are; with `hand` on a hand-filled page, written by hand);
        returns the comb's right edge (mm)."""
        x0, y0 = int(x_mm * _MM), int(y_mm * _MM)
        self.draw.rectangle([x0, y0, x0 + cells * _CELL_W, y0 + _CELL_H], outline=0, width=1)
        for i in range(1, cells):
            x = x0 + i * _CELL_W
            self.draw.line([(x, y0), (x, y0 + _CELL_H)], fill=0, width=1)
        start = cells - len(text) if right else 0
        for i, ch in enumerate(text[:cells]):
            left = x0 + (start + i) * _CELL_W
            if hand and self.hand is not None:
                self._hand_digit(left, y0, ch)
                continue
            width = self.draw.textlength(ch, font=self.digit)
            self.draw.text(
                (left + (_CELL_W - width) / 2, y0 + _CELL_H * 0.12), ch, font=self.digit, fill=0
            )
        return (x0 + cells * _CELL_W) / _MM

    def _hand_digit(self, left: int, top: int, ch: str) -> None:
        """A digit as a hand writes it in its cell: each glyph of its own size (0.85–1.15),
        slant (a shear of 0.1–0.3), turn (±8°) and stroke (a pen pressed harder or lighter),
        off the cell's middle and baseline by up to a millimetre, in a ballpoint's dark grey."""
        from PIL import Image, ImageChops, ImageDraw, ImageFont

        rnd = self.hand
        size = int(11 * DPI / 72 * rnd.uniform(0.85, 1.15))
        font = ImageFont.truetype(str(font_path()), size)
        glyph = Image.new("L", (_CELL_W * 2, _CELL_H * 2), 255)
        width = ImageDraw.Draw(glyph).textlength(ch, font=font)
        ImageDraw.Draw(glyph).text(
            ((glyph.width - width) / 2, _CELL_H * 0.62),
            ch,
            font=font,
            fill=rnd.randint(25, 70),
            stroke_width=rnd.choice((0, 0, 0, 1)),
            stroke_fill=rnd.randint(25, 70),
        )
        shear = rnd.uniform(0.1, 0.3)  # x += shear * (y - middle): the top leans right
        glyph = glyph.transform(
            glyph.size,
            Image.Transform.AFFINE,
            (1, shear, -shear * glyph.height / 2, 0, 1, 0),
            resample=Image.Resampling.BICUBIC,
            fillcolor=255,
        )
        glyph = glyph.rotate(rnd.uniform(-8, 8), Image.Resampling.BICUBIC, fillcolor=255)
        dx, dy = (int(rnd.uniform(-0.5, 0.5) * _MM), int(rnd.uniform(-0.8, 0.6) * _MM))
        at = (left + _CELL_W // 2 - glyph.width // 2 + dx, top - _CELL_H // 2 + dy)
        box = (*at, at[0] + glyph.width, at[1] + glyph.height)
        sheet = self.image if self.pen is None else self.ink
        sheet.paste(ImageChops.darker(sheet.crop(box), glyph), box[:2])

    def sheet(self) -> Any:
        """The page as drawn: grey, or in colour with the hand's strokes in `pen`'s ink
        (the darker a stroke, the more of the ink over the print)."""
        import numpy as np
        from PIL import Image

        if self.pen is None:
            return self.image
        page = np.asarray(self.image.convert("RGB"), dtype=np.float32)
        cover = 1.0 - np.asarray(self.ink, dtype=np.float32)[..., None] / 255
        pen = np.array(self.pen, dtype=np.float32)
        mixed = np.minimum(page, page * (1 - cover) + pen * cover)
        return Image.fromarray(mixed.astype(np.uint8), "RGB")

    def strike(self, x_mm: float, y_mm: float, cells: int) -> None:
        """A line through the middle of a comb's cells: the field has no figure."""
        x0, y = int(x_mm * _MM), int(y_mm * _MM + _CELL_H / 2)
        self.draw.line([(x0 + 3, y), (x0 + cells * _CELL_W - 3, y)], fill=0, width=2)

    def rule(self, x_mm: float, y_mm: float, length_mm: float) -> None:
        """A line `length_mm` long: a printout's empty field."""
        y = int(y_mm * _MM)
        self.draw.line([(int(x_mm * _MM), y), (int((x_mm + length_mm) * _MM), y)], fill=0)

    def spaced(self, x_mm: float, y_mm: float, cells: int, printed: str) -> None:
        """A figure as tax software prints it on the blank (no combs drawn): its characters
        spaced a cell apart, ending at the field's right edge; an empty field a line."""
        width = cells * _CELL_W / _MM
        if printed in ("", "-", "—"):
            self.rule(x_mm, y_mm + 3.5, width)
            return
        chars = printed.replace("(", "").replace(")", "")
        if printed.startswith("("):
            chars = f"({chars})"
        right = x_mm * _MM + cells * _CELL_W
        for i, ch in enumerate(reversed(chars)):
            left = right - (i + 1) * _CELL_W
            glyph = self.draw.textlength(ch, font=self.digit)
            self.draw.text(
                (left + (_CELL_W - glyph) / 2, y_mm * _MM + _CELL_H * 0.12),
                ch,
                font=self.digit,
                fill=0,
            )

    def amount(self, x_mm: float, y_mm: float, cells: int, printed: str) -> None:
        """A figure in a comb, a negative one between brackets printed outside it."""
        digits = printed.strip("()")
        right = self.comb(x_mm, y_mm, cells, digits, right=True, hand=True)
        if printed.startswith("("):
            self.text(x_mm - 2.2, y_mm - 0.6, "(", self.bold)
            self.text(right + 0.6, y_mm - 0.6, ")", self.bold)

    def _furniture(self, number: int) -> None:
        """The blank's page head: marker squares, a barcode, the ИНН / КПП / page combs."""
        d, m = self.draw, _MM
        for x, y in ((8, 8), (196, 8), (8, 283), (196, 283)):
            d.rectangle([x * m, y * m, (x + 5) * m, (y + 5) * m], fill=0)
        for i in range(28):
            bar = (16 + i * 1.1) * m
            d.rectangle([bar, 9 * m, bar + (0.5 if i % 3 else 0.8) * m, 19 * m], fill=0)
        self.text(18, 20, f"1590 30{number:02d}", self.small)
        self.text(60, 10, "ИНН")
        self.comb(72, 9, 12, INN + "--")
        self.text(60, 18, "КПП")
        self.comb(72, 17, 9, KPP)
        self.text(118, 18, "Стр.")
        self.comb(127, 17, 3, f"{number:03d}")


def title_page(knd: str, heading: tuple[str, ...], okuds: tuple[str, ...]) -> _Page:
    """The blank's title page: «Форма по КНД», its heading, the organisation's fields in combs
    and, for the tax office, the statements it holds (`okuds`, each marked «V»)."""
    page = _Page(1)
    page.text(15, 32, f"Форма по КНД {knd}", page.bold)
    for n, text in enumerate(heading):
        page.centred(42 + 6 * n, text)
    page.text(15, 60, "Номер корректировки")
    page.comb(52, 59, 3, "0--")
    page.text(85, 60, "Отчетный период (код)")
    page.comb(125, 59, 2, "34")
    page.text(150, 60, "Отчетный год")
    page.comb(175, 59, 4, "2024")
    page.comb(15, 70, 40, "ООО РОМАШКА-СЕРВИС")
    page.comb(15, 78, 40, "")
    page.text(80, 85, "(наименование организации)", page.small)
    page.text(15, 95, "Код вида экономической деятельности по ОКВЭД 2")
    page.comb(120, 94, 8, "47.11.2")
    page.text(15, 105, "Код по ОКПО")
    page.comb(120, 104, 10, "76543210")
    page.text(15, 115, "Форма собственности (по ОКФС)")
    page.comb(120, 114, 2, "16")
    page.text(15, 125, "Организационно-правовая форма (по ОКОПФ)")
    page.comb(120, 124, 5, "12300")
    page.text(15, 135, "Единица измерения: (тыс. руб. – код по ОКЕИ)")
    page.comb(120, 134, 3, "384")
    page.text(15, 150, "На")
    page.comb(22, 149, 3, "4")
    page.text(37, 150, "страницах с приложением документов или их копий на")
    page.comb(135, 149, 3, "")
    page.text(150, 150, "листах")
    page.text(15, 170, "Достоверность и полноту сведений подтверждаю:")
    page.comb(15, 178, 1, "1")
    page.text(22, 179, "1 – руководитель  2 – уполномоченный представитель")
    page.comb(15, 190, 20, "ИВАНОВ")
    page.comb(15, 198, 20, "ИВАН")
    page.text(15, 215, "Подпись ______   Дата")
    page.comb(60, 214, 8, "25032025")
    page.text(120, 170, "Заполняется работником налогового органа")
    page.text(120, 180, "в составе (отметить знаком V)")
    for n, okud in enumerate(okuds):
        x, y = 120 + 40 * (n % 2), 190 + 10 * (n // 2)
        page.text(x, y, okud)
        page.comb(x + 20, y - 1, 1, "V")
    return page


def _title() -> _Page:
    return title_page(
        "0710098",
        ("Бухгалтерская отчетность", "субъектов малого предпринимательства"),
        ("0710001", "0710002"),
    )


def _address() -> _Page:
    page = _Page(2)
    page.centred(34, "Сведения о месте нахождения организации")
    rows = (
        ("Почтовый индекс", 6, "191002"),
        ("Код субъекта Российской Федерации", 2, "78"),
        ("Район", 25, ""),
        ("Город", 25, "САНКТ-ПЕТЕРБУРГ"),
        ("Населенный пункт", 25, ""),
        ("Улица (проспект, переулок)", 25, "ДОСТОЕВСКОГО"),
        ("Номер дома (владения)", 8, "12"),
        ("Номер корпуса (строения)", 8, "1"),
        ("Номер офиса", 8, "15"),
        ("Номер контактного телефона", 20, "88123456789"),
    )
    for i, (label, cells, text) in enumerate(rows):
        y = 48 + i * 12
        page.text(15, y + 1, label)
        page.comb(82, y, cells, text)
    return page


Line = tuple[str, str, tuple[str, ...]]
"""A statement's line as printed: its name, its code and its figures (one a column, «» blank,
«(…)» negative, a «-» a dash in the first cell of an empty comb)."""


def statement_page(
    number: int,
    heading: tuple[str, str] | None,
    columns: tuple[str, ...],
    x: list[float],
    lines: tuple[Line, ...],
    *,
    sections: dict[str, str] | None = None,
    cells: int = 7,
    notes: dict[str, str] | None = None,
    top: float = 62.0,
    pitch: float = 12.0,
    printed: bool = False,
    hand: Any = None,
    pen: tuple[int, int, int] | None = None,
) -> _Page:
    """A page of a statement: `heading` (its ОКУД and title; None on a continuation page,
    which prints its column heads only), the column heads at `x` (the code column's left
    edge, then each figures column's), a row a line with its figures in combs of
    `cells` (`pitch` mm apart; `printed`: as tax software prints them, spaced, no combs, an
    empty field a line); a section title above the line of its code in `sections`; with `notes`, a
    «Пояснения» column (code → the note's number printed in a small comb); with `hand` (a
    seeded random.Random) the figures are written by hand, in `pen`'s colour if given."""
    page = _Page(number, hand, pen)
    if heading is not None:
        okud, title = heading
        page.text(150, 30, f"Форма по ОКУД {okud}", page.bold)
        page.centred(38, title)
    name_x = 40.0 if notes is not None else 15.0
    if notes is not None:
        page.text(15, 50, "Пояснения", page.small)
    page.text(name_x, 50, "Наименование показателя", page.small)
    page.text(x[0] - 3, 50, "Код строки", page.small)
    for left, label in zip(x[1:], columns, strict=True):
        page.text(left, 50, label, page.small)
    heads = [name_x + 5, x[0] + 1, *x[1:]]
    if notes is not None:
        heads.insert(0, 15)
    for n, left in enumerate(heads, start=1):
        page.text(left + 10, 56, str(n), page.small)
    y = top
    width = int((x[0] - name_x - 4) / 1.8)  # characters of a name that fit before the codes
    for name, code, values in lines:
        if sections and code in sections:
            page.text(name_x + 12, y, sections[code], page.font)
            y += 7
        for n, part in enumerate(textwrap.wrap(name, width)[:2]):
            page.text(name_x, y + 1.2 + 3 * n, part, page.small)
        if notes is not None and printed:
            page.rule(15, y + 3, 14)
        elif notes is not None:
            page.comb(15, y, 4, notes.get(code, ""))
        page.text(x[0], y + 1, code)
        for left, value in zip(x[1:], values, strict=True):
            if printed:
                page.spaced(left, y, cells, value)
            elif value in ("-", "—"):  # an empty field: a dash in its first cell, or struck
                page.comb(left, y, cells, "-" if value == "-" else "")  # through (the rule
                if value == "—":  # of machine-readable blanks: a line along the whole field)
                    page.strike(left, y, cells)
            else:
                page.amount(left, y, cells, value)
        y += pitch
    return page


def _balance(hand: Any = None, pen: tuple[int, int, int] | None = None) -> _Page:
    return statement_page(
        3,
        ("0710001", "Бухгалтерский баланс на 31 декабря 2024 г."),
        ("На 31 декабря 2024 г.", "На 31 декабря 2023 г.", "На 31 декабря 2022 г."),
        [92.0, 108.0, 143.0, 177.0],
        BALANCE_LINES,
        sections=_SECTIONS,
        hand=hand,
        pen=pen,
    )


def _income(hand: Any = None, pen: tuple[int, int, int] | None = None) -> _Page:
    return statement_page(
        4,
        ("0710002", "Отчет о финансовых результатах за 2024 г."),
        ("За 2024 г.", "За 2023 г."),
        [110.0, 130.0, 165.0],
        INCOME_LINES,
        top=64.0,
        hand=hand,
        pen=pen,
    )


def _scanned(image: Any, angle: float, corner: str) -> Any:
    """The page as a scanner gives it back: turned by `angle` degrees, a corner folded over
    (the flap, the sheet's grey back, lies on the page; where it was, the lid shows)."""
    from PIL import Image, ImageDraw

    turned = image.rotate(angle, Image.Resampling.BICUBIC, expand=False, fillcolor="white")
    draw = ImageDraw.Draw(turned)
    w, h = turned.size
    d = int(24 * _MM)
    if corner == "top-right":
        lid = [(w - d, 0), (w, 0), (w, d)]
        flap = [(w - d, 0), (w, d), (w - d, d)]
    else:  # bottom-left
        lid = [(0, h - d), (0, h), (d, h)]
        flap = [(0, h - d), (d, h), (d, h - d)]
    draw.polygon(lid, fill="rgb(120,120,120)")  # colour names: a grey or a colour page
    draw.polygon(flap, fill="rgb(222,222,222)", outline="rgb(60,60,60)")
    return turned


def scanned_pdf(pages: list[_Page]) -> bytes:
    """The pages scanned (each turned 0.4–0.7° one way or the other, a corner folded) as one
    PDF of images."""
    turns = ((0.6, "top-right"), (-0.4, "bottom-left"), (0.7, "top-right"), (-0.6, "bottom-left"))
    images = [_scanned(page.sheet(), *turns[n % len(turns)]) for n, page in enumerate(pages)]
    out = io.BytesIO()
    images[0].save(out, format="PDF", save_all=True, append_images=images[1:], resolution=DPI)
    return out.getvalue()


def render_smallbiz_pdf(hand: int | None = None, pen: tuple[int, int, int] | None = None) -> bytes:
    """The four scanned pages of the КНД 0710098 blank as one PDF of images; with `hand` (a
    seed) the statements' figures written by hand, each glyph of its own shape (with `pen`,
    in that colour: a ballpoint's blue on a colour scan)."""
    import random

    writer = None if hand is None else random.Random(hand)
    return scanned_pdf([_title(), _address(), _balance(writer, pen), _income(writer, pen)])
