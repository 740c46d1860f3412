"""The evidence of scan values: the local recogniser keeps each cell's box on the page, the
gateway stores them beside the result (`results/{file_id}/{job_id}/evidence.json`), and a crop
of the page around a value's box, OCR'd on its own, shows that value's digits — for a text-layer
PDF, for a small raster page that was upscaled before OCR, and for a tilted scan.
Boxes a scanning system's item gives are read and checked like any other field."""

from __future__ import annotations

import dataclasses
import io
import json
import re
import shutil
from typing import Any

import pytest

from services.arm_core.jobs.evidence import (
    EVIDENCE_DPI,
    crop_around,
    page_dpi_scale,
    placement_in,
)
from services.runtime.recognizer import Job
from services.runtime.storage import S3Storage
from services.scan_gateway.evidence import evidence_key
from services.scan_gateway.exceptions import ItemInvalid
from services.scan_gateway.raw import RawArchive
from services.scan_gateway.recognizer import LocalSource, ScanGatewayRecognizer
from services.scan_gateway.resultset import parse_item

from ._forms import BALANCE, expected_amount, font_path, render_pdf, render_png
from ._resultsets import encode, minimal_balance_item
from ._support import GatedSource
from .test_local import InlineRunner, make_job

pytestmark = pytest.mark.skipif(font_path() is None, reason="no DejaVuSans font to render with")
needs_tesseract = pytest.mark.skipif(shutil.which("tesseract") is None, reason="no tesseract")


async def _recognised(data: bytes, file_type: str, s3: S3Storage, bucket: str) -> tuple[Job, Any]:
    """Recognise `data` with the archive on the test's S3; the documents and the evidence."""
    job = dataclasses.replace(make_job(file_type), bucket=bucket)
    recognizer = ScanGatewayRecognizer(LocalSource(InlineRunner()), archive=RawArchive(s3))
    recognition = await recognizer.recognize(data, job)
    evidence = json.loads(await s3.get_bytes(bucket, evidence_key(job), 16 * 1024 * 1024))
    return job, (recognition, evidence)


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


def _ocr_digits(png: bytes) -> str:
    """What Tesseract reads in a crop on its own, digits only."""
    import pytesseract
    from PIL import Image

    image = Image.open(io.BytesIO(png))
    return _digits(pytesseract.image_to_string(image, lang="rus", config="--psm 6"))


def _page_image(data: bytes, file_type: str) -> Any:
    """The page as arm-core crops it: a PDF page at the evidence dpi, an image brought to it."""
    from PIL import Image

    if file_type == "PDF":
        import pypdfium2

        document = pypdfium2.PdfDocument(data)
        try:
            return document[0].render(scale=EVIDENCE_DPI / 72).to_pil()
        finally:
            document.close()
    return page_dpi_scale(Image.open(io.BytesIO(data)), EVIDENCE_DPI)


def _checked_crops(
    data: bytes, file_type: str, document: dict[str, Any], evidence: dict[str, Any]
) -> tuple[int, list[str]]:
    """OCR every crop of a value read right; (how many were checked, those that failed)."""
    page = _page_image(data, file_type)
    printed = {code: (current, previous) for _name, code, current, previous in BALANCE.lines}
    columns = sorted(c["column_index"] for c in document["columns"])
    checked, failed = 0, []
    for line in document["lines"]:
        if line["line_code"] not in printed:
            continue
        for value in line["values"]:
            text = printed[line["line_code"]][columns.index(value["column_index"])]
            if value["amount"] != expected_amount(text):
                continue  # a misread value: its crop shows the print, not the reading
            placement = placement_in(evidence["lines"], line["ref"], value["column_index"])
            assert placement is not None, (line["ref"], value["column_index"])
            assert placement.page == 1 and placement.line_box is not None
            png, _box = crop_around(page, placement)
            checked += 1
            if _digits(text) not in _ocr_digits(png):
                failed.append(f"{line['line_code']}/{value['column_index']}: {text}")
    return checked, failed


@needs_tesseract
@pytest.mark.parametrize("crop", [None, (30.0, 25.0, 800.0, 560.0)], ids=["page", "cropbox"])
async def test_text_pdf_values_have_boxes_whose_crops_show_their_digits(
    s3: S3Storage, bucket: str, crop: tuple[float, float, float, float] | None
) -> None:
    """A text-layer PDF, its CropBox the page or smaller (a renderer shows the crop box only):
    every value of the balance has a box, and each crop shows its digits."""
    pdf = render_pdf((BALANCE,), crop)
    _job, (recognition, evidence) = await _recognised(pdf, "PDF", s3, bucket)
    assert evidence["format"] == "scan-evidence/1"
    document = recognition.documents[0]
    checked, failed = _checked_crops(pdf, "PDF", document, evidence)
    assert checked == 2 * len(BALANCE.lines)
    assert failed == []


@needs_tesseract
@pytest.mark.slow
@pytest.mark.parametrize("tilt", [0.0, 1.5], ids=["upright", "tilted"])
async def test_raster_page_boxes_undo_the_preparation(
    s3: S3Storage, bucket: str, tilt: float
) -> None:
    """A 150-dpi PNG (upscaled before OCR), upright or tilted 1.5° (deskewed before OCR): the
    boxes are on the page as uploaded, and each crop of a value read right shows its digits."""
    from PIL import Image

    png = render_png(render_pdf((BALANCE,)), 0, dpi=150)
    if tilt:
        image = Image.open(io.BytesIO(png)).rotate(tilt, expand=False, fillcolor=255)
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        png = buffer.getvalue()
    _job, (recognition, evidence) = await _recognised(png, "PNG", s3, bucket)
    checked, failed = _checked_crops(png, "PNG", recognition.documents[0], evidence)
    assert checked >= len(BALANCE.lines)  # most values read right, each one checked
    assert failed == []


def _item(box: object) -> bytes:
    cell: dict[str, Any] = {"column": 2, "text": "1 180", "confidence": 97, "box": box}
    row = {"index": 1, "cells": [cell], "box": [0.1, 0.2, 0.9, 0.25]}
    table = {"index": 0, "columns": [], "rows": [row]}
    return json.dumps({"page": 1, "tables": [table]}).encode()


def test_a_scanning_system_box_is_read() -> None:
    """A cell's and a row's `box` (page fractions) are kept from the scanning system's item."""
    item = parse_item("page-1.json", _item([0.5, 0.2, 0.6, 0.24]))
    row = item.tables[0].rows[0]
    assert row.box == (0.1, 0.2, 0.9, 0.25)
    assert row.cells[0].box == (0.5, 0.2, 0.6, 0.24)


@pytest.mark.parametrize(
    "box", [[0.5, 0.2, 0.6], [0.6, 0.2, 0.5, 0.24], [0.5, 0.2, 1.6, 0.24], ["a", 0, 0, 0], {}]
)
def test_a_box_off_shape_fails_the_item(box: object) -> None:
    """Three numbers, x0 > x1, beyond the page, not numbers: the item is JSON_FAILED."""
    with pytest.raises(ItemInvalid):
        parse_item("page-1.json", _item(box))


async def test_a_scanning_system_s_boxes_become_the_evidence(s3: S3Storage, bucket: str) -> None:
    """Items of the scanning system with boxes on some cells: the evidence lists exactly those
    values, under the refs of the document's lines; items without boxes write no evidence."""
    from services.runtime.storage import ObjectNotFound

    page = minimal_balance_item()
    rows = page["tables"][0]["rows"]
    boxed = rows[0]
    for n, cell in enumerate(boxed["cells"]):
        cell["box"] = [0.1 + 0.15 * n, 0.30, 0.2 + 0.15 * n, 0.32]
    boxed["box"] = [0.05, 0.29, 0.95, 0.33]
    job = dataclasses.replace(make_job("PDF"), bucket=bucket)
    source = GatedSource({"page-1.json": encode(page)})
    recognition = await ScanGatewayRecognizer(source, archive=RawArchive(s3)).recognize(b"%", job)
    evidence = json.loads(await s3.get_bytes(bucket, evidence_key(job), 1 << 20))
    ref = f"p1:t0:r{boxed['index']}"
    line = next(ln for ln in recognition.documents[0]["lines"] if ln["ref"] == ref)
    assert set(evidence["lines"]) == {ref}
    assert evidence["lines"][ref]["box"] == pytest.approx(boxed["box"])
    assert set(evidence["lines"][ref]["values"]) == {str(v["column_index"]) for v in line["values"]}
    for value in line["values"]:
        cell = next(c for c in boxed["cells"] if c["column"] == value["column_index"])
        assert evidence["lines"][ref]["values"][str(value["column_index"])] == pytest.approx(
            cell["box"]
        )

    plain = dataclasses.replace(make_job("PDF"), bucket=bucket)
    source = GatedSource({"page-1.json": encode(minimal_balance_item())})
    await ScanGatewayRecognizer(source, archive=RawArchive(s3)).recognize(b"%", plain)
    with pytest.raises(ObjectNotFound):
        await s3.get_bytes(bucket, evidence_key(plain), 1 << 20)
