"""Stamps found by their shape or their words, not their colour: a grey scan's stamp is ink
like any other, but its ring is not — no printed glyph or rule is a closed circle 16–50 mm
across —, nor is a box stamp's frame (closed, stamp-sized, often a little turned, paper around
it, no side running on as a table's rule does), and an e-signature block says what it is
(«Документ подписан электронной подписью», «Сертификат», «Владелец», «Действителен с … по …»),
whatever its frame.

The ring is looked for on a reduced copy of the prepared page (Hough circles, then the ink
along each candidate's circumference counted): a candidate is a stamp when ink runs along most
of its circle and far less of the circles just outside it (dense text meets any circle). The stamp's whole disk (its ring and the text inside) is the mask the words it
overlaps are judged by, as a colour stamp's ink is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from services.arm_statements import fold

__all__ = ["boxed_stamps", "round_stamps", "signature_blocks"]

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


_BOX_MM = ((25.0, 110.0), (12.0, 70.0))
"""A rectangular stamp's long and short sides («ПОЛУЧЕНО / Вх. № / дата», «КОПИЯ ВЕРНА»: 40–70
by 15–35 mm): comb cells and table rows are lower, the page's border far larger."""
_BOX_TURN = 10.0  # degrees: a box set by hand, the page already deskewed by its text
_FRAME_COVER = 0.85  # share of each side with ink on it: a closed frame
_OWN_COVER = 0.5
"""Share of each side with ink on it once the table's rules are erased: a side may share a
stretch with a rule it crosses at a shallow angle, a run of cells' rules shares all of it."""
_BESIDE = 0.35
"""At most this share of a band 1.5–3 mm outside the frame is ink: a stamp's frame has paper
around it, a table cell's rules have the next cells' text and rules."""
_CONTINUES = 0.85  # share of a side's 3-mm extension past a corner with ink: a table's rule
_INNER_RULE = 0.9  # share of the box's width (height) a stroke inside it runs along: a rule
_TEXT_INSIDE = 0.01  # share of a stamp's inside its text inks
_BOX_SIDE = 1500


def boxed_stamps(gray: Any) -> Any:
    """A mask (uint8, 255 inside each rectangular stamp) of the page, or None without one.

    A plain box stamp in grey has neither colour, ring nor words a table does not print, but
    its frame is a rectangle no table draws: closed, of a stamp's size, often turned a few
    degrees, with paper just outside it, sides that stop at its corners (a table cell's rules
    run on into the next cells) and no rule inside that ends at the frame (a «Коды» box, a
    table drawn in a frame). The table's rules are erased first (strokes longer than any
    stamp's side; once more allowing a scanned rule's drift of a pixel or two), so the rules
    under a stamp neither merge with its frame nor count as ink beside it, and a run of cells
    has no sides left. Candidates are the outlines and holes of that ink and of its straight
    strokes at each turn within `_BOX_TURN` degrees, on a reduced copy; each is judged on the
    copy turned upright by its own angle."""
    import cv2
    import numpy as np

    height, width = gray.shape
    factor = _BOX_SIDE / max(height, width)
    small = cv2.resize(gray, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    ink = np.where(small < _PAPER, 255, 0).astype(np.uint8)
    per_mm = max(small.shape) / _PAGE_MM
    (long_lo, long_hi), (short_lo, short_hi) = ((a * per_mm, b * per_mm) for a, b in _BOX_MM)
    unruled = _unruled(ink, int(long_hi * 1.05), int(short_hi * 1.05))
    wavy = _unruled(ink, int(long_hi * 1.05), int(short_hi * 1.05), wavy=True)
    mask = np.zeros_like(gray)
    found = False
    for contour in _outlines(unruled, per_mm):
        _x, _y, w, h = cv2.boundingRect(contour)
        if max(w, h) < long_lo * 0.9 or min(w, h) < short_lo * 0.9:
            continue
        (cx, cy), (rw, rh), angle = cv2.minAreaRect(contour)
        if rw < rh:  # the long side along x
            rw, rh, angle = rh, rw, angle - 90.0
        angle = (angle + 90.0) % 180.0 - 90.0
        if not (long_lo <= rw <= long_hi and short_lo <= rh <= short_hi):
            continue
        if abs(angle) > _BOX_TURN or cv2.contourArea(contour) < 0.8 * rw * rh:
            continue
        if mask[int(cy / factor), int(cx / factor)]:
            continue  # found already, at a neighbouring turn
        if not _is_stamp_frame((ink, unruled, wavy), (cx, cy), (rw, rh), angle, per_mm):
            continue
        grow = per_mm  # a millimetre of margin: the frame's own line and a tilted text's ends
        corners = cv2.boxPoints(((cx, cy), (rw + 2 * grow, rh + 2 * grow), angle)) / factor
        cv2.fillPoly(mask, [np.rint(corners).astype(np.int32)], 255)
        found = True
    return mask if found else None


def _outlines(ink: Any, per_mm: float) -> list[Any]:
    """The candidate frames' outlines: those of the ink itself (a box on paper), and those of
    its straight strokes 8 mm or longer (5 mm down: the rows of a table under it cut its
    sides) at each whole degree of turn within `_BOX_TURN`, in the ink's own coordinates —
    figures and words the stamp is set over touch its frame and make one outline with it,
    which no rectangle fits; their strokes are short. The strokes are joined over gaps of up
    to 20 mm along their length (10 mm down): a side crossing a table's rule at a shallow
    angle lost the stretch it shares with the rule when the rule was erased."""
    import cv2
    import numpy as np

    outlines = list(cv2.findContours(ink, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)[0])
    height, width = ink.shape
    run = int(8 * per_mm)
    centre = (width / 2, height / 2)
    for turn in range(-int(_BOX_TURN), int(_BOX_TURN) + 1):
        matrix = cv2.getRotationMatrix2D(centre, float(turn), 1.0)
        turned = cv2.warpAffine(ink, matrix, (width, height), flags=cv2.INTER_NEAREST)
        turned = cv2.dilate(turned, np.ones((3, 3), np.uint8))  # a thin grey line's breaks
        across = cv2.morphologyEx(turned, cv2.MORPH_OPEN, np.ones((1, run), np.uint8))
        down = cv2.morphologyEx(turned, cv2.MORPH_OPEN, np.ones((run * 5 // 8, 1), np.uint8))
        lines = cv2.bitwise_or(
            cv2.morphologyEx(across, cv2.MORPH_CLOSE, np.ones((1, int(20 * per_mm)), np.uint8)),
            cv2.morphologyEx(down, cv2.MORPH_CLOSE, np.ones((int(10 * per_mm), 1), np.uint8)),
        )
        lines = cv2.dilate(lines, np.ones((3, 3), np.uint8))
        back = cv2.invertAffineTransform(matrix)
        for contour in cv2.findContours(lines, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)[0]:
            points = contour.reshape(-1, 2).astype(np.float32) @ back[:, :2].T + back[:, 2]
            outlines.append(points.reshape(-1, 1, 2).astype(np.float32))
    return outlines


def _unruled(ink: Any, across: int, down: int, *, wavy: bool = False) -> Any:
    """The ink without strokes longer than any box stamp's side (a table's rules, the page's
    border): a stamp over a ruled table is then a frame of its own, not one outline with the
    grid, and the rules under it count neither as paper nor as ink beside it."""
    import cv2
    import numpy as np

    fat = cv2.dilate(ink, np.ones((3, 3), np.uint8)) if wavy else ink
    long = cv2.bitwise_and(
        ink,
        cv2.bitwise_or(
            cv2.morphologyEx(fat, cv2.MORPH_OPEN, np.ones((1, across), np.uint8)),
            cv2.morphologyEx(fat, cv2.MORPH_OPEN, np.ones((down, 1), np.uint8)),
        ),
    )
    rest = cv2.bitwise_and(ink, cv2.bitwise_not(long))
    return cv2.morphologyEx(rest, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))


def _is_stamp_frame(
    inks: tuple[Any, Any, Any],
    centre: tuple[float, float],
    size: tuple[float, float],
    angle: float,
    per_mm: float,
) -> bool:
    """Whether the rectangle (centre, size, angle in degrees) is a stamp's frame: see
    `boxed_stamps`. `inks` are the page's ink, the same without the table's rules and without
    them allowing their drift. The rectangle is cut out upright with 3 mm around it; its sides
    are looked for in all the ink (a side shares a stretch with a rule it crosses at a shallow
    angle) and, half of each, in the ink without drifting rules (a run of cells' sides are all
    rules); the rest in the ink without the table's rules."""
    import cv2
    import numpy as np

    margin = int(3 * per_mm) + 2
    rw, rh = round(size[0]), round(size[1])
    matrix = cv2.getRotationMatrix2D(centre, angle, 1.0)
    matrix[0, 2] += (rw / 2 + margin) - centre[0]
    matrix[1, 2] += (rh / 2 + margin) - centre[1]
    shape = (rw + 2 * margin, rh + 2 * margin)
    whole, on, own = (
        cv2.warpAffine(ink, matrix, shape, flags=cv2.INTER_NEAREST, borderValue=0) > 0
        for ink in inks
    )
    band = max(1, round(0.5 * per_mm))
    x0, y0, x1, y1 = margin, margin, margin + rw - 1, margin + rh - 1
    for ink_of, share in ((whole, _FRAME_COVER), (own, _OWN_COVER)):
        sides = (  # ink within the band of each side, per position along it
            ink_of[y0 - band : y0 + band + 1, x0:x1].any(axis=0),
            ink_of[y1 - band : y1 + band + 1, x0:x1].any(axis=0),
            ink_of[y0:y1, x0 - band : x0 + band + 1].any(axis=1),
            ink_of[y0:y1, x1 - band : x1 + band + 1].any(axis=1),
        )
        if min(float(side.mean()) for side in sides) < share:
            return False
    near, far = int(1.5 * per_mm), margin - 1
    beside = np.concatenate(
        [
            on[y0 - far : y0 - near, x0:x1].any(axis=0),
            on[y1 + near : y1 + far, x0:x1].any(axis=0),
            on[y0:y1, x0 - far : x0 - near].any(axis=1),
            on[y0:y1, x1 + near : x1 + far].any(axis=1),
        ]
    )
    if float(beside.mean()) > _BESIDE:
        return False
    gap = band + 1
    off = 2 * band + 1  # a rule is thin: paper this far beside its line, where a word is ink
    ends = (  # (ink on the side's own line past a corner, a pixel either way; ink beside it)
        (on[y - 1 : y + 2, xs].any(axis=0), on[[y - off, y + off], xs].any(axis=0))
        for y in (y0, y1)
        for xs in (slice(0, x0 - gap), slice(x1 + gap, None))
    )
    downs = (
        (on[ys, x - 1 : x + 2].any(axis=1), on[ys][:, [x - off, x + off]].any(axis=1))
        for x in (x0, x1)
        for ys in (slice(0, y0 - gap), slice(y1 + gap, None))
    )
    for line, beside_line in (*ends, *downs):
        if line.size and line.mean() >= _CONTINUES and beside_line.mean() < 1 - _CONTINUES:
            return False  # a side running on as a thin rule: a table's cell
    inside = int(2 * per_mm)  # clear of the frame, a double one included
    if on[y0 + inside : y1 - inside, x0 + inside : x1 - inside].mean() < _TEXT_INSIDE:
        return False  # an empty frame: a field of the form, no stamp
    # a rule inside that stops at the frame, across or down (the ink transposed): a table in
    # a frame
    return not (
        _ruled_inside(on, (x0, y0, x1, y1), inside, gap)
        or _ruled_inside(on.T, (y0, x0, y1, x1), inside, gap)
    )


def _ruled_inside(on: Any, frame: tuple[int, int, int, int], inside: int, gap: int) -> bool:
    """Whether a row of the frame (x0, y0, x1, y1) holds a rule along its inside that does
    not run on past both of its sides (a table's rule crossing a stamp does)."""
    x0, y0, x1, y1 = frame
    for y in range(y0 + inside, y1 - inside):
        if on[y, x0 + inside : x1 - inside].mean() >= _INNER_RULE and not (
            on[y, : x0 - gap].mean() >= _CONTINUES and on[y, x1 + gap :].mean() >= _CONTINUES
        ):
            return True
    return False


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
