"""A page image made fit for Tesseract, and the ruling lines of its tables.

Real scans are tilted, low-resolution (70–96 dpi web scans, screenshots) and ruled, and phone
photos show the sheet in perspective on a table; Tesseract reads a tilted line as two, a 75-dpi
digit as noise and a vertical rule as «|», which glues the numbers of neighbouring columns
(«78 | 677» → 781677). So before OCR a page is

- flattened when it is a photo: the sheet's quadrilateral warped to an upright rectangle;
- upscaled to a working resolution when it is small (the long side below `_MIN_LONG_SIDE`);
- deskewed by the angle that makes its row profile sharpest (±3°, on a reduced copy);
- stripped of its ruling lines: long horizontal and vertical runs found by morphological
  opening are painted white, and the vertical ones are returned with their extents, so the
  layout can put each word into the cell it sits in (`Rule`);
- stripped of its comb cells (a tax-office blank prints each figure one digit to a box): the
  short walls standing between two horizontal strokes at a regular pitch are painted white,
  and each comb is returned (`Comb`), so the digits OCR reads in it make one figure;
- and its coloured ink (a stamp, a signature in blue or violet: saturated pixels of a colour
  page) is kept as a mask through the same warp, scale and rotation (`Prepared.stamp`), so the
  words it overlaps can be put up for review; a round stamp's disk and a box stamp's frame
  join the mask whatever their colour (`_stamps`: a grey scan's stamp is found by its ring or
  its frame), and a box stamp's sides are no table rules.

`Prepared.page_box` undoes all of it for a box: where a word read on the prepared image prints
on the page as uploaded (fractions of its size), for the evidence of a value.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from services.scan_gateway.local._stamps import boxed_stamps, round_stamps

__all__ = ["Comb", "HRule", "Prepared", "Rule", "prepare_page"]

_MIN_LONG_SIDE = 2600  # ≈ 220 dpi on A4: below it Tesseract loses digits
_WORK_LONG_SIDE = 3300  # ≈ 280 dpi on A4
_MAX_UPSCALE = 4.0
_SKEW_RANGE = 3.0
_SKEW_STEP = 0.25


@dataclass(frozen=True, slots=True)
class Rule:
    """A vertical ruling line: x and its vertical extent, in the prepared image's pixels."""

    x: float
    top: float
    bottom: float


@dataclass(frozen=True, slots=True)
class HRule:
    """A horizontal ruling line: y and its horizontal extent, in the prepared image's pixels."""

    y: float
    x0: float
    x1: float


@dataclass(frozen=True, slots=True)
class Comb:
    """A row of comb cells (one character to a cell), in the prepared image's pixels."""

    x0: float
    top: float
    x1: float
    bottom: float
    pitch: float
    """The width of one cell."""


@dataclass(frozen=True, slots=True)
class Prepared:
    """The cleaned page (a PIL image), its vertical and horizontal rules and the scale applied."""

    image: Any
    rules: tuple[Rule, ...]
    hrules: tuple[HRule, ...]
    scale: float
    angle: float
    stamp: Any = None
    """Coloured ink, round stamps' disks and box stamps (uint8, 255 where a stamp or signature
    prints) in the prepared image's pixels; None for a page without any."""
    source_size: tuple[int, int] = (1, 1)
    """(width, height) of the image given."""
    warp: Any = None
    """The 3×3 perspective matrix that flattened a photo (None: not a photo)."""
    combs: tuple[Comb, ...] = ()

    def page_box(self, box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        """A box of the prepared image (x0, top, x1, bottom, pixels) as fractions of the image
        given: the rotation, the upscaling and a photo's warp undone on its four corners."""
        import cv2
        import numpy as np

        x0, top, x1, bottom = box
        points: Any = np.array([[x0, top], [x1, top], [x1, bottom], [x0, bottom]], dtype=np.float64)
        if self.angle:
            height, width = self.image.height, self.image.width
            matrix = cv2.getRotationMatrix2D((width / 2, height / 2), self.angle, 1.0)
            inverse = cv2.invertAffineTransform(matrix)
            points = points @ inverse[:, :2].T + inverse[:, 2]
        points = points / self.scale
        if self.warp is not None:
            flat = points.reshape(-1, 1, 2).astype(np.float64)
            points = cv2.perspectiveTransform(flat, np.linalg.inv(self.warp)).reshape(-1, 2)
        width0, height0 = self.source_size
        xs = np.clip(points[:, 0] / width0, 0.0, 1.0)
        ys = np.clip(points[:, 1] / height0, 0.0, 1.0)
        return float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max())


def prepare_page(image: Any, *, deskew: bool = True) -> Prepared:
    """Upscale, deskew (unless told not to: a text layer's boxes must still fit) and de-rule
    one page image (PIL in, PIL out)."""
    import cv2
    import numpy as np
    from PIL import Image

    gray = np.asarray(image.convert("L"))
    source_size = (int(gray.shape[1]), int(gray.shape[0]))
    stamp = _coloured_ink(image)
    matrix: Any = None
    if deskew and (warp := _flatten_transform(gray)) is not None:
        matrix, size = warp
        gray = cv2.warpPerspective(gray, matrix, size, flags=cv2.INTER_CUBIC, borderValue=255)
        if stamp is not None:
            stamp = cv2.warpPerspective(stamp, matrix, size, flags=cv2.INTER_NEAREST)
    height, width = gray.shape
    scale = 1.0
    if max(height, width) < _MIN_LONG_SIDE:
        scale = min(_WORK_LONG_SIDE / max(height, width), _MAX_UPSCALE)
        gray = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
        if stamp is not None:
            size = (gray.shape[1], gray.shape[0])
            stamp = cv2.resize(stamp, size, interpolation=cv2.INTER_NEAREST)
    angle = _skew_angle(gray) if deskew else 0.0
    if abs(angle) >= _SKEW_STEP / 2:
        gray = _rotate(gray, angle)
        if stamp is not None:
            stamp = _rotate(stamp, angle, border=0)
    else:
        angle = 0.0  # not applied: nothing to undo
    boxes = boxed_stamps(gray)
    for found in (round_stamps(gray), boxes):
        if found is not None:
            stamp = found if stamp is None else cv2.bitwise_or(stamp, found)
    cleaned, rules, hrules, combs = _remove_rules(gray)
    if boxes is not None:  # a box stamp's sides are no table's rules: they would split columns
        rules = tuple(r for r in rules if not _inside(boxes, (r.x, r.top), (r.x, r.bottom)))
        hrules = tuple(r for r in hrules if not _inside(boxes, (r.x0, r.y), (r.x1, r.y)))
    combs = combs + _spaced_figures(cleaned, combs)
    return Prepared(
        Image.fromarray(cleaned), rules, hrules, scale, angle, stamp, source_size, matrix, combs
    )


def _inside(mask: Any, *points: tuple[float, float]) -> bool:
    """Whether every point (x, y) lies where the mask is set."""
    height, width = mask.shape
    return all(
        bool(mask[min(max(int(y), 0), height - 1), min(max(int(x), 0), width - 1)])
        for x, y in points
    )


_STAMP_SATURATION = 90  # of 255: black, grey and paper are far below, blue / violet ink above
_STAMP_SHARE = 0.0005  # of the page: fewer coloured pixels are specks, no stamp


def _coloured_ink(image: Any) -> Any:
    """Saturated, not too light pixels of a colour page (255), or None when there are none."""
    import cv2
    import numpy as np

    if image.mode not in ("RGB", "RGBA", "P", "CMYK"):
        return None
    hsv = cv2.cvtColor(np.asarray(image.convert("RGB")), cv2.COLOR_RGB2HSV)
    # saturation above _STAMP_SATURATION, value within (40, 245), any hue: one pass, 0 / 255
    ink = cv2.inRange(hsv, (0, _STAMP_SATURATION + 1, 41), (255, 255, 244))
    if cv2.countNonZero(ink) / ink.size < _STAMP_SHARE:
        return None
    return ink


def _flatten_photo(gray: Any) -> Any:
    """A phone photo of a page (the sheet lighter than the table around it, seen at an angle)
    warped back to an upright rectangle; a scan, where the sheet fills the image, is returned
    as it is."""
    import cv2

    warp = _flatten_transform(gray)
    if warp is None:
        return gray
    matrix, size = warp
    return cv2.warpPerspective(gray, matrix, size, flags=cv2.INTER_CUBIC, borderValue=255)


def _flatten_transform(gray: Any) -> tuple[Any, tuple[int, int]] | None:
    """The perspective matrix and size that flatten a photographed sheet, None for a scan.
    The sheet is the largest light region whose outline is a quadrilateral covering a fifth
    of the image or more."""
    import cv2
    import numpy as np

    height, width = gray.shape
    factor = 800 / max(height, width)
    small = cv2.resize(gray, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (5, 5), 0)
    _, light = cv2.threshold(small, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    light = cv2.morphologyEx(light, cv2.MORPH_CLOSE, np.ones((15, 15), np.uint8))
    contours, _ = cv2.findContours(light, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    sheet = max(contours, key=cv2.contourArea)
    area = cv2.contourArea(sheet)
    if area < 0.2 * small.size or area > 0.93 * small.size:
        return None  # no sheet, or the sheet is the whole image (a scan)
    quad = cv2.approxPolyDP(sheet, 0.02 * cv2.arcLength(sheet, True), True)
    if len(quad) != 4 or not cv2.isContourConvex(quad):
        return None
    corners = _ordered(quad.reshape(4, 2).astype(np.float32) / factor)
    top_left, top_right, bottom_right, bottom_left = corners
    out_w = int(
        max(np.linalg.norm(top_right - top_left), np.linalg.norm(bottom_right - bottom_left))
    )
    out_h = int(
        max(np.linalg.norm(bottom_left - top_left), np.linalg.norm(bottom_right - top_right))
    )
    target = np.array(
        [[0, 0], [out_w - 1, 0], [out_w - 1, out_h - 1], [0, out_h - 1]], dtype=np.float32
    )
    return cv2.getPerspectiveTransform(corners, target), (out_w, out_h)


def _ordered(points: Any) -> Any:
    """Four corners as top-left, top-right, bottom-right, bottom-left."""
    import numpy as np

    sums, diffs = points.sum(axis=1), np.diff(points, axis=1).ravel()
    return np.array(
        [
            points[np.argmin(sums)],
            points[np.argmin(diffs)],
            points[np.argmax(sums)],
            points[np.argmax(diffs)],
        ],
        dtype=np.float32,
    )


def _binary(gray: Any) -> Any:
    import cv2

    _, ink = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    return ink


def _skew_angle(gray: Any) -> float:
    """The rotation (degrees) that makes the ink's row profile sharpest."""
    import cv2
    import numpy as np

    factor = 1000 / max(gray.shape)
    small = cv2.resize(gray, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    ink = _binary(small)
    best, best_score = 0.0, -1.0
    steps = int(_SKEW_RANGE / _SKEW_STEP)
    for i in range(-steps, steps + 1):
        angle = i * _SKEW_STEP
        rotated = _rotate(ink, angle, border=0) if angle else ink
        profile = rotated.sum(axis=1, dtype=np.float64)
        score = float(np.sum(np.diff(profile) ** 2))
        if score > best_score:
            best, best_score = angle, score
    return best


def _rotate(gray: Any, angle: float, border: int = 255) -> Any:
    import cv2

    height, width = gray.shape
    matrix = cv2.getRotationMatrix2D((width / 2, height / 2), angle, 1.0)
    return cv2.warpAffine(
        gray,
        matrix,
        (width, height),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=border,
    )


def _remove_rules(gray: Any) -> tuple[Any, tuple[Rule, ...], tuple[HRule, ...], tuple[Comb, ...]]:
    """The page with its long horizontal and vertical strokes and its comb cells' walls
    whitened, those strokes, and the combs."""
    import cv2
    import numpy as np

    height, width = gray.shape
    ink = _binary(gray)
    horizontal = _strokes(ink, (max(width // 30, 20), 1))
    vertical = _strokes(ink, (1, max(height // 45, 20)))
    walls, combs = _comb_walls(ink, horizontal, height)
    lines = cv2.dilate(cv2.bitwise_or(horizontal, vertical), np.ones((5, 5), np.uint8))
    lines = cv2.bitwise_or(lines, cv2.dilate(walls, np.ones((5, 5), np.uint8)))
    cleaned = gray.copy()
    cleaned[lines > 0] = 255
    cleaned[_specks(ink) > 0] = 255
    count, _, stats, _ = cv2.connectedComponentsWithStats(vertical, connectivity=8)
    rules = [
        Rule(float(x + w / 2), float(y), float(y + h))
        for x, y, w, h, _area in (stats[i] for i in range(1, count))
    ]
    count, _, stats, _ = cv2.connectedComponentsWithStats(horizontal, connectivity=8)
    hrules = [
        HRule(float(y + h / 2), float(x), float(x + w))
        for x, y, w, h, _area in (stats[i] for i in range(1, count))
    ]
    return (
        cleaned,
        tuple(sorted(rules, key=lambda r: r.x)),
        tuple(sorted(hrules, key=lambda r: r.y)),
        combs,
    )


_COMB_CELL = (0.008, 0.03)
"""A comb cell's height as a share of the page's height: 2.4–9 mm on A4 (blanks print 5–7)."""


def _comb_walls(ink: Any, horizontal: Any, height: int) -> tuple[Any, tuple[Comb, ...]]:
    """The walls of comb cells (uint8 mask) and the combs they make. A wall is a short thin
    vertical stroke whose both ends meet a horizontal stroke (a digit's stem touches neither);
    three or more walls on one top and bottom at a regular pitch (a cell about as wide as
    tall) make a comb."""
    import cv2
    import numpy as np

    low, high = (int(height * share) for share in _COMB_CELL)
    stems = _strokes(ink, (1, max(low, 8)))
    count, _, stats, _ = cv2.connectedComponentsWithStats(stems, connectivity=8)
    walls: list[tuple[int, int, int, int]] = []
    for x, y, w, h, _area in (stats[i] for i in range(1, count)):
        if not low <= h <= high or w > max(h // 4, 3):
            continue
        reach = max(h // 12, 3)
        ends = (
            horizontal[max(y - reach, 0) : y + reach, x : x + w],
            horizontal[max(y + h - reach, 0) : y + h + reach, x : x + w],
        )
        if all(end.any() for end in ends):
            walls.append((int(x), int(y), int(w), int(h)))
    mask = np.zeros_like(ink)
    combs: list[Comb] = []
    for run in (part for found in _comb_runs(walls) for part in _closed_cells(found, horizontal)):
        for x, y, w, h in run:
            mask[y : y + h, x : x + w] = 255
        pitch = (run[-1][0] - run[0][0]) / (len(run) - 1)
        combs.append(
            Comb(
                float(run[0][0]),
                float(min(y for _, y, _, _ in run)),
                float(run[-1][0] + run[-1][2]),
                float(max(y + h for _, y, _, h in run)),
                pitch,
            )
        )
    return mask, tuple(combs)


def _comb_runs(walls: list[tuple[int, int, int, int]]) -> list[list[tuple[int, int, int, int]]]:
    """Walls grouped into combs: same top and bottom (within a sixth of their height), each
    the next at a pitch of 0.4–1.4 heights and within a fifth of the run's first pitch."""
    runs: list[list[tuple[int, int, int, int]]] = []
    for wall in sorted(walls):
        x, y, _w, h = wall
        for run in runs:
            lx, ly, _lw, lh = run[-1]
            same_line = abs(ly - y) <= lh / 6 and abs((ly + lh) - (y + h)) <= lh / 6
            step = x - lx
            first = run[1][0] - run[0][0] if len(run) > 1 else step
            if same_line and 0.4 * lh <= step <= 1.4 * lh and abs(step - first) <= first / 5:
                run.append(wall)
                break
        else:
            runs.append([wall])
    return [run for run in runs if len(run) >= 3]


_GLYPH = (0.005, 0.02)
"""A printed digit's height as a share of the page's height: 1.5–6 mm on A4."""


def _spaced_figures(cleaned: Any, combs: tuple[Comb, ...]) -> tuple[Comb, ...]:
    """Figures tax software prints on a blank without its combs: the digits spaced a cell
    apart («2 5 1 8») at a regular pitch, which OCR reads as poorly as a comb's («1 2 4 0» as
    220, «8 5» as 8.5). Each run of digit-sized glyphs of one height on one line,
    each the next at the same pitch (within an eighth, 1.1–2.5 glyph heights) with paper of
    0.6 glyph heights or more between them and nothing else printed there, is returned as a comb without walls (a cell centred on each glyph), so it is
    joined and read again side by side as a comb is (three glyphs or more: two spaced
    digits, «8 5», stay as OCR reads them).
    Brackets (taller than the digits) and
    glyphs inside a drawn comb are not part of a run; text is set too tight to make one."""
    import cv2
    import numpy as np

    height = cleaned.shape[0]
    ink = _binary(cleaned)
    count, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    low, high = (height * share for share in _GLYPH)
    marks = sorted(
        (int(x), int(y), int(w), int(h))
        for x, y, w, h, _area in (stats[i] for i in range(1, count))
        if h >= low / 3  # anything printed on a line but specks (a decimal point included)
    )
    boxes = np.array(marks, dtype=np.int64).reshape(-1, 4)
    ys, rights, bottoms = boxes[:, 1], boxes[:, 0] + boxes[:, 2], boxes[:, 1] + boxes[:, 3]
    runs: list[list[tuple[int, int, int, int]]] = []
    ends: dict[tuple[int, int, int, int], int] = {}  # a run's last glyph → the run
    for glyph in marks:
        x, y, w, h = glyph
        if not (low <= h <= high and w <= h) or any(
            c.x0 <= x + w / 2 <= c.x1 and c.top <= y + h / 2 <= c.bottom for c in combs
        ):
            continue
        beside = (rights <= x + 1) & (ys < y + h) & (bottoms > y)
        # what is printed next on its left: a run goes on only from its own last glyph
        left = marks[int(np.argmax(np.where(beside, rights, -1)))] if beside.any() else None
        at = ends.pop(left, None) if left is not None else None
        if at is not None and _next_in_run(runs[at], glyph):
            runs[at].append(glyph)
        else:
            at = len(runs)
            runs.append([glyph])
        ends[glyph] = at
    out: list[Comb] = []
    for run in runs:
        if len(run) < 3:
            continue  # two glyphs a little apart are as often text as a figure
        centres = [x + w / 2 for x, _, w, _ in run]
        pitch = (centres[-1] - centres[0]) / (len(run) - 1)
        top = min(y for _, y, _, _ in run)
        bottom = max(y + h for _, y, _, h in run)
        margin = (bottom - top) * 0.3
        out.append(
            Comb(
                centres[0] - pitch / 2,
                top - margin,
                centres[-1] + pitch / 2,
                bottom + margin,
                pitch,
            )
        )
    return tuple(out)


def _next_in_run(run: list[tuple[int, int, int, int]], glyph: tuple[int, int, int, int]) -> bool:
    """The glyph goes on the run of spaced figures: on its line, of its height, at its pitch
    (within an eighth, 1.1–2.5 heights) with paper of 0.6 heights or more before it."""
    x, y, w, h = glyph
    lx, ly, lw, lh = run[-1]
    step = (x + w / 2) - (lx + lw / 2)
    first = (run[1][0] + run[1][2] / 2) - (run[0][0] + run[0][2] / 2) if len(run) > 1 else step
    return (
        abs(ly - y) <= lh / 6
        and abs(lh - h) <= lh / 6
        and x - (lx + lw) >= 0.6 * lh  # text's letters, and figures, are set far tighter
        and 1.1 * lh <= step <= 2.5 * lh
        and abs(step - first) <= first / 8
    )


def _closed_cells(
    run: list[tuple[int, int, int, int]], horizontal: Any
) -> list[list[tuple[int, int, int, int]]]:
    """A run of walls split where two neighbours close no cell: the top or the bottom stroke
    does not run from one to the other (two combs side by side, a bracket's gap between them,
    are two figures however like a cell the gap is); parts of fewer than three walls go."""
    parts: list[list[tuple[int, int, int, int]]] = [[run[0]]]
    for left, right in pairwise(run):
        x0, x1 = left[0] + left[2], right[0]
        reach = max(left[3] // 12, 3)
        closed = x1 <= x0 or all(
            float(horizontal[max(y - reach, 0) : y + reach, x0:x1].any(axis=0).mean()) >= 0.8
            for y in (min(left[1], right[1]), max(left[1] + left[3], right[1] + right[3]))
        )
        if closed:
            parts[-1].append(right)
        else:
            parts.append([right])
    return [part for part in parts if len(part) >= 3]


def _strokes(ink: Any, run: tuple[int, int]) -> Any:
    """Solid strokes at least `run` long (a rule is longer than any glyph: 1/30 of the width,
    1/45 of the height, two text lines). Dotted rules are not closed into solid ones — that
    glues the «1»s of stacked codes into a «rule» — their dots go with the specks instead."""
    import cv2

    return cv2.morphologyEx(ink, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, run))


def _specks(ink: Any) -> Any:
    """Specks far smaller than a full stop: the dots of dotted rules and scanner dust."""
    import cv2
    import numpy as np

    _, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    limit = (max(ink.shape) / 1100) ** 2 * 3  # ≈ 27 px² at 300 dpi; a full stop is ≈ 60
    small = stats[:, cv2.CC_STAT_AREA] <= limit
    small[0] = False
    # a uint8 value per label, looked up for every pixel: no page-sized int64 array between
    return np.where(small, 255, 0).astype(np.uint8)[labels]
