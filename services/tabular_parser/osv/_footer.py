"""The signature footer 1C prints under an ОСВ (Руководитель, Главный бухгалтер…).

It ends a body that has no «Итого», and it is never part of the next table's title block when
several ОСВ tables share a sheet.
"""

from __future__ import annotations

import re

__all__ = ["FOOTER_RE", "FOOTER_STARTS", "is_footer"]

_FOOTER_WORDS = (
    "руководитель",
    r"главный\s+бухгалтер",
    "бухгалтер",
    "исполнитель",
    "ответственный",
    "подпись",
    r"м\.\s*п\.",
)
FOOTER_RE = re.compile(rf"^(?:{'|'.join(_FOOTER_WORDS)})", re.IGNORECASE)
# What a label can start with for `FOOTER_RE` to match: a cheap test before the regex.
FOOTER_STARTS = frozenset(word.replace("\\", "")[:2] for word in _FOOTER_WORDS)


def is_footer(text: str) -> bool:
    """Whether a line (or a label) opens with a signature word."""
    return text[:2].lower() in FOOTER_STARTS and FOOTER_RE.match(text) is not None
