"""The form's header from OCR text lines: organisation, ИНН, КПП, date, units and the «Коды».

Each field is found by its printed label in a line of words; its text is what the words under
the match print, its confidence the lowest of those words'. Codes and ИНН are digits: OCR
look-alike letters are read as digits, and such a repair, a low confidence, a wrong length or
a failed ИНН checksum puts the field in `needs_review_fields`. A line about the auditor never
gives the organisation's fields. A tax-office form prints no «Дата» and no «Организация»: its
reporting year and period code give the report date, and the comb-cell lines above
«(наименование организации)» the organisation. Units and ОКЕИ are checked against each other.

ИНН and КПП printed in comb cells come one digit or a few a word («7 7 5 1 1 8 8 2 4 6»,
«775 1188246»): the cells are the whole words after the label that make a valid length (an
ИНН's checksum holding), so a page number «001» after them stays out. The small «ИНН» label of a
tax-office blank is often unreadable («Ш»): an ИНН is then the run of digit words just above
(or before) the «КПП» label whose checksum holds. КПП has no field in the contract's header; it
is read all the same (the mapper passes on only the contract's fields).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

from services.arm_statements import (
    CODE_LENGTHS,
    INN_LENGTHS,
    HeaderField,
    code_digits,
    inn_checksum_ok,
    normalize_units,
    report_date_in_texts,
    units_for_okei,
)
from services.arm_statements.document import REVIEW_BELOW
from services.scan_gateway.resultset import TextLine, Word

__all__ = ["REVIEW_BELOW", "read_header"]


_DIGIT_LOOKALIKES = str.maketrans(
    {
        "l": "1",
        "I": "1",
        "|": "1",
        "O": "0",
        "o": "0",
        "О": "0",
        "о": "0",
        "З": "3",
        "з": "3",
        "S": "5",
        "В": "8",
        "B": "8",
        "б": "6",
    }
)

_TOKEN = r"(\S+)"
_KPP_LENGTHS = (9,)
_KPP_LABEL = re.compile(r"(?<![а-я])кпп(?![а-я])")
_YEAR_PERIODS = frozenset({"34", "94"})
_LETTERS = re.compile(r"[а-яa-z]{3}")
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("okud", re.compile(r"окуд\s*:?\s*" + _TOKEN)),
    ("okpo", re.compile(r"окпо\s*:?\s*" + _TOKEN)),
    # a tax-office form: «Организационно-правовая форма (по ОКОПФ) 70401», «… (по ОКФС) 50»
    ("okopf", re.compile(r"окопф\)?\s*(?:/\s*окфс\s*)?:?\s*" + _TOKEN)),
    ("okfs", re.compile(r"окопф\s*/\s*окфс\s*:?\s*\S+\s*/?\s*" + _TOKEN)),
    ("okfs", re.compile(r"(?<!/)(?<!/\s)окфс\)\s*:?\s*" + _TOKEN)),
    ("okei", re.compile(r"океи\)?\s*:?\s*" + _TOKEN)),
    # a tax-office form spaces the ИНН into comb cells («775 1188246»), OCR drops an «н»
    ("inn", re.compile(r"(?<![а-я])инн?(?:\s*/\s*кпп)?\s*:?\s*(\d[\d ]*\d)(?!\d)")),
    ("kpp", re.compile(r"инн\s*/\s*кпп\s*:?\s*\d+\s*/\s*(\d[\d ]*\d)(?!\d)")),
    ("kpp", re.compile(r"(?<![а-я/])кпп\s*:?\s*(\d[\d ]*\d)(?!\d)")),
    (
        "report_date",
        re.compile(r"дата\s*(?:\(число,?\s*месяц,?\s*год\))?\s*:?\s*(\d\S*(?:\s+\d\S*){0,2})"),
    ),
    ("report_year", re.compile(r"отчетный\s+г\S{0,3}\s*:?\s*(\d{4})(?!\d)")),
    ("period_code", re.compile(r"отчетный\s+период\s*(?:\(код\))?\S*\s*(\d{2})(?!\d)")),
    ("organization_name", re.compile(r"^организация\s*:?\s*(.+?)(?:\s+по\s+окпо\b.*)?$")),
    ("units", re.compile(r"^единица измерения\s*:?\s*(.+?)(?:\s+по\s+океи\b.*)?$")),
    # the caption «(адрес)» alone is no address (the cells under it print one)
    ("address", re.compile(r"^местонахождение\s*(?:\(адрес\))?\s*:?\s*(?!\(адрес\))(\S.*)$")),
)


def _span(line: TextLine, start: int, end: int) -> tuple[str, float]:
    """The printed text and lowest confidence of the words covering chars [start, end)."""
    pos = 0
    words: list[str] = []
    confidence = 100.0
    for word in line.words:
        w_start, w_end = pos, pos + len(word.text)
        if w_end > start and w_start < end:
            words.append(word.text)
            confidence = min(confidence, word.confidence)
        pos = w_end + 1
    return " ".join(words), confidence


def _comb_cells(text: str, lengths: Collection[int], inn: bool) -> tuple[str, bool] | None:
    """The digits of the comb cells `text` starts with: the longest run of its whole words
    that makes one of `lengths` (an ИНН's checksum holding), and whether it is doubtful — the
    digit words run on, for a КПП at all, for an ИНН to another ИНН length (a 12-digit ИНН
    with a misread digit whose first ten happen to check); None when no run does."""
    joined, best = "", None
    for word in text.split():
        if not word.isdigit():
            break
        joined += word
        if len(joined) in lengths and (not inn or inn_checksum_ok(joined)):
            best = joined
    if best is None:
        return None
    longer = len(joined) > len(best) and (not inn or len(joined) in lengths)
    return best, longer


def _digits_field(name: str, text: str, confidence: float) -> HeaderField:
    repaired = text.translate(_DIGIT_LOOKALIKES)
    digits = code_digits(repaired)
    review = confidence < REVIEW_BELOW or repaired != text or not digits
    if name == "inn":  # «ИНН/КПП 7751188246/775101001»: the ИНН is before the slash
        cells = _comb_cells(repaired.split("/", 1)[0], INN_LENGTHS, inn=True)
        if cells is not None:
            return HeaderField(cells[0], text, confidence, review or cells[1])
        if len(digits) not in INN_LENGTHS:
            return HeaderField(None, text, confidence, True)
        return HeaderField(digits, text, confidence, review or not inn_checksum_ok(digits))
    if name == "kpp":
        cells = _comb_cells(repaired.rsplit("/", 1)[-1], _KPP_LENGTHS, inn=False)
        if cells is None:
            return HeaderField(None, text, confidence, True)
        return HeaderField(cells[0], text, confidence, review or cells[1])
    lengths = CODE_LENGTHS.get(name)
    if lengths is not None and len(digits) not in lengths:
        review = True
    return HeaderField(digits or None, text, confidence, review)


def _field(name: str, text: str, confidence: float) -> HeaderField:
    if name in ("report_year", "period_code"):
        digits = text.translate(_DIGIT_LOOKALIKES)
        return HeaderField(digits if digits.isdigit() else None, text, confidence, False)
    if name in ("inn", "kpp", *CODE_LENGTHS):
        return _digits_field(name, text, confidence)
    low = confidence < REVIEW_BELOW
    if name == "report_date":
        found, _ = report_date_in_texts([text], ocr=True)
        if found is None:  # day, month and year in three cells, a rule read as «|» between
            parts = [p.strip("|!.,:").translate(_DIGIT_LOOKALIKES) for p in text.split()]
            found, _ = report_date_in_texts([p for p in parts if p], ocr=True)
        value = found.isoformat() if found is not None else None
        return HeaderField(value, text, confidence, low or value is None)
    if name == "units":
        folded = text.lower()
        # a label listing the choices («тыс. руб. / млн. руб. – код по ОКЕИ») names no units
        units = None if "тыс" in folded and "млн" in folded else normalize_units(text)
        return HeaderField(units, text, confidence, low or units is None)
    cleaned = text.strip(" :")
    return HeaderField(cleaned or None, text, confidence, low or not cleaned)


def _captioned_name(lines: list[TextLine]) -> HeaderField | None:
    """The organisation a tax-office form prints in comb cells above the caption
    «(наименование организации)»: the lines just above it, up to the line of labelled fields
    («Номер корректировки … Отчетный год …»)."""
    for at, line in enumerate(lines):
        if "наименование организации" not in line.text.lower():
            continue
        name: list[TextLine] = []
        for above in reversed(lines[max(at - 4, 0) : at]):
            folded = above.text.lower()
            if "отчетн" in folded or "корректировк" in folded or not _LETTERS.search(folded):
                break
            name.insert(0, above)
        words = [w for n in name for w in n.words]
        if words:
            text = " ".join(w.text for w in words)
            confidence = min(w.confidence for w in words)
            return HeaderField(text, text, confidence, confidence < REVIEW_BELOW)
    return None


def read_header(lines: Iterable[TextLine]) -> dict[str, HeaderField]:
    """Every header field found in `lines` (the first finding of a field wins)."""
    lines = list(lines)
    found: dict[str, HeaderField] = {}
    if (captioned := _captioned_name(lines)) is not None:
        found["organization_name"] = captioned
    for line in lines:
        # Lower-casing keeps offsets (checked), so a match maps back to the printed words.
        folded = line.text.lower().replace("ё", "е")
        if "аудитор" in folded or len(folded) != len(line.text):
            continue
        for name, pattern in _PATTERNS:
            if name in found:
                continue
            m = pattern.search(folded)
            if m is None:
                continue
            raw, confidence = _span(line, m.start(1), m.end(1))
            if raw:
                found[name] = _field(name, raw, confidence)
    inn = found.get("inn")
    if (inn is None or inn.value is None) and (beside := _inn_beside_kpp(lines)) is not None:
        found["inn"] = beside
    year, period = found.pop("report_year", None), found.pop("period_code", None)
    if "report_date" not in found and year is not None:
        found["report_date"] = _year_end(year, period)
    _check_units(found)
    _check_short_i(found)
    return found


_SHORT_I_MISREAD = re.compile(r"[аеоуыэюя]и(?![а-яё])")
"""A word ending in a vowel + «и» other than «ии»: OCR's «Й» read as «И» («ЛЕОНТЬЕВОИ»,
«ЗОЛОТОИ», «ОБЩЕИ»); Russian words so ended (-ой, -ей, -ый…) are far more common than
genuine ones («ИДЕИ», «ГЕРОИ»)."""


def _check_short_i(found: dict[str, HeaderField]) -> None:
    """An organisation read by OCR (a text layer gives confidence 100) with a word ending as
    a misread «Й» would is put up for review, whatever the OCR's confidence: the wrong letter
    in a borrower's name at 82 % looks right to everyone."""
    name = found.get("organization_name")
    if name is None or name.value is None or name.review:
        return
    if (name.confidence or 0) < 100 and _SHORT_I_MISREAD.search(name.value.lower()):
        found["organization_name"] = HeaderField(name.value, name.text, name.confidence, True)


def _inn_beside_kpp(lines: list[TextLine]) -> HeaderField | None:
    """A tax-office blank's ИНН whose label OCR could not read: the comb cells on the line
    before the «КПП» label or on one of the three lines above it, the nearest first, whose
    digits make an ИНН with a holding checksum (a misread digit breaks it: then none). Where
    the blank prints the ИНН — before the label on its line, or on the line just above it — the
    run is taken as sure; one found further up is put up for review (one run of random digits
    in ten passes the checksum)."""
    for at, line in enumerate(lines):
        label = next(
            (i for i, w in enumerate(line.words) if _KPP_LABEL.search(w.text.lower())), None
        )
        if label is None:
            continue
        near = [(line.words[:label], True)]
        for back in range(1, 4):
            if at - back >= 0 and "аудитор" not in lines[at - back].text.lower():
                near.append((lines[at - back].words, back == 1))
        for words, sure in near:
            if (found := _unlabelled_inn(words, sure=sure)) is not None:
                return found
    return None


def _unlabelled_inn(words: tuple[Word, ...], *, sure: bool) -> HeaderField | None:
    """The first run of whole digit words in `words` that makes a checked ИНН, with the
    lowest confidence of the words it takes (up for review unless `sure`)."""
    for start in range(len(words)):
        if start > 0 and words[start - 1].text.isdigit():
            continue  # a run starts after a word that is no digits
        cells = _comb_cells(" ".join(w.text for w in words[start:]), INN_LENGTHS, inn=True)
        if cells is None:
            continue
        used: list[Word] = []
        while sum(len(w.text) for w in used) < len(cells[0]):
            used.append(words[start + len(used)])
        confidence = min(w.confidence for w in used)
        text = " ".join(w.text for w in used)
        review = confidence < REVIEW_BELOW or cells[1] or not sure
        return HeaderField(cells[0], text, confidence, review)
    return None


def _check_units(found: dict[str, HeaderField]) -> None:
    """Units from the text and from ОКЕИ (384 тыс., 385 млн) checked against each other: a
    disagreement puts both up for review (one of them is misread, and a 1000× error is the
    worst a header can do); when they agree, the surer read vouches for the other; units
    missing or unreadable are taken from a known ОКЕИ."""
    okei, units = found.get("okei"), found.get("units")
    by_code = units_for_okei(okei.value) if okei is not None else None
    if okei is not None and okei.value is not None and by_code is None:
        found["okei"] = HeaderField(okei.value, okei.text, okei.confidence, True)
        return
    if okei is None or by_code is None:
        return
    if units is None or units.value is None:
        text = units.text if units is not None else okei.text
        found["units"] = HeaderField(by_code, text, okei.confidence, okei.review)
    elif units.value != by_code:
        found["units"] = HeaderField(units.value, units.text, units.confidence, True)
        found["okei"] = HeaderField(okei.value, okei.text, okei.confidence, True)
    elif units.review != okei.review:  # two reads that agree: the sure one vouches
        found["units"] = HeaderField(units.value, units.text, units.confidence, False)
        found["okei"] = HeaderField(okei.value, okei.text, okei.confidence, False)


def _year_end(year: HeaderField, period: HeaderField | None) -> HeaderField:
    """A tax-office form's «Отчетный год 2021» with «Отчетный период (код) 34» (a year) or 94
    (a first year longer or shorter than the calendar one): the report date is 31 December.
    Another period code (a reorganisation, a liquidation) ends elsewhere: no date, review."""
    text = year.text if period is None else f"{year.text} ({period.text})"
    code = period.value if period is not None else None
    if year.value is None or code not in _YEAR_PERIODS:
        return HeaderField(None, text, year.confidence, True)
    confidence = min(year.confidence or 0.0, period.confidence or 0.0) if period else None
    low = confidence is None or confidence < REVIEW_BELOW or year.review
    return HeaderField(f"{year.value}-12-31", text, confidence, low)
