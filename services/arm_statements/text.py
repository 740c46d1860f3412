"""The comparison form of a statement's printed text, shared by the periods and header fields.

Spreadsheet cells and OCR lines print the same labels with other spacing, case and «ё»; a scan
also prints «за» as «3a» (digit three, Latin a), which ``ocr=True`` reads back as «за».
``is_page_furniture`` tells the text of stamps and e-signature blocks (never a line of a form).
"""

from __future__ import annotations

import re

__all__ = ["fold", "is_page_furniture"]

_OCR_ZA = re.compile(r"(?<![\w])[з3][аa](?=\s)")
_FURNITURE = re.compile(
    r"сертификат|владелец|действителен\s+с|электронн\w*\s+подпис|подписан\w*\s+электронн"
    r"|квалифицированн\w*\s+(?:электронн|подпис)|серийный\s+номер|удостоверяющ\w*\s+центр"
    r"|сведения\s+о\s+сертификате|м\.\s?п\.|место\s+печати"
)
_SERIAL = re.compile(r"(?<![0-9a-f])[0-9a-f]{2}(?:\s[0-9a-f]{2}){3,}(?![0-9a-f])")
"""A certificate serial as its block prints it: hex pairs by spaces («06 60 EB 3F …»)."""


def fold(text: str, *, ocr: bool = False) -> str:
    """Lower case, ё → е, one space between words (any Unicode space); with ``ocr``, «3a» → «за»."""
    folded = " ".join(text.split()).lower().replace("ё", "е")
    return _OCR_ZA.sub("за", folded) if ocr else folded


def is_page_furniture(text: str | None) -> bool:
    """Text of a stamp or an e-signature block («Сертификат 06 60 EB…», «Владелец», «Действителен
    с …», «ДОКУМЕНТ ПОДПИСАН ЭЛЕКТРОННОЙ ПОДПИСЬЮ», «М.П.»): a row that prints it is page
    furniture, never a line of a form, whatever digits OCR read beside it."""
    if not text:
        return False
    folded = fold(text)
    if _FURNITURE.search(folded):
        return True
    serial = _SERIAL.search(folded)
    return serial is not None and any(ch in "abcdef" for ch in serial.group())
