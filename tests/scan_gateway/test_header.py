"""The header of a scanned form read from its OCR lines, and its sanity checks: report dates
as the shared scans print them, the ИНН checksum, units against ОКЕИ, ОКУД against the form,
and a tax-office form's cover page (organisation, ИНН, reporting year printed once)."""

from __future__ import annotations

from typing import Any

import pytest

from services.scan_gateway._header import REVIEW_BELOW, read_header
from services.scan_gateway.mapper import map_items
from services.scan_gateway.resultset import Item, TextLine, Word, parse_item

from ._resultsets import (
    encode,
    item,
    minimal_balance_item,
    plain_line,
    table,
)


def _lines(*texts: str, confidence: float = 95.0) -> list[TextLine]:
    return [TextLine(tuple(Word(w, confidence) for w in t.split())) for t in texts]


def _read(*texts: str) -> dict[str, tuple[str | None, bool]]:
    return {k: (v.value, v.review) for k, v in read_header(_lines(*texts)).items()}


@pytest.mark.parametrize(
    ("texts", "date", "review"),
    [
        (["Отчетная дата (число, месяц, год) 31| 12 2025"], "2025-12-31", False),
        (["Номер корректировки 0 Отчетный период (код) 34 Отчетный год 2015"], "2015-12-31", False),
        (["Отчетный период (код)* 94 Отчетный гд 2021"], "2021-12-31", False),
        (["Отчетный период (код) 92 Отчетный год 2021"], None, True),
    ],
    ids=["day-month-year-cells", "year-code-34", "first-year-94", "reorganisation-92"],
)
def test_report_date_as_the_scans_print_it(
    texts: list[str], date: str | None, review: bool
) -> None:
    """«31 | 12 | 2025» in three cells, and a tax-office form's «Отчетный год» with its period
    code (34 a year, 94 a first year: 31 December; another code ends elsewhere: no date)."""
    assert _read(*texts)["report_date"] == (date, review)


def test_spaced_inn_is_joined_and_checksummed() -> None:
    """«ИНН 775 1188246» (comb cells) is 7751188246; a digit misread breaks the checksum and
    the ИНН goes to review, never silently wrong."""
    assert _read("ИНН 775 1188246")["inn"] == ("7751188246", False)
    assert _read("ИНН 775 1188247")["inn"] == ("7751188247", True)
    assert _read("инн 500100732259")["inn"][0] == "500100732259"


@pytest.mark.parametrize(
    ("text", "inn", "kpp"),
    [
        ("ИНН 7 7 5 1 1 8 8 2 4 6 - - КПП 7 7 5 1 0 1 0 0 1", "7751188246", "775101001"),
        ("ИНН 775 1188246 КПП 775 101001 Стр. 001", "7751188246", "775101001"),
        ("ИНН 775 1188246 001", "7751188246", None),
        ("ИНН 5 0 0 1 0 0 7 3 2 2 5 9", "500100732259", None),
        ("ИНН/КПП 7751188246/775101001", "7751188246", "775101001"),
    ],
    ids=["one-digit-a-cell", "a-few-digits-a-word", "page-number-after", "twelve-cells", "slash"],
)
def test_comb_cell_inn_and_kpp_are_read(text: str, inn: str, kpp: str | None) -> None:
    """ИНН and КПП of a tax-office blank, one digit a comb cell or a few a word, are their
    cells' digits, and a page number printed after them («Стр. 001») stays out; «ИНН/КПП
    a/b» gives the ИНН before the slash, the КПП after it."""
    found = _read(text)
    assert found["inn"] == (inn, False)
    assert found.get("kpp", (None, False)) == (kpp, False)


def test_comb_running_on_goes_to_review() -> None:
    """Nine comb cells followed by more digits: which nine are the КПП is a guess; twelve
    cells whose first ten make a valid ИНН but all twelve do not: one of them is misread."""
    assert _read("КПП 7 7 5 1 0 1 0 0 1 0 0 1")["kpp"] == ("775101001", True)
    assert _read("ИНН 7 7 5 1 1 8 8 2 4 6 1 2")["inn"] == ("7751188246", True)


@pytest.mark.parametrize(
    ("texts", "inn"),
    [
        (("Ш 775 1188246 Alpe", "КПП 775 101001 с» 001"), ("7751188246", False)),
        (("1590 3020 Ш 775 1188246 КПП 775 101001",), ("7751188246", False)),
        (("Ш 775 1188246 Alpe", "an", "А03 ie", "КПП 775 101001 с» 001"), ("7751188246", True)),
        (("Ш 775 1188247 Alpe", "КПП 775 101001"), None),
        (("Ш 775 1188246", "a", "b", "c", "КПП 775 101001"), None),
    ],
    ids=[
        "line-above-kpp",
        "before-kpp-on-its-line",
        "lines-further-above-kpp",
        "checksum-fails",
        "too-far-above",
    ],
)
def test_inn_whose_label_ocr_cannot_read_is_the_comb_above_kpp(
    texts: tuple[str, ...], inn: tuple[str, bool] | None
) -> None:
    """A tax-office blank's small «ИНН» label OCR reads as «Ш»: the comb cells just above (or
    before) «КПП» are the ИНН when their checksum holds; found two or three lines above, they
    are put up for review (random digits pass the checksum one time in ten); digits that fail
    it, or lines far from КПП, give no ИНН rather than a wrong one."""
    assert _read(*texts).get("inn") == inn


def test_inn_beside_kpp_read_unsurely_goes_to_review() -> None:
    """The unlabelled ИНН keeps its digits' confidence: under the threshold, review."""
    lines = [
        TextLine((Word("Ш", 60), Word("775", 70), Word("1188246", 95))),
        TextLine((Word("КПП", 90), Word("775101001", 95))),
    ]
    found = read_header(lines)["inn"]
    assert (found.value, found.confidence, found.review) == ("7751188246", 70, True)


def test_tax_office_okopf_and_okfs_rows_are_read() -> None:
    """A tax-office cover's «Коды» rows, the caption in one cell and the code in the next:
    «Организационно-правовая форма (по ОКОПФ) | 70401», «Форма собственности (по ОКФС) | 50»
    (the code, not the caption's letters read as digits)."""
    rows = [
        TextLine((Word("Организационно-правовая форма (по ОКОПФ)", 92), Word("70401", 100))),
        TextLine((Word("Форма собственности (по ОКФС)", 92), Word("50", 100))),
    ]
    found = {k: (v.value, v.review) for k, v in read_header(rows).items()}
    assert found == {"okopf": ("70401", False), "okfs": ("50", False)}


def test_address_caption_alone_is_no_address() -> None:
    """«Местонахождение (адрес)» with the address in the cells below gives no address, not
    the caption «(адрес)» as one; an address on the label's line is read."""
    assert "address" not in _read("Местонахождение (адрес)", "108836, МОСКВА Г")
    assert _read("Местонахождение (адрес): г. Москва")["address"] == ("г. Москва", False)


@pytest.mark.parametrize(
    ("name", "confidence", "review"),
    [
        ('БЛАГОТВОРИТЕЛЬНЫЙ ФОНД "МАРИИ ЛЕОНТЬЕВОИ"', 95.0, True),
        ('ООО "ЗОЛОТОИ КЛЮЧ"', 95.0, True),
        ('БЛАГОТВОРИТЕЛЬНЫЙ ФОНД "МАРИИ ЛЕОНТЬЕВОЙ"', 95.0, False),
        ('АО "КОМПАНИЯ РОССИИ"', 95.0, False),
        ('БЛАГОТВОРИТЕЛЬНЫЙ ФОНД "МАРИИ ЛЕОНТЬЕВОИ"', 100.0, False),
    ],
    ids=["misread-oi", "misread-oi-inside", "right-oj", "genitive-ii", "text-layer"],
)
def test_an_ocr_name_ending_as_a_misread_short_i_goes_to_review(
    name: str, confidence: float, review: bool
) -> None:
    """OCR reads «Й» as «И» at a confidence above the threshold (the НКО fund scan:
    «ЛЕОНТЬЕВОИ» at 82): a name with a word ending in a vowel + «И» (not «ИИ») is up for
    review; the same name from a text layer (confidence 100) is as printed."""
    found = read_header(_lines(f"Организация: {name}", confidence=confidence))
    assert (found["organization_name"].value, found["organization_name"].review) == (name, review)


@pytest.mark.parametrize(
    ("texts", "name"),
    [
        (("Организация ООО «Ромашка» по ОКПО 76543210",), "organization_name"),
        (('ФОНД "МАРИИ ЛЕОНТЬЕВОЙ"', "(наименование организации)"), "organization_name"),
        (("ИНН 7751188246",), "inn"),
        (("Дата (число, месяц, год) 31.12.2024",), "report_date"),
        (("Местонахождение (адрес): г. Москва",), "address"),
    ],
    ids=["labelled-name", "captioned-name", "inn", "date", "address"],
)
def test_ocr_header_field_below_the_value_threshold_goes_to_review(
    texts: tuple[str, ...], name: str
) -> None:
    """OCR alone: a header field read under the confidence that puts a value up for review
    (REVIEW_BELOW) is up for review too; at the threshold it is not."""
    below = read_header(_lines(*texts, confidence=REVIEW_BELOW - 1))[name]
    at = read_header(_lines(*texts, confidence=REVIEW_BELOW))[name]
    assert below.value is not None and below.review
    assert at.value == below.value and not at.review


@pytest.mark.parametrize(
    ("text", "units", "okei"),
    [
        ("Единица измерения: тыс. руб. по ОКЕИ 384", ("тыс. руб.", False), ("384", False)),
        ("Единица измерения: руб. по ОКЕИ 384", ("руб.", True), ("384", True)),
        ("Единица измерения: млн. руб. по ОКЕИ 34", ("млн. руб.", False), ("34", True)),
        (
            "Единица измерения: (тыс. руб. / млн. руб. - код по ОКЕИ) 385",
            ("млн. руб.", False),
            ("385", False),
        ),
    ],
    ids=["agree", "disagree", "okei-misread", "choices-label"],
)
def test_units_are_checked_against_okei(
    text: str, units: tuple[str, bool], okei: tuple[str, bool]
) -> None:
    """Units from the text and from ОКЕИ must agree, else both are up for review (a 1000×
    error); a label that lists the choices takes the units of its ОКЕИ."""
    found = _read(text)
    assert found["units"] == units
    assert found["okei"] == okei


def test_units_read_unsurely_are_vouched_for_by_a_sure_okei() -> None:
    """«тыс руб.» read at 60 % agrees with ОКЕИ 384 read surely: neither needs review."""
    lines = [
        TextLine(
            (
                Word("Единица", 95),
                Word("измерения:", 95),
                Word("тыс", 60),
                Word("руб.", 95),
                Word("по", 95),
                Word("ОКЕИ", 95),
                Word("384", 96),
            )
        )
    ]
    found = read_header(lines)
    assert (found["units"].value, found["units"].review) == ("тыс. руб.", False)


def _parsed(*docs: dict[str, Any]) -> list[Item]:
    return [parse_item(f"page-{d['page']}.json", encode(d)) for d in docs]


def test_cover_page_gives_the_header_of_the_forms_after_it() -> None:
    """A tax-office cover page (no form on it) prints the organisation, ИНН, year and units;
    the balance on the next page takes them where its own page does not print them."""
    cover = item(
        1,
        [
            plain_line("ИНН 7751188246 КПП 775101001 Стр. 001"),
            plain_line("Упрощенная бухгалтерская (финансовая) отчетность"),
            plain_line("Номер корректировки 0 Отчетный период (код) 34 Отчетный год 2021"),
            plain_line('БЛАГОТВОРИТЕЛЬНЫЙ ФОНД "МАРИИ ЛЕОНТЬЕВОЙ"'),
            plain_line("(наименование организации)"),
            plain_line("Единица измерения: (тыс. руб. - код по ОКЕИ) 384"),
        ],
        [],
    )
    balance = minimal_balance_item()
    balance["page"] = 2
    balance["tables"][0].update(page=2, table_id="p2-t0")
    balance["lines"] = [plain_line("Бухгалтерский баланс"), plain_line("Форма по ОКУД 0710001")]
    [doc] = map_items(_parsed(cover, balance)).documents
    header = doc["header"]
    assert header["inn"] == "7751188246"
    assert header["report_date"] == "2021-12-31"
    assert header["units"] == "тыс. руб." and header["okei"] == "384"
    assert header["organization_name"] == 'БЛАГОТВОРИТЕЛЬНЫЙ ФОНД "МАРИИ ЛЕОНТЬЕВОЙ"'
    assert header["needs_review_fields"] == []


def test_okud_of_another_form_goes_to_review() -> None:
    """A balance whose «Коды» print the ОФР's ОКУД (0710002): one of them is misread."""
    page = minimal_balance_item()
    page["lines"] = [
        plain_line("Бухгалтерский баланс на 31 декабря 2024 г."),
        plain_line("Форма по ОКУД 0710002"),
    ]
    [doc] = map_items(_parsed(page)).documents
    assert doc["document_type"] == "BALANCE"
    assert "okud" in doc["header"]["needs_review_fields"]


def test_title_date_on_the_line_under_the_title() -> None:
    """«Отчет о финансовых результатах» / «за 2025 год»: the report date is 31.12.2025."""
    rows = [
        [("Выручка", 96), ("2110", 96), ("7 543", 96), ("8 116", 96)],
        [("Себестоимость продаж", 96), ("2120", 96), ("(7 006)", 96), ("(7 940)", 96)],
    ]
    headers = [("Наименование", 96), ("Код", 96), ("За 2025 г.", 96), ("За 2024 г.", 96)]
    page = item(
        1,
        [plain_line("Отчет о финансовых результатах"), plain_line("за 2025 год")],
        [table(1, 0, headers, rows)],
    )
    [doc] = map_items(_parsed(page)).documents
    assert doc["header"]["report_date"] == "2025-12-31"
    assert doc["header"]["report_date_confidence"] == 99
