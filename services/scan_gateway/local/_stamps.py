"""Stamps found by their shape or their words, not their colour: a grey scan's stamp is ink
like any other, but its ring is not — no printed glyph or rule is a closed circle 16–50 mm
across — and an e-signature block says what it is («Документ подписан электронной подписью»,
«Сертификат», «Владелец», «Действителен с … по …»), whatever its frame.

The ring is looked for on a reduced copy of the prepared page (Hough circles, then the ink
along each candidate's circumference counted): a candidate is a stamp when ink runs along most
of its circle and far less of the circles just outside it (dense text meets any circle). The stamp's whole disk (its ring and the text inside) is the mask the words it
overlaps are judged by, as a colour stamp's ink is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from services.arm_statements import fold

__all__ = ["round_stamps", "signature_blocks"]

_PAGE_MM = 297.0  # the long side of an A4 page: a scan's scale when nothing else tells it
_RADIUS_MM = (8.0, 25.0)
_RING_COVER = 0.75  # share of the circumference ink runs along: a drawn ring
_RING_CONTRAST = 0.45
"""How much more of the circle than of the circles just outside it (1.15 and 1.3 radii) is
ink: a ring is a line with paper beside it; a circle laid over dense text meets ink at every
radius alike."""
_PAPER = 200  # of 255: ink is anything darker than this (a grey stamp included)
_WORK_SIDE = 1000
_VOTES = 60
"""Hough's accumulator threshold for a circle's centre. The ring test decides, so this only
has to keep every ring that could pass it; the candidates it lets through are what the search
costs (at 30, dense text gave a hundred and the search took 0.46 s a page; at 60, 0.13 s). The
fixtures' stamps stop being found from 160 (the grey oval) and 200 (the 70-dpi page), the real
scans' stamp from above 260: a ring inked along the 75 % the ring test asks for, at the
smallest radius, still draws more than 60."""


_OVALS = (0.6, 0.72, 0.85)
"""The minor-to-major axis ratios an oval stamp (wider than tall, as they are set) is looked for
at: the page is squeezed across by each, so that such an oval becomes a circle (the ring test
tolerates the rest); on a copy of `_OVAL_SIDE` px, each pass costing a tenth of a second."""
_OVAL_SIDE = 700


def round_stamps(gray: Any) -> Any:
    """A mask (uint8, 255 inside each round or oval stamp) of the page, or None without one."""
    import cv2
    import numpy as np

    height, width = gray.shape
    factor = _WORK_SIDE / max(height, width)
    small = cv2.resize(gray, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    reduced = _OVAL_SIDE / _WORK_SIDE
    stretches = [(1.0, 1.0)] + [(k * reduced, reduced) for k in _OVALS]
    mask = np.zeros_like(gray)
    found = False
    for sx, sy in stretches:
        for cx, cy, r in _rings(small, sx, sy):
            centre = (int(cx / sx / factor), int(cy / sy / factor))
            axes = (int(r * 1.05 / sx / factor), int(r * 1.05 / sy / factor))
            cv2.ellipse(mask, centre, axes, 0.0, 0.0, 360.0, 255, thickness=-1)
            found = True
    return mask if found else None


def _rings(small: Any, sx: float, sy: float) -> list[tuple[float, float, float]]:
    """The rings (centre, radius) of the page `small` squeezed by (sx, sy): Hough circles of a
    stamp's size with ink along most of the circle and far less beside it."""
    import cv2

    page = small if sx == sy == 1.0 else cv2.resize(small, None, fx=sx, fy=sy)
    per_mm = max(small.shape) * sy / _PAGE_MM  # the page's height is squeezed by sy alone
    low, high = (int(r * per_mm) for r in _RADIUS_MM)
    circles = cv2.HoughCircles(
        cv2.GaussianBlur(page, (5, 5), 0),
        cv2.HOUGH_GRADIENT,
        dp=1.5,
        minDist=low * 2,
        param1=120,
        param2=_VOTES,
        minRadius=low,
        maxRadius=high,
    )
    if circles is None:
        return []
    ink = page < _PAPER
    out: list[tuple[float, float, float]] = []
    for cx, cy, r in circles[0]:
        ring = _ring_cover(ink, float(cx), float(cy), float(r))
        beside = max(_ring_cover(ink, float(cx), float(cy), float(r) * k) for k in (1.15, 1.3))
        if ring >= _RING_COVER and ring - beside >= _RING_CONTRAST:
            out.append((float(cx), float(cy), float(r)))
    return out


def _ring_cover(ink: Any, cx: float, cy: float, r: float) -> float:
    """The share of 180 points around the circle with ink within a band of its radius."""
    import numpy as np

    band = max(2.0, r * 0.06)
    angles = np.linspace(0.0, 2 * np.pi, 180, endpoint=False)[:, None]
    radii = np.arange(r - band, r + band + 0.5, 1.0)[None, :]
    xs = np.rint(cx + radii * np.cos(angles)).astype(int)
    ys = np.rint(cy + radii * np.sin(angles)).astype(int)
    height, width = ink.shape
    inside = (xs >= 0) & (xs < width) & (ys >= 0) & (ys < height)
    hit = np.zeros(xs.shape, dtype=bool)
    hit[inside] = ink[ys[inside], xs[inside]]
    return float(hit.any(axis=1).mean())


class _Word(Protocol):
    @property
    def text(self) -> str: ...
    @property
    def x0(self) -> float: ...
    @property
    def x1(self) -> float: ...
    @property
    def top(self) -> float: ...
    @property
    def bottom(self) -> float: ...


class _Rule(Protocol):
    @property
    def y(self) -> float: ...
    @property
    def x0(self) -> float: ...
    @property
    def x1(self) -> float: ...


_BLOCK_WORDS = ("сертификат", "владелец", "действителен", "подписан", "электронн", "подписью")
"""The words an e-signature block prints (its heading and the labels of its three rows)."""
_BLOCK_WIDTH = 0.42
"""An e-signature block's width as a share of the page's when its frame is not found (blocks
are 80–95 mm on A4)."""


def signature_blocks(
    words: Sequence[_Word], hrules: Sequence[_Rule], shape: tuple[int, int]
) -> Any:
    """A mask (uint8, 255 over each e-signature block) of a page `shape` (height, width), or
    None without one. A block is two or more of its words («Сертификат», «Владелец»,
    «Действителен», «подписан электронной подписью») stacked within a few lines of each
    other; it spans from its words' left edge to the right end of the horizontal rule that
    frames it above or below (a rule starting near its left edge), or a typical block's width
    when no such rule is found; a line's height of margin above and below. Its text never
    makes a line (`arm_statements.is_page_furniture`); the mask puts the figures of the cells
    it overlaps up for review, as a round stamp's disk does."""
    import numpy as np

    marks = sorted(
        (w for w in words if any(fold(w.text).startswith(k) for k in _BLOCK_WORDS)),
        key=lambda w: w.top,
    )
    if len(marks) < 2:
        return None
    height, width = shape
    line = float(np.median([w.bottom - w.top for w in marks])) or 1.0
    groups: list[list[_Word]] = [[marks[0]]]
    for word in marks[1:]:
        if word.top - groups[-1][-1].bottom <= 4 * line:
            groups[-1].append(word)
        else:
            groups.append([word])
    mask = np.zeros((height, width), dtype=np.uint8)
    found = False
    for group in groups:
        if len(group) < 2:
            continue
        left = min(w.x0 for w in group) - line
        top = min(w.top for w in group) - 1.5 * line
        bottom = max(w.bottom for w in group) + 1.5 * line
        framing = [
            r.x1
            for r in hrules
            if (top - 3 * line <= r.y <= top + line or bottom - line <= r.y <= bottom + 3 * line)
            and abs(r.x0 - left) <= 6 * line
        ]
        right = max(framing) if framing else left + _BLOCK_WIDTH * width
        y0, y1 = max(int(top), 0), min(int(bottom), height)
        mask[y0:y1, max(int(left), 0) : min(int(right), width)] = 255
        found = True
    return mask if found else None
