"""Round stamps found by their shape, not their colour: a grey scan's stamp is ink like any
other, but its ring is not — no printed glyph or rule is a closed circle 16–50 mm across.

The ring is looked for on a reduced copy of the prepared page (Hough circles, then the ink
along each candidate's circumference counted): a candidate is a stamp when ink runs along most
of its circle and far less of the circles just outside it (dense text meets any circle). The stamp's whole disk (its ring and the text inside) is the mask the words it
overlaps are judged by, as a colour stamp's ink is.
"""

from __future__ import annotations

from typing import Any

__all__ = ["round_stamps"]

_PAGE_MM = 297.0  # the long side of an A4 page: a scan's scale when nothing else tells it
_RADIUS_MM = (8.0, 25.0)
_RING_COVER = 0.75  # share of the circumference ink runs along: a drawn ring
_RING_CONTRAST = 0.45
"""How much more of the circle than of the circles just outside it (1.15 and 1.3 radii) is
ink: a ring is a line with paper beside it; a circle laid over dense text meets ink at every
radius alike."""
_PAPER = 200  # of 255: ink is anything darker than this (a grey stamp included)
_WORK_SIDE = 1000


def round_stamps(gray: Any) -> Any:
    """A mask (uint8, 255 inside each round stamp) of the page, or None without one."""
    import cv2
    import numpy as np

    height, width = gray.shape
    factor = _WORK_SIDE / max(height, width)
    small = cv2.resize(gray, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    per_mm = max(small.shape) / _PAGE_MM
    low, high = (int(r * per_mm) for r in _RADIUS_MM)
    circles = cv2.HoughCircles(
        cv2.GaussianBlur(small, (5, 5), 0),
        cv2.HOUGH_GRADIENT,
        dp=1.5,
        minDist=low * 2,
        param1=120,
        param2=30,
        minRadius=low,
        maxRadius=high,
    )
    if circles is None:
        return None
    ink = small < _PAPER
    mask = np.zeros_like(gray)
    found = False
    for cx, cy, r in circles[0]:
        ring = _ring_cover(ink, float(cx), float(cy), float(r))
        beside = max(_ring_cover(ink, float(cx), float(cy), float(r) * k) for k in (1.15, 1.3))
        if ring >= _RING_COVER and ring - beside >= _RING_CONTRAST:
            centre = (int(cx / factor), int(cy / factor))
            cv2.circle(mask, centre, int(r * 1.05 / factor), 255, thickness=-1)
            found = True
    return mask if found else None


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
