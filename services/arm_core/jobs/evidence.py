"""The evidence of a scan value: where it prints, and the page cropped around it.

scan-gateway writes, beside a job's result file, `results/{file_id}/{job_id}/evidence.json`
(`services/scan_gateway/evidence.py`: a line's `ref` → its page, the row's box and each value's
box, in fractions of the page). Here it is read (bounded, cached per job) and a value's page is
rendered at ≥ 200 dpi and cut around the value's box with a margin, so the analyst sees the
printed digits large. The page is rendered in a sandboxed worker (`FileReads.page_png`, the
source view's rendering at another scale); only the cut is done here. Nothing here knows
HTTP: a value with no position raises `NoEvidence`, a storage failure `Unavailable`, a page the
workers cannot draw their refusals (`FileOverLimits`, `FilesBusy`, …).
"""

from __future__ import annotations

import asyncio
import io
import json
import math
import uuid
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from PIL import Image

from services.arm_core.db.models import StoredFile
from services.arm_core.exceptions import NoEvidence, Unavailable
from services.arm_core.jobs.uploads import UploadService
from services.runtime.storage import ObjectNotFound, S3Storage, StorageError

__all__ = [
    "EVIDENCE_DPI",
    "EvidenceCrop",
    "EvidenceService",
    "Placement",
    "crop_around",
    "evidence_key",
    "page_dpi_scale",
    "placement_in",
]

EVIDENCE_DPI = 216  # three times PDF's 72 points: ≥ 200 dpi, digits ~20 px high
_A4_LONG_INCHES = 11.69
_MAX_EVIDENCE_BYTES = 16 * 1024 * 1024
_KEPT_EVIDENCE = 32
_KEPT_PAGES = 2
_RENDERS = 2
_MARGIN = 0.25  # of the value's text height, on every side

Box = tuple[float, float, float, float]


def evidence_key(file_id: uuid.UUID, job_id: uuid.UUID) -> str:
    """The evidence file of a job: beside its result file (the contract's results layout)."""
    return f"results/{file_id}/{job_id}/evidence.json"


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a value prints: its page (1-based), its box and its line's box (page fractions)."""

    page: int
    box: Box
    line_box: Box | None


@dataclass(frozen=True, slots=True)
class EvidenceCrop:
    """The PNG of the page around a value; `box` is the value's box and `page_size` the page's
    (width, height), both in the pixels of the page rendered at `dpi`."""

    png: bytes
    page: int
    box: tuple[int, int, int, int]
    page_size: tuple[int, int]
    placement: Placement


def _box(value: object) -> Box | None:
    if not isinstance(value, list) or len(value) != 4:
        return None
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value):
        return None
    x0, y0, x1, y1 = (float(v) for v in value)
    if not all(math.isfinite(v) and 0.0 <= v <= 1.0 for v in (x0, y0, x1, y1)):
        return None
    return (x0, y0, x1, y1) if x0 < x1 and y0 < y1 else None


def _lines(data: bytes) -> Mapping[str, Any]:
    """The `lines` of an evidence file; a file that is not one gives none (no position)."""
    try:
        document = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return {}
    lines = document.get("lines") if isinstance(document, dict) else None
    return lines if isinstance(lines, dict) else {}


def placement_in(lines: Mapping[str, Any], ref: str, column_index: int) -> Placement | None:
    """The placement of value `column_index` of line `ref`, None when the file gives none."""
    line = lines.get(ref)
    if not isinstance(line, dict):
        return None
    page, values = line.get("page"), line.get("values")
    if isinstance(page, bool) or not isinstance(page, int) or page < 1:
        return None
    box = _box(values.get(str(column_index))) if isinstance(values, dict) else None
    if box is None:
        return None
    return Placement(page, box, _box(line.get("box")))


def page_dpi_scale(image: Image.Image, dpi: float) -> Image.Image:
    """An uploaded image brought to `dpi` as if it were an A4 page (a 100-dpi scan upscaled);
    a rendered PDF page is at `dpi` already and comes back as it is."""
    long_side = max(image.size)
    wanted = dpi * _A4_LONG_INCHES
    if long_side >= wanted * 0.98:
        return image
    factor = wanted / long_side
    size = (round(image.width * factor), round(image.height * factor))
    return image.resize(size, Image.Resampling.LANCZOS)


def crop_around(
    image: Image.Image, placement: Placement
) -> tuple[bytes, tuple[int, int, int, int]]:
    """The value's cell plus a margin of a quarter of its text line's height as PNG, and the
    value's box in the page's pixels. The margin is kept narrow on purpose: a ruled table's
    rules sit close to the figures, and a crop that takes them in reads as «|» and bars to a
    second OCR (on the shared real scans a half-line margin left a third of the crops
    unreadable to Tesseract, a quarter none that were read right)."""
    width, height = image.size
    x0, y0, x1, y1 = placement.box
    box = (
        math.floor(x0 * width),
        math.floor(y0 * height),
        math.ceil(x1 * width),
        math.ceil(y1 * height),
    )
    margin = max(round((box[3] - box[1]) * _MARGIN), 3)
    area = (
        max(box[0] - margin, 0),
        max(box[1] - margin, 0),
        min(box[2] + margin, width),
        min(box[3] + margin, height),
    )
    buffer = io.BytesIO()
    image.crop(area).convert("RGB").save(buffer, format="PNG")
    return buffer.getvalue(), box


class EvidenceService:
    """Reads evidence files and renders crops of pages, for the API and the pages alike."""

    def __init__(
        self,
        storage: S3Storage,
        uploads: UploadService,
        *,
        results_bucket: str | None = None,
        dpi: int = EVIDENCE_DPI,
    ) -> None:
        self._storage = storage
        self._uploads = uploads
        self._results_bucket = results_bucket
        self.dpi = dpi
        self._evidence: OrderedDict[tuple[uuid.UUID, uuid.UUID], Mapping[str, Any]] = OrderedDict()
        self._pages: OrderedDict[tuple[uuid.UUID, int], Image.Image | None] = OrderedDict()
        self._renders = asyncio.Semaphore(_RENDERS)

    async def placement(
        self, stored: StoredFile, job_id: uuid.UUID, ref: str, column_index: int
    ) -> Placement | None:
        """Where value `column_index` of line `ref` prints, None when nothing says."""
        return placement_in(await self._lines(stored, job_id), ref, column_index)

    async def crop(
        self, stored: StoredFile, job_id: uuid.UUID, ref: str, column_index: int
    ) -> EvidenceCrop:
        """The page around the value; `NoEvidence` when it has no position."""
        placement = await self.placement(stored, job_id, ref, column_index)
        if placement is None:
            msg = f"the value {ref} / column {column_index} has no recorded position on a page"
            raise NoEvidence(msg)
        image = await self._page(stored, placement.page)
        if image is None:
            msg = f"the file has no page {placement.page}"
            raise NoEvidence(msg)
        png, box = await asyncio.to_thread(crop_around, image, placement)
        return EvidenceCrop(png, placement.page, box, image.size, placement)

    async def _lines(self, stored: StoredFile, job_id: uuid.UUID) -> Mapping[str, Any]:
        key = (stored.id, job_id)
        if key in self._evidence:
            self._evidence.move_to_end(key)
            return self._evidence[key]
        bucket = self._results_bucket or stored.s3_bucket
        try:
            data = await self._storage.get_bytes(
                bucket, evidence_key(stored.id, job_id), _MAX_EVIDENCE_BYTES
            )
        except ObjectNotFound:
            data = b"{}"
        except StorageError as exc:
            msg = "the evidence of the document cannot be read now"
            raise Unavailable(msg) from exc
        lines = _lines(data)
        self._evidence[key] = lines
        while len(self._evidence) > _KEPT_EVIDENCE:
            self._evidence.popitem(last=False)
        return lines

    async def _page(self, stored: StoredFile, page: int) -> Image.Image | None:
        key = (stored.id, page)
        if key in self._pages:
            self._pages.move_to_end(key)
            return self._pages[key]
        async with self._renders:
            try:
                data = await self._uploads.read(stored)
            except StorageError as exc:
                msg = "the uploaded file cannot be read now"
                raise Unavailable(msg) from exc
            png = await self._uploads.file_reads.page_png(
                data, stored.file_type, page, scale=self.dpi / 72
            )
            image = await asyncio.to_thread(self._decoded, png, stored.file_type)
        self._pages[key] = image
        while len(self._pages) > _KEPT_PAGES:
            self._pages.popitem(last=False)
        return image

    def _decoded(self, png: bytes | None, file_type: str) -> Image.Image | None:
        """The worker's PNG (its pixels capped there) as an image; an image upload brought to
        the evidence dpi."""
        if png is None:
            return None
        image = Image.open(io.BytesIO(png))
        image.load()
        return image if file_type == "PDF" else page_dpi_scale(image, self.dpi)
