"""Whether a PDF page's text layer can be trusted, and its words as the layout wants them.

A text layer is not always the page: a scanner's own OCR leaves a garbled Latin layer
(«Eyxranrepcxnfi 6ananc» for «Бухгалтерский баланс»), and forms printed from tax software carry
only the filled-in values, digits spaced into comb cells («1 3 9 6»), while the labels and codes
are drawn. So a layer is

- `USE`d when it reads as the page: Cyrillic letters, and where it is long, the labels a
  statement prints;
- `VALUES` when it holds mostly figures or no label: the page is OCR'd for labels and codes,
  and the layer's words — figures and the filled-in names alike, exact, confidence 100 —
  replace the OCR's reading of the same places;
- `OCR` (ignored) when it is empty or garbled.
"""

from __future__ import annotations

import enum
import re

from services.arm_statements import fold
from services.scan_gateway.local._layout import PlacedWord

__all__ = ["LayerVerdict", "judge_layer", "merge_spaced_digits"]

_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
_LABELS = (
    "баланс",
    "актив",
    "пассив",
    "код",
    "наименование",
    "показател",
    "итого",
    "выручка",
    "прибыль",
    "капитал",
    "отчет",
    "организация",
)
_MIN_LETTERS = 20
_MIN_CYRILLIC_SHARE = 0.7
_LONG_LAYER = 300  # letters: a layer this long that prints no statement label is not the page


class LayerVerdict(enum.Enum):
    USE = "use"
    VALUES = "values"
    OCR = "ocr"


def judge_layer(words: list[PlacedWord]) -> LayerVerdict:
    """What to do with a page's text layer (see the module docstring)."""
    text = " ".join(w.text for w in words)
    letters = sum(ch.isalpha() for ch in text)
    digits = sum(ch.isdigit() for ch in text)
    if letters + digits == 0:
        return LayerVerdict.OCR
    if letters >= _MIN_LETTERS:
        cyrillic = len(_CYRILLIC.findall(text)) / letters
        if cyrillic < _MIN_CYRILLIC_SHARE:
            return LayerVerdict.OCR
    folded = fold(text)
    labelled = any(label in folded for label in _LABELS)
    if letters >= _LONG_LAYER and not labelled:
        return LayerVerdict.OCR
    if digits > letters or not labelled:
        return LayerVerdict.VALUES if digits else LayerVerdict.OCR
    return LayerVerdict.USE


def merge_spaced_digits(words: list[PlacedWord]) -> list[PlacedWord]:
    """Single digits printed one per comb cell («1 3 9 6») joined into one word («1396»).

    Two digits join when they sit on one line and the gap between them is under one and a half
    glyph heights; the columns of a form are much further apart than that.
    """
    out: list[PlacedWord] = []
    for word in sorted(words, key=lambda w: w.x0):
        height = word.bottom - word.top
        at = None
        if word.text.isdigit() and len(word.text) == 1:
            at = next(
                (
                    i
                    for i in range(len(out) - 1, -1, -1)
                    if out[i].text.isdigit()
                    and abs(out[i].top - word.top) < height * 0.3
                    and 0 <= word.x0 - out[i].x1 < height * 1.5
                ),
                None,
            )
        if at is None:
            out.append(word)
            continue
        last = out[at]
        out[at] = PlacedWord(
            last.text + word.text,
            last.x0,
            word.x1,
            min(last.top, word.top),
            max(last.bottom, word.bottom),
            min(last.confidence, word.confidence),
        )
    return out
