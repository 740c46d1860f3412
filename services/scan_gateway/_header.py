"""The form's header from OCR text lines: organisation, ИНН, date, units and the «Коды».

Each field is found by its printed label in a line of words; its text is what the words under
the match print, its confidence the lowest of those words'. Codes and ИНН are digits: OCR
look-alike letters are read as digits, and such a repair, a low confidence, a wrong length or
a failed ИНН checksum puts the field in `needs_review_fields`. A line about the auditor never
gives the organisation's fields.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from services.arm_statements import (
    CODE_LENGTHS,
    INN_LENGTHS,
    code_digits,
    inn_checksum_ok,
    normalize_units,
    report_date_in_texts,
)
from services.arm_statements.document import REVIEW_BELOW
from services.scan_gateway.resultset import TextLine

__all__ = ["REVIEW_BELOW", "HeaderField", "read_header"]


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
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("okud", re.compile(r"окуд\s*:?\s*" + _TOKEN)),
    ("okpo", re.compile(r"окпо\s*:?\s*" + _TOKEN)),
    ("okopf", re.compile(r"окопф\s*(?:/\s*окфс\s*)?:?\s*" + _TOKEN)),
    ("okfs", re.compile(r"окопф\s*/\s*окфс\s*:?\s*\S+\s*/?\s*" + _TOKEN)),
    ("okei", re.compile(r"океи\s*:?\s*" + _TOKEN)),
    ("inn", re.compile(r"(?<![а-я])инн\s*:?\s*" + _TOKEN)),
    (
        "report_date",
        re.compile(r"дата\s*(?:\(число,?\s*месяц,?\s*год\))?\s*:?\s*(\d\S*(?:\s+\d\S*){0,2})"),
    ),
    ("organization_name", re.compile(r"^организация\s*:?\s*(.+?)(?:\s+по\s+окпо\b.*)?$")),
    ("units", re.compile(r"^единица измерения\s*:?\s*(.+?)(?:\s+по\s+океи\b.*)?$")),
    ("address", re.compile(r"^местонахождение\s*(?:\(адрес\))?\s*:?\s*(.+)$")),
)


@dataclass(frozen=True, slots=True)
class HeaderField:
    value: str | None
    text: str | None
    confidence: float | None
    review: bool


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


def _digits_field(name: str, text: str, confidence: float) -> HeaderField:
    repaired = text.translate(_DIGIT_LOOKALIKES)
    digits = code_digits(repaired)
    review = confidence < REVIEW_BELOW or repaired != text or not digits
    if name == "inn":
        if len(digits) not in INN_LENGTHS:
            return HeaderField(None, text, confidence, True)
        return HeaderField(digits, text, confidence, review or not inn_checksum_ok(digits))
    lengths = CODE_LENGTHS.get(name)
    if lengths is not None and len(digits) not in lengths:
        review = True
    return HeaderField(digits or None, text, confidence, review)


def _field(name: str, text: str, confidence: float) -> HeaderField:
    if name in ("inn", *CODE_LENGTHS):
        return _digits_field(name, text, confidence)
    low = confidence < REVIEW_BELOW
    if name == "report_date":
        found, _ = report_date_in_texts([text], ocr=True)
        value = found.isoformat() if found is not None else None
        return HeaderField(value, text, confidence, low or value is None)
    if name == "units":
        units = normalize_units(text)
        return HeaderField(units, text, confidence, low or units is None)
    cleaned = text.strip(" :")
    return HeaderField(cleaned or None, text, confidence, low or not cleaned)


def read_header(lines: Iterable[TextLine]) -> dict[str, HeaderField]:
    """Every header field found in `lines` (the first finding of a field wins)."""
    found: dict[str, HeaderField] = {}
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
    return found
