"""Amounts from OCR text: the strict reading first, then a tolerant one that repairs OCR slips.

A value is *recognised* (is_recognized = true) when the strict money reading of
services.arm_statements.money accepts the text as printed ("1 234,5", "(1 234)", "-").
Otherwise the tolerant reading repairs what OCR typically gets wrong — a letter inside digits
(l, I, | → 1; O, О, o → 0; З → 3; S → 5; В, B → 8; б → 6), stray spaces that break the thousands
grouping, stray dashes inside or after the digits, an unclosed bracket — and, when the result is
a number, returns it as *dirty*: the amount is kept, is_recognized is false and the raw text
stays beside it for the analyst. Letters are only read as digits in a text that is mostly
digits, so a word never turns into a number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from services.arm_statements.money import format_amount, is_blank_mark, parse_amount

__all__ = ["OcrAmount", "read_amount"]

_LOOKALIKES = str.maketrans(
    {
        "l": "1",
        "I": "1",
        "|": "1",
        "!": "1",
        "i": "1",
        "і": "1",
        "І": "1",
        "O": "0",
        "o": "0",
        "О": "0",
        "о": "0",
        "Q": "0",
        "D": "0",
        "З": "3",
        "з": "3",
        "S": "5",
        "s": "5",
        "В": "8",
        "B": "8",
        "б": "6",
        "G": "6",
        "Z": "2",
        "z": "2",
        "g": "9",
        "q": "9",
        "T": "7",
    }
)
_SPACES = re.compile(r"[\s\u00a0\u202f\u2009\u2007]+")
_DASHES = "-\u2212\u2012\u2013\u2014"
# Spaces are only clean as thousands separators: "1 234 567,8", never "12 34".
_GROUPED = re.compile(r"^\(?[-\u2212]?\s?\d{1,3}( \d{3})*([.,]\d{1,2})?\)?$")


@dataclass(frozen=True, slots=True)
class OcrAmount:
    """The reading of one value cell.

    `amount` is None for an empty mark or for text that is no number even after repair.
    `clean` says the text was read as printed; `string_value` is the text after repair
    (equal to the text, whitespace normalised, when clean).
    """

    amount: Decimal | None
    string_value: str | None
    clean: bool

    @property
    def money(self) -> str | None:
        """The amount as a contract money string."""
        return None if self.amount is None else format_amount(self.amount)


def _normalise(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def read_amount(text: str) -> OcrAmount:
    """Read one value cell's text; never raises."""
    printed = _normalise(text)
    if is_blank_mark(printed):
        return OcrAmount(None, printed or None, clean=True)
    strict = parse_amount(printed)
    if strict is not None and (" " not in printed or _GROUPED.match(printed)):
        return OcrAmount(strict, printed, clean=True)
    repaired = _repair(printed)
    if repaired is None:
        return OcrAmount(None, printed, clean=False)
    shown, amount = repaired
    return OcrAmount(amount, shown, clean=False)


def _repair(text: str) -> tuple[str, Decimal] | None:
    alnum = [ch for ch in text if ch.isalnum()]
    digits = sum(ch.isdigit() for ch in alnum)
    if digits == 0 or digits * 2 < len(alnum):
        return None
    s = text.translate(_LOOKALIKES)
    if any(ch.isalpha() for ch in s):
        return None
    negative = False
    body = s.strip()
    if body.startswith("(") or body.endswith(")"):
        negative = True
        body = body.strip("()").strip()
    if body[:1] in _DASHES and len(body) > 1 and (body[1].isdigit() or body[1] == " "):
        negative = True
        body = body[1:].strip()
    # What is left between and after the digits: dashes and brackets are OCR noise.
    body = re.sub(rf"[{_DASHES}()]", " ", body)
    body = _normalise(body)
    if not body:
        return None
    amount = parse_amount(body)
    if amount is None:
        amount = parse_amount(body.replace(" ", ""))
    if amount is None:
        return None
    shown = f"({body})" if negative and text.lstrip().startswith("(") else body
    if negative and not shown.startswith("("):
        shown = f"-{body}"
    return shown, -amount if negative else amount
