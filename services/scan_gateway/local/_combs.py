"""The characters OCR reads in one comb (a tax-office blank's row of one-character cells)
joined into the word they spell.

Tesseract reads a figure printed a digit to a cell as separate words («2 1 4 5»), or as one
with stray spaces; either way the cells, not the gaps OCR sees, say what belongs together:
characters in neighbouring cells are one word, an empty cell between them is a space.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from services.scan_gateway.local._layout import PlacedWord
from services.scan_gateway.local._raster import Comb, Prepared

__all__ = ["join_comb_words", "reread_combs"]

_EMPTY_CELL = 0.9
"""A gap between two words' ink of this many cells or more holds an empty cell (a digit's ink
fills about half its cell, so neighbours' ink is ~0.5 cell apart, across an empty one ~1.5)."""


def join_comb_words(words: Sequence[PlacedWord], combs: Sequence[Comb]) -> list[PlacedWord]:
    """`words` with those whose centre lies in a comb joined, per comb, into words split only
    at empty cells; the rest unchanged."""
    if not combs:
        return list(words)
    inside: dict[int, list[PlacedWord]] = {}
    out: list[PlacedWord] = []
    for word in words:
        at = next((i for i, comb in enumerate(combs) if _holds(comb, word)), None)
        if at is None:
            out.append(word)
        else:
            inside.setdefault(at, []).append(word)
    for at, found in inside.items():
        out.extend(_joined(sorted(found, key=lambda w: w.x0), combs[at].pitch))
    return out


def _holds(comb: Comb, word: PlacedWord) -> bool:
    x = (word.x0 + word.x1) / 2
    y = (word.top + word.bottom) / 2
    return comb.x0 <= x <= comb.x1 and comb.top <= y <= comb.bottom


def _joined(words: list[PlacedWord], pitch: float) -> list[PlacedWord]:
    out: list[PlacedWord] = []
    for word in words:
        text = word.text.replace(" ", "")
        if out and word.x0 - out[-1].x1 < pitch * _EMPTY_CELL:
            last = out[-1]
            out[-1] = PlacedWord(
                last.text + text,
                last.x0,
                max(last.x1, word.x1),
                min(last.top, word.top),
                max(last.bottom, word.bottom),
                min(last.confidence, word.confidence),
            )
        else:
            out.append(PlacedWord(text, word.x0, word.x1, word.top, word.bottom, word.confidence))
    return out


_INSET = 0.12  # of a cell's pitch kept off each side: what is left of its walls
_INKED = 0.02  # share of a cell's inside that is ink: a character, not dust or a wall's trace
_DOUBT = 40.0
"""The confidence of a comb whose re-read does not give one digit to each filled cell: under
the review threshold (80), so a figure read from it is up for review."""


def reread_combs(
    words: Sequence[PlacedWord], prepared: Prepared, ocr: Callable[[Any, bool], list[PlacedWord]]
) -> list[PlacedWord]:
    """Each comb read again with its cells from the first filled to the last set side by side
    (OCR reads widely spaced digits poorly: «6 1 2» as 517), `ocr(image, digits_only)`: first
    as text, then — for a comb of figures, where the text reading gives neither letters nor a
    clean figure («#5120») — digits only. A reading that gives one character to each filled
    cell stands (a digits-only one under the review threshold); otherwise the page's reading
    stays, under the review threshold when it holds figures. A comb of letters (the
    organisation's name) is never read digits-only. A figure the page's reading does not
    confirm is read digits-only too, and is a doubt unless that reading agrees («7 2 5» read
    129 side by side, «ид?» on the page). Brackets printed beside a comb (a negative figure) stay with what the comb reads,
    «)(» between two combs with both; a figure's word spans its whole comb (the column it
    fills, whatever cells its digits take)."""
    import numpy as np

    gray = np.asarray(prepared.image.convert("L"))
    out = list(words)
    shared: set[int] = set()  # brackets a comb's reading took: between two combs, «)(» serves both
    for comb in prepared.combs:
        cells = _filled_cells(gray, comb)
        if not cells:
            continue
        beside = [w for w in out if _bracket_beside(comb, w)]
        mine = [w for w in out if _holds(comb, w) and w not in beside]
        rest = [w for w in out if w not in mine]
        sheet = _side_by_side(prepared.image, comb, cells)
        read = _fits(ocr(sheet, False), len(cells))
        lettered = _lettered(read[0]) if read is not None else _lettered(*(w.text for w in mine))
        witnessed = False  # a second reading of the same sheet agrees
        if not lettered and (read is None or not _figure(read[0])):
            digits = _fits(ocr(sheet, True), len(cells))
            read = (digits[0], min(digits[1], _DOUBT)) if digits is not None else None
            witnessed = True  # under the threshold already
        if read is None:
            if any(ch.isdigit() for w in mine for ch in w.text):
                mine = [replace(w, confidence=min(w.confidence, _DOUBT)) for w in mine]
            out = [*rest, *mine]
            continue
        text, confidence = read
        x0 = comb.x0 + cells[0] * comb.pitch
        x1 = comb.x0 + (cells[-1] + 1) * comb.pitch
        if _figure(text):
            text = text.replace(" ", "")
            printed = "".join(w.text for w in sorted(mine, key=lambda w: w.x0))
            page_digits = "".join(ch for ch in printed if ch.isdigit())
            if page_digits != text.replace("-", "") and not witnessed:
                second = _fits(ocr(sheet, True), len(cells))  # the page's reading differs:
                if second is None or second[0].replace(" ", "") != text:  # one more witness
                    confidence = min(confidence, _DOUBT)
            centre = (comb.x0 + comb.x1) / 2
            opened = printed.startswith("(") or any("(" in w.text for w in beside if w.x1 < centre)
            closed = printed.endswith(")") or any(")" in w.text for w in beside if w.x0 > centre)
            if opened or closed:  # a negative figure; one bracket missed is a doubt
                text = f"({text})"
                confidence = confidence if opened and closed else min(confidence, _DOUBT)
            shared.update(id(w) for w in beside)
            x0, x1 = comb.x0, comb.x1  # a figure's cell is its whole comb: the column it fills
        out = [*rest, PlacedWord(text, x0, x1, comb.top, comb.bottom, confidence)]
    return [w for w in out if id(w) not in shared]


def _bracket_beside(comb: Comb, word: PlacedWord) -> bool:
    """A word of brackets only printed within a cell's width left or right of the comb, on its
    line («(», «)», or «)(» between two combs)."""
    if not word.text or any(ch not in "()" for ch in word.text):
        return False
    beside = comb.x0 - comb.pitch <= word.x1 <= comb.x0 + comb.pitch / 2 or (
        comb.x1 - comb.pitch / 2 <= word.x0 <= comb.x1 + comb.pitch
    )
    return beside and word.top < comb.bottom and comb.top < word.bottom


def _lettered(*texts: str) -> bool:
    return any(ch.isalpha() for text in texts for ch in text)


def _figure(text: str) -> bool:
    return all(ch.isdigit() or ch in "- " for ch in text)


def _fits(found: list[PlacedWord], filled: int) -> tuple[str, float] | None:
    """The reading and its confidence when it gives one character to each filled cell."""
    text = " ".join(w.text for w in sorted(found, key=lambda w: w.x0))
    if not found or len(text.replace(" ", "")) != filled:
        return None
    return text, min(w.confidence for w in found)


def _filled_cells(gray: Any, comb: Comb) -> list[int]:
    """The indexes of the comb's cells that hold ink (`gray`: the page as an array)."""
    filled: list[int] = []
    for i in range(round((comb.x1 - comb.x0) / comb.pitch)):
        patch = gray[_inside(comb, i)]
        if patch.size and float((patch < 128).mean()) >= _INKED:
            filled.append(i)
    return filled


def _inside(comb: Comb, cell: int) -> tuple[slice, slice]:
    inset = comb.pitch * _INSET
    left = comb.x0 + cell * comb.pitch + inset
    return (
        slice(int(comb.top + inset), int(comb.bottom - inset)),
        slice(int(left), int(left + comb.pitch - 2 * inset)),
    )


def _side_by_side(image: Any, comb: Comb, cells: list[int]) -> Any:
    """The insides of the cells from the first filled to the last pasted next to each other on
    white, with a margin (an empty cell among them is a space), thresholded."""
    from PIL import Image

    gray = image.convert("L")
    rows, columns = _inside(comb, cells[0])
    width, height = columns.stop - columns.start, rows.stop - rows.start
    margin = height // 2
    span = range(cells[0], cells[-1] + 1)
    sheet = Image.new("L", (width * len(span) + 2 * margin, height + 2 * margin), 255)
    for n, cell in enumerate(span):
        rows, columns = _inside(comb, cell)
        crop = gray.crop((columns.start, rows.start, columns.start + width, rows.start + height))
        sheet.paste(crop, (margin + n * width, margin))
    return _binarised(sheet)


def _binarised(sheet: Any) -> Any:
    """The sheet in black and white (Otsu): Tesseract reads a clean grey «7 2 5» as 129 with
    confidence 82, the same digits thresholded as 725 with 96 — the anti-aliased edges and a
    wall's faint trace mislead it."""
    import cv2
    import numpy as np
    from PIL import Image

    _, ink = cv2.threshold(np.asarray(sheet), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    return Image.fromarray(ink)
