"""The comparison form of a statement's printed text, shared by the periods and header fields.

Spreadsheet cells and OCR lines print the same labels with other spacing, case and «ё»; a scan
also prints «за» as «3a» (digit three, Latin a), which ``ocr=True`` reads back as «за».
"""

from __future__ import annotations

import re

__all__ = ["fold"]

_OCR_ZA = re.compile(r"(?<![\w])[з3][аa](?=\s)")


def fold(text: str, *, ocr: bool = False) -> str:
    """Lower case, ё → е, one space between words (any Unicode space); with ``ocr``, «3a» → «за»."""
    folded = " ".join(text.split()).lower().replace("ё", "е")
    return _OCR_ZA.sub("за", folded) if ocr else folded
