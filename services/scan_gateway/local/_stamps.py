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
    long_hi, short_hi = (high * per_mm for _low, high in _BOX_MM)
    unruled = _unruled(ink, int(long_hi * 1.05), int(short_hi * 1.05))
    inks: tuple[Any, Any, Any] | None = None  # with the drifting rules erased: when judging
    mask = np.zeros_like(gray)
    found = False
    free = cv2.findContours(unruled, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)[0]
    for contour in (*free, *_outlines(unruled, per_mm)):
        rect = _box_rect(contour, per_mm)
        if rect is None:
            continue
        (cx, cy), (rw, rh), angle = rect
        if mask[int(cy / factor), int(cx / factor)]:
            continue  # found already, at a neighbouring turn
        if inks is None:
            wavy = _unruled(ink, int(long_hi * 1.05), int(short_hi * 1.05), wavy=True)
            inks = (ink, unruled, wavy)
        if not _is_stamp_frame(inks, (cx, cy), (rw, rh), angle, per_mm):
            continue
        grow = per_mm  # a millimetre of margin: the frame's own line and a tilted text's ends
        corners = cv2.boxPoints(((cx, cy), (rw + 2 * grow, rh + 2 * grow), angle)) / factor
        cv2.fillPoly(mask, [np.rint(corners).astype(np.int32)], 255)
        found = True
    return mask if found else None


_Rect = tuple[tuple[float, float], tuple[float, float], float]


def _box_rect(contour: Any, per_mm: float, slack: float = 0.0) -> _Rect | None:
    """The rectangle (centre, long and short side, angle in degrees) of an outline that may be
    a box stamp's: of a stamp's size, turned at most `_BOX_TURN`, filling most of it; None
    otherwise. `slack` widens each bound by that share (`_regions`' loose test)."""
    import cv2

    (long_lo, long_hi), (short_lo, short_hi) = ((a * per_mm, b * per_mm) for a, b in _BOX_MM)
    low, high = 1.0 - slack, 1.0 + slack
    _x, _y, w, h = cv2.boundingRect(contour)
    if max(w, h) < long_lo * 0.9 * low or min(w, h) < short_lo * 0.9 * low:
        return None
    (cx, cy), (rw, rh), angle = cv2.minAreaRect(contour)
    if rw < rh:  # the long side along x
        rw, rh, angle = rh, rw, angle - 90.0
    angle = (angle + 90.0) % 180.0 - 90.0
    if not (long_lo * low <= rw <= long_hi * high and short_lo * low <= rh <= short_hi * high):
        return None
    if abs(angle) > _BOX_TURN + 15 * slack or cv2.contourArea(contour) < (0.8 - slack) * rw * rh:
        return None
    return (cx, cy), (rw, rh), angle


def _strokes(turned: Any, per_mm: float) -> Any:
    """The straight strokes of the turned ink `turned` 8 mm or longer across (5 mm down),
    joined over gaps of up to 20 mm along their length (10 mm down): see `_outlines`."""
    import cv2
    import numpy as np

    run = int(8 * per_mm)
    turned = cv2.dilate(turned, np.ones((3, 3), np.uint8))  # a thin grey line's breaks
    # across on the transposed ink, down its columns: the same pixels, in 2/3 of the time
    across = cv2.morphologyEx(cv2.transpose(turned), cv2.MORPH_OPEN, np.ones((run, 1), np.uint8))
    across = cv2.morphologyEx(across, cv2.MORPH_CLOSE, np.ones((int(20 * per_mm), 1), np.uint8))
    down = cv2.morphologyEx(turned, cv2.MORPH_OPEN, np.ones((run * 5 // 8, 1), np.uint8))
    lines = cv2.bitwise_or(
        cv2.transpose(across),
        cv2.morphologyEx(down, cv2.MORPH_CLOSE, np.ones((int(10 * per_mm), 1), np.uint8)),
    )
    return cv2.dilate(lines, np.ones((3, 3), np.uint8))


def _reach(per_mm: float) -> tuple[int, int]:
    """How far (across, down) a pixel of `_strokes` depends on the ink around it: each
    opening and closing reaches at most its kernel's length, each dilation one pixel."""
    run = int(8 * per_mm)
    return 2 + run + int(20 * per_mm) + 2, 2 + run * 5 // 8 + int(10 * per_mm) + 2


def _turns() -> range:
    return range(-int(_BOX_TURN), int(_BOX_TURN) + 1)


def _outlines(ink: Any, per_mm: float) -> list[Any]:
    """The candidate frames' outlines: those of the ink's straight strokes 8 mm or longer (5 mm
    down: the rows of a table under it cut its sides) at each whole degree of turn within
    `_BOX_TURN`, in the ink's own coordinates — figures and words the stamp is set over touch
    its frame and make one outline with it, which no rectangle fits; their strokes are short.
    The strokes are joined over gaps of up to 20 mm along their length (10 mm down): a side
    crossing a table's rule at a shallow angle lost the stretch it shares with the rule when
    the rule was erased. Outlines too small to be a stamp's at any turn are left out.

    Every `_SEARCH_STEP`-th turn is looked at on the whole page; a turn between only in the
    regions where a neighbouring turn showed a frame-like outline (`_regions`; its strokes a
    pixel fatter too, so that a frame that closes at one turn alone shows there), each cut out
    of the turned page with the strokes' reach around it, so that the outlines lying in a
    region are those the whole turned page has, in the same order: a stamp found at a turn
    between is found with the same rectangle as by the whole page's strokes."""
    import cv2
    import numpy as np

    height, width = ink.shape
    centre = (width / 2, height / 2)
    least = _least_outline(per_mm)
    whole: dict[int, list[Any]] = {}
    hints: dict[int, list[Any]] = {}  # and those of the strokes a pixel fatter: gaps closed
    for turn in _turns():
        if turn % _SEARCH_STEP == 0:
            matrix = cv2.getRotationMatrix2D(centre, float(turn), 1.0)
            turned = cv2.warpAffine(ink, matrix, (width, height), flags=cv2.INTER_NEAREST)
            lines = _strokes(turned, per_mm)
            whole[turn] = _turned_back(lines, matrix, (0, 0), least)
            fat = cv2.dilate(lines, np.ones((3, 3), np.uint8))
            hints[turn] = whole[turn] + _turned_back(fat, matrix, (0, 0), least)
    regions = _regions(ink, hints, per_mm)
    reach_x, reach_y = _reach(per_mm)
    out: list[Any] = []
    for turn in _turns():
        if turn in whole:
            out += whole[turn]
            continue
        near = [(x0, y0, x1, y1) for x0, y0, x1, y1, turns in regions if turn in turns]
        if not near:
            continue
        matrix = cv2.getRotationMatrix2D(centre, float(turn), 1.0)
        turned = cv2.warpAffine(ink, matrix, (width, height), flags=cv2.INTER_NEAREST)
        for x0, y0, x1, y1 in near:
            corners = np.array([[x0, y0, 1], [x1, y0, 1], [x0, y1, 1], [x1, y1, 1]], float)
            xs, ys = (corners @ matrix.T).T
            left = max(0, int(xs.min()) - reach_x - 2)
            top = max(0, int(ys.min()) - reach_y - 2)
            right = min(width, int(xs.max()) + reach_x + 3)
            bottom = min(height, int(ys.max()) + reach_y + 3)
            lines = _strokes(turned[top:bottom, left:right], per_mm)
            for points in _turned_back(lines, matrix, (left, top), least):
                low, high = points.reshape(-1, 2).min(axis=0), points.reshape(-1, 2).max(axis=0)
                if low[0] >= x0 and low[1] >= y0 and high[0] <= x1 and high[1] <= y1:
                    out.append(points)
    return out


def _least_outline(per_mm: float) -> tuple[float, float]:
    """The least (longer, shorter) side of an outline's upright bounding box, on the turned
    page, that could still make a box stamp's rectangle (`_box_rect`, loosely, as `_regions`
    asks) once turned back by up to `_BOX_TURN` degrees: turning a w × h box (w ≥ h) by at
    most that makes its sides at most w + h·sin and h + w·sin (a pixel spare either way)."""
    (long_lo, _), (short_lo, _) = _BOX_MM
    least = 0.9 * (1.0 - _SLACK) * per_mm
    return long_lo * least - 2.0, short_lo * least - 2.0


def _turned_back(
    lines: Any, matrix: Any, offset: tuple[int, int], least: tuple[float, float]
) -> list[Any]:
    """The outlines of the strokes `lines` (cut out of the page turned by `matrix` at
    `offset`), in the page's coordinates; those too small for a stamp (`_least_outline`) are
    left out."""
    import math

    import cv2
    import numpy as np

    back = cv2.invertAffineTransform(matrix)
    shift = np.array(offset, np.float32)
    sine = math.sin(math.radians(_BOX_TURN))
    out: list[Any] = []
    for contour in cv2.findContours(lines, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)[0]:
        _x, _y, w, h = cv2.boundingRect(contour)
        longer, shorter = max(w, h), min(w, h)
        if longer + shorter * sine < least[0] or shorter + longer * sine < least[1]:
            continue
        points = (contour.reshape(-1, 2).astype(np.float32) + shift) @ back[:, :2].T + back[:, 2]
        out.append(points.reshape(-1, 1, 2).astype(np.float32))
    return out


_SEARCH_STEP = 2
"""The turns looked at on the whole page: every other degree. A frame's outline closes at two or
three neighbouring turns, one of them even; at every third degree a faint thin frame over a
filled table, closed at two turns only, was lost."""
_REGION_MM = 6.0
"""Margin (mm) around a frame-like outline in which the turns next to its own are looked at:
more than a frame's outline moves by from one turn to the next."""


_Region = tuple[int, int, int, int, frozenset[int]]


def _regions(ink: Any, outlines: dict[int, list[Any]], per_mm: float) -> list[_Region]:
    """Where on the reduced copy a box stamp's strokes may be at the turns between the whole
    page's (x0, y0, x1, y1, the turns next to those it showed at; apart by more than a stamp's
    margin): around each of the `outlines` (by turn) loosely of a stamp's size and shape with
    ink along most of each side (`_may_be_frame`). The strokes of a page's text rarely are;
    a page without table or form has no region, and the turns between then cost nothing."""
    import cv2

    height, width = ink.shape
    boxes: list[tuple[list[float], set[int]]] = []
    grow = _REGION_MM * per_mm
    for turn, contours in outlines.items():
        for contour in contours:
            rect = _box_rect(contour, per_mm, slack=_SLACK)
            if rect is None or not _may_be_frame(ink, rect, per_mm):
                continue
            (cx, cy), (rw, rh), angle = rect
            corners = cv2.boxPoints(((cx, cy), (rw + 2 * grow, rh + 2 * grow), angle))
            turns = set(range(turn - _SEARCH_STEP + 1, turn + _SEARCH_STEP))
            boxes.append(([*corners.min(axis=0), *corners.max(axis=0)], turns))
    return _merged(boxes, per_mm, (width, height))


_SLACK = 0.2
"""How much looser the size, turn and fill bounds of an outline that makes a region are than a
stamp's (the outline a degree off the frame's own turn is a little off its shape)."""


def _merged(
    boxes: list[tuple[list[float], set[int]]], per_mm: float, size: tuple[int, int]
) -> list[_Region]:
    """`boxes` (x0, y0, x1, y1; their turns) joined while any two come within 3 mm of each
    other (a stamp found in one must not reach into another: its mask grows a millimetre),
    clipped to the page `size`."""
    gap = 3 * per_mm
    merged: list[tuple[list[float], set[int]]] = []
    for box, turns in boxes:
        joined = True
        while joined:
            joined = False
            for other, more in merged:
                if (
                    box[0] - gap <= other[2]
                    and other[0] - gap <= box[2]
                    and box[1] - gap <= other[3]
                    and other[1] - gap <= box[3]
                ):
                    merged.remove((other, more))
                    box = [
                        min(box[0], other[0]),
                        min(box[1], other[1]),
                        max(box[2], other[2]),
                        max(box[3], other[3]),
                    ]
                    turns = turns | more
                    joined = True
                    break
        merged.append((box, turns))
    width, height = size
    return [
        (
            max(0, int(x0)),
            max(0, int(y0)),
            min(width, int(x1) + 1),
            min(height, int(y1) + 1),
            frozenset(turns),
        )
        for (x0, y0, x1, y1), turns in merged
    ]


def _may_be_frame(ink: Any, rect: _Rect, per_mm: float) -> bool:
    """Whether the ink without the table's rules runs along at least `_LOOSE_COVER` of each
    side of `rect` within a band 2 mm wider than `_is_stamp_frame`'s (a frame's outline a few
    degrees off its own turn is a little off its sides): a loose form of that test's «half of
    each side», which every stamp it finds passes."""
    import cv2

    (cx, cy), (rw_f, rh_f), angle = rect
    margin = int(3 * per_mm) + 2
    rw, rh = round(rw_f), round(rh_f)
    matrix = cv2.getRotationMatrix2D((cx, cy), angle, 1.0)
    matrix[0, 2] += (rw / 2 + margin) - cx
    matrix[1, 2] += (rh / 2 + margin) - cy
    shape = (rw + 2 * margin, rh + 2 * margin)
    whole = cv2.warpAffine(ink, matrix, shape, flags=cv2.INTER_NEAREST, borderValue=0) > 0
    band = max(1, round(0.5 * per_mm)) + round(2 * per_mm)
    x0, y0, x1, y1 = margin, margin, margin + rw - 1, margin + rh - 1
    sides = (
        whole[max(0, y0 - band) : y0 + band + 1, x0:x1].any(axis=0),
        whole[y1 - band : y1 + band + 1, x0:x1].any(axis=0),
        whole[y0:y1, max(0, x0 - band) : x0 + band + 1].any(axis=1),
        whole[y0:y1, x1 - band : x1 + band + 1].any(axis=1),
    )
    return min(float(side.mean()) for side in sides) >= _LOOSE_COVER


_LOOSE_COVER = 0.4


def _unruled(ink: Any, across: int, down: int, *, wavy: bool = False) -> Any:
    """The ink without strokes longer than any box stamp's side (a table's rules, the page's
    border): a stamp over a ruled table is then a frame of its own, not one outline with the
    grid, and the rules under it count neither as paper nor as ink beside it."""
    import cv2
    import numpy as np

    fat = cv2.dilate(ink, np.ones((3, 3), np.uint8)) if wavy else ink
    long = cv2.bitwise_and(
        ink, cv2.bitwise_or(_opened(fat, across, axis=1), _opened(fat, down, axis=0))
    )
    rest = cv2.bitwise_and(ink, cv2.bitwise_not(long))
    return cv2.morphologyEx(rest, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))


def _opened(ink: Any, length: int, *, axis: int) -> Any:
    """`cv2.morphologyEx(ink, MORPH_OPEN, …)` with a line of `length` ones along `axis` (1:
    across, 0: down), pixel for pixel (the same anchor; the page's edge neither ink nor paper),
    in a few passes whatever the length: each pass takes the minimum (then the maximum) of the
    image and itself shifted by as much as the passes before covered, so a line of 583 pixels
    costs ten passes, not 583 comparisons a pixel."""
    import numpy as np

    low = -(length // 2)
    eroded = _window(ink, low, length, axis, np.minimum, 255)
    return _window(eroded, low, length, axis, np.maximum, 0)


def _window(image: Any, low: int, length: int, axis: int, op: Any, outside: int) -> Any:
    """`op` (np.minimum or np.maximum) of `image` over positions low … low + length − 1 along
    `axis` from each pixel, positions off the image left out (padded with `outside`, which
    `op` never picks)."""
    import numpy as np

    before, after = max(0, -low), max(0, low + length - 1)
    pad = [(0, 0), (0, 0)]
    pad[axis] = (before, after)
    work = np.pad(image, pad, constant_values=outside)
    spare = np.empty_like(work)
    size = work.shape[axis]

    def cut(start: int, stop: int) -> tuple[slice, ...]:
        return (slice(None), slice(start, stop)) if axis == 1 else (slice(start, stop),)

    span = 1  # work[x] is op over positions x … x + span − 1 of the padded image
    while span < length:
        step = min(span, length - span)
        op(work[cut(0, size - step)], work[cut(step, size)], out=spare[cut(0, size - step)])
        spare[cut(size - step, size)] = work[cut(size - step, size)]
        work, spare = spare, work
        span += step
    start = before + low
    return np.ascontiguousarray(work[cut(start, start + image.shape[axis])])


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
