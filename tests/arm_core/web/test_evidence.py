"""The evidence of a scan value over the API and on the value panel: a balance printed in code
(a text-layer PDF, and the same page as a 150-dpi PNG) is recognised by scan-gateway's local
recogniser, which stores the evidence beside the result; every value's crop, OCR'd on its own,
shows that value's digits, at ≥ 200 dpi, with its page and box in the headers. A value with no
position, an Excel document and a result without evidence answer 404 `no-evidence`; the panel
shows the crop and the page with the box, and never the line's internal ref."""

from __future__ import annotations

import io
import re
import shutil
import uuid
from typing import Any

import httpx
import PIL.Image
import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.app import CoreApp
from services.runtime.storage import S3Storage
from tests.arm_core.web._recognition import (
    Recognised,
    deliver_result,
    upload_and_recognize_scan,
    upload_taken,
)
from tests.scan_gateway._forms import BALANCE, font_path, render_pdf, render_png
from tests.support.core import example, for_job

pytestmark = [
    pytest.mark.skipif(font_path() is None, reason="no DejaVuSans font to render with"),
    pytest.mark.skipif(shutil.which("tesseract") is None, reason="no tesseract"),
]

_NO_EVIDENCE = "urn:arm-ka:problem:no-evidence"


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


def _ocr_digits(png: bytes) -> str:
    import pytesseract

    with PIL.Image.open(io.BytesIO(png)) as image:
        return _digits(pytesseract.image_to_string(image, lang="rus", config="--psm 6"))


async def _values(client: httpx.AsyncClient, document_id: uuid.UUID) -> list[tuple[int, Any]]:
    """(line position, line) of the document's lines that carry values."""
    body = (await client.get(f"/api/v1/documents/{document_id}")).json()
    return [(i, line) for i, line in enumerate(body["lines"]) if line["values"]]


def _url(document_id: uuid.UUID, ref: str, column: int) -> str:
    return f"/api/v1/documents/{document_id}/evidence?ref={ref}&column_index={column}"


@pytest.fixture
async def scan(
    app: CoreApp,
    client: httpx.AsyncClient,
    sessions: async_sessionmaker[AsyncSession],
    storage: S3Storage,
) -> Recognised:
    """The balance as a text-layer PDF, recognised with its evidence."""
    pdf = render_pdf((BALANCE,))
    return await upload_and_recognize_scan(app, client, sessions, storage, "balance.pdf", pdf)


async def test_every_value_crop_shows_its_digits_at_200_dpi(
    client: httpx.AsyncClient, scan: Recognised
) -> None:
    """Each value's crop is a PNG of its cell plus a margin, cut from page 1 rendered at
    ≥ 200 dpi (the page size says so), the box inside the page; OCR'd alone it shows the
    value's digits."""
    printed = {code: (current, previous) for _n, code, current, previous in BALANCE.lines}
    lines = await _values(client, scan.document_id)
    assert len(lines) == len(BALANCE.lines)
    failed = []
    for _i, line in lines:
        for position, value in enumerate(line["values"]):
            response = await client.get(_url(scan.document_id, line["ref"], value["column_index"]))
            assert response.status_code == 200, response.text
            assert response.headers["content-type"] == "image/png"
            assert response.headers["x-evidence-page"] == "1"
            width, height = (int(v) for v in response.headers["x-evidence-page-size"].split(","))
            assert max(width, height) >= 842 * 200 / 72  # landscape A4 at ≥ 200 dpi
            x0, y0, x1, y1 = (int(v) for v in response.headers["x-evidence-box"].split(","))
            assert 0 <= x0 < x1 <= width and 0 <= y0 < y1 <= height
            with PIL.Image.open(io.BytesIO(response.content)) as crop:
                assert crop.width > x1 - x0 and crop.height > y1 - y0  # the cell plus a margin
                assert crop.height < height / 10  # a crop, not the page
            text = printed[line["line_code"]][position]
            if _digits(text) not in _ocr_digits(response.content):
                failed.append(f"{line['line_code']}: {text}")
    assert failed == []


async def test_a_raster_page_is_cropped_at_200_dpi_equivalent(
    app: CoreApp,
    client: httpx.AsyncClient,
    sessions: async_sessionmaker[AsyncSession],
    storage: S3Storage,
) -> None:
    """A 150-dpi PNG: the page is brought to ≥ 200 dpi before cropping, and the crop of a value
    read right shows its digits."""
    png = render_png(render_pdf((BALANCE,)), 0, dpi=150)
    scan = await upload_and_recognize_scan(app, client, sessions, storage, "balance.png", png)
    _i, line = next(
        (i, ln) for i, ln in await _values(client, scan.document_id) if ln["line_code"] == "1600"
    )
    value = line["values"][0]
    assert value["amount"] == "12790"
    response = await client.get(_url(scan.document_id, line["ref"], value["column_index"]))
    assert response.status_code == 200
    width, height = (int(v) for v in response.headers["x-evidence-page-size"].split(","))
    assert max(width, height) >= 11.69 * 200 * 0.98
    assert "12790" in _ocr_digits(response.content)


async def test_a_value_with_no_position_is_404_no_evidence(
    client: httpx.AsyncClient, scan: Recognised, income: Recognised
) -> None:
    """No such line, a column with no value, an Excel document: 404 `no-evidence`; no such
    document: 404 `not-found`; a bad query: 422."""
    _i, line = (await _values(client, scan.document_id))[0]
    for url in (
        _url(scan.document_id, "p9:t0:r1", 0),
        _url(scan.document_id, line["ref"], 99),
    ):
        response = await client.get(url)
        assert response.status_code == 404
        assert response.headers["content-type"] == "application/problem+json"
        assert response.json()["type"] == _NO_EVIDENCE
    _j, excel_line = (await _values(client, income.document_id))[0]
    column = excel_line["values"][0]["column_index"]
    excel = await client.get(_url(income.document_id, excel_line["ref"], column))
    assert excel.status_code == 404 and excel.json()["type"] == _NO_EVIDENCE
    missing = await client.get(_url(uuid.uuid4(), line["ref"], 0))
    assert missing.json()["type"] == "urn:arm-ka:problem:not-found"
    bad = await client.get(f"/api/v1/documents/{scan.document_id}/evidence?ref=x")
    assert bad.status_code == 422


async def test_a_result_without_evidence_is_404_and_the_panel_shows_the_page(
    app: CoreApp,
    client: httpx.AsyncClient,
    sessions: async_sessionmaker[AsyncSession],
    sample_files: dict[str, bytes],
) -> None:
    """A scan result stored with no evidence file: its values answer 404 `no-evidence`, and the
    panel falls back to the whole page, saying the place is not recorded."""
    stored, job = await upload_taken(client, sessions, "scan.pdf", sample_files["PDF"])
    result = for_job(example("result-statement-minimal.json"), job)
    scan = await deliver_result(app, client, stored, job, result)
    line_at, line = (await _values(client, scan.document_id))[0]
    column = line["values"][0]["column_index"]
    response = await client.get(_url(scan.document_id, line["ref"], column))
    assert response.status_code == 404 and response.json()["type"] == _NO_EVIDENCE
    panel = (await client.get(f"{scan.page}/cell?line={line_at}&column={column}")).text
    assert "Место значения на странице не записано" in panel
    assert line["ref"] not in panel


async def test_the_panel_shows_the_crop_and_the_page_with_the_box_never_the_ref(
    client: httpx.AsyncClient, scan: Recognised
) -> None:
    """The value panel: the crop from the API, the page with the value's box over it (its
    place in percent of the page), zoom buttons and the panel's own script; no internal ref."""
    line_at, line = (await _values(client, scan.document_id))[3]
    column = line["values"][0]["column_index"]
    response = await client.get(f"{scan.page}/cell?line={line_at}&column={column}")
    assert response.status_code == 200
    panel = response.text
    crop_url = f"/api/v1/documents/{scan.document_id}/evidence?ref="
    assert f'id="evidence-crop" src="{crop_url}' in panel.replace("&amp;", "&")
    assert f'src="/ui/files/{scan.file_id}/pages/1.png"' in panel
    assert f'data-sharp="/ui/files/{scan.file_id}/pages/1.png?sharp=true"' in panel
    box = re.search(r'<rect id="evidence-box" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)"', panel)
    assert box is not None and 0 < float(box.group(3)) < 50
    assert 'data-zoom="in"' in panel and 'src="/ui/static/evidence.js"' in panel
    assert line["ref"] not in panel and "p1:t0" not in panel
    script = await client.get("/ui/static/evidence.js")
    assert script.status_code == 200


async def test_the_zoomed_page_is_rendered_at_200_dpi_or_more(
    client: httpx.AsyncClient, scan: Recognised
) -> None:
    """The page view is drawn at the screen's 108 dpi; its sharp rendering (what the panel
    swaps in when the page is zoomed) is ≥ 200 dpi of the PDF page, so a value's digits read
    off the enlarged page, here OCR'd from it where the value's box says."""
    import pypdfium2

    document = pypdfium2.PdfDocument(render_pdf((BALANCE,)))
    try:
        points_wide = document[0].get_width()
    finally:
        document.close()
    url = f"/ui/files/{scan.file_id}/pages/1.png"
    screen, sharp = await client.get(url), await client.get(url, params={"sharp": "true"})
    assert screen.status_code == sharp.status_code == 200
    with PIL.Image.open(io.BytesIO(screen.content)) as image:
        assert image.width < points_wide / 72 * 200  # the screen's page alone is not enough
    with PIL.Image.open(io.BytesIO(sharp.content)) as image:
        assert image.width >= points_wide / 72 * 200
        _, line = (await _values(client, scan.document_id))[3]
        value = line["values"][0]
        crop = await client.get(_url(scan.document_id, line["ref"], value["column_index"]))
        x0, y0, x1, y1 = (int(v) for v in crop.headers["x-evidence-box"].split(","))
        assert crop.headers["x-evidence-page-size"] == f"{image.width},{image.height}"
        margin = (y1 - y0) // 4
        cut = io.BytesIO()
        image.crop((x0 - margin, y0 - margin, x1 + margin, y1 + margin)).save(cut, "PNG")
    assert _digits(value["amount"] or "") in _ocr_digits(cut.getvalue())
