"""TIFF scans at upload: made, losslessly, into the PDF the contract knows; the original kept.

The TIFFs are built in code (Pillow); the PDF is read back by pdfplumber (pdfminer), an
independent reader, and rendered by pdfium as the scan-gateway does.
"""

from __future__ import annotations

import io
import uuid
from typing import Any
from urllib.parse import unquote

import httpx
import pdfplumber
import pypdfium2
import pytest
from PIL import Image
from sqlalchemy import update

from services.arm_core.db import JobStatus, RecognitionJob, StoredFile
from services.arm_core.exceptions import (
    FileTooLarge,
    FileTypeMismatch,
    UnsupportedFileContent,
    UploadRejected,
)
from services.arm_core.jobs.file_reads import FileReads
from services.arm_core.settings import CoreSettings
from services.contract.filetypes import sniff
from services.documents_io.tiff import tiff_to_pdf
from services.runtime.storage import S3Storage


def _pages() -> list[Image.Image]:
    """Pages of the kinds scanners write: bilevel, grey, colour, and 16-bit grey."""
    bilevel = Image.new("1", (203, 97), 1)
    for x in range(0, 203, 3):
        bilevel.putpixel((x, x % 97), 0)
    grey = Image.linear_gradient("L").resize((256, 130))
    colour = Image.merge(
        "RGB",
        [grey.rotate(90).resize((64, 48)), grey.resize((64, 48)), Image.new("L", (64, 48), 7)],
    )
    deep = Image.new("I;16", (40, 30))
    deep.putdata([(i * 997) % 65536 for i in range(40 * 30)])
    return [bilevel, grey, colour, deep]


def _tiff(pages: list[Image.Image], **options: Any) -> bytes:
    out = io.BytesIO()
    pages[0].save(out, "TIFF", save_all=True, append_images=pages[1:], **options)
    return out.getvalue()


def _raw(page: Image.Image) -> bytes:
    return page.tobytes("raw", "I;16B") if page.mode == "I;16" else page.tobytes()


@pytest.mark.parametrize("compression", ["raw", "tiff_lzw", "tiff_adobe_deflate"])
def test_every_page_keeps_every_pixel(compression: str) -> None:
    """A multi-page TIFF (bilevel, grey, colour, 16-bit) becomes a PDF with one page per TIFF
    page, in order, each image stream decoding to exactly the TIFF page's pixels, and each page
    sized by the TIFF's resolution (200 dpi: 200 pixels are 72 pt)."""
    pages = _pages()
    pdf = tiff_to_pdf(_tiff(pages, compression=compression, dpi=(200, 200)))
    assert sniff(pdf) == "PDF"
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        assert len(document.pages) == len(pages)
        for page, original in zip(document.pages, pages, strict=True):
            (image,) = page.images
            assert image["srcsize"] == original.size
            assert image["stream"].get_data() == _raw(original)
            assert page.width == pytest.approx(original.width * 72 / 200, abs=0.01)
            assert page.height == pytest.approx(original.height * 72 / 200, abs=0.01)


def test_a_single_page_group4_scan_renders_as_it_was() -> None:
    """A one-page CCITT G4 scan (the usual office-scanner output) renders through pdfium, as
    the scan-gateway renders a page, to the same black and white pixels."""
    page = Image.new("1", (300, 150), 1)  # whole points at 300 dpi: no rounding in the render
    for x in range(0, 300, 4):
        page.putpixel((x, x % 150), 0)
        page.putpixel((x, 149 - x % 150), 0)
    pdf = tiff_to_pdf(_tiff([page], compression="group4", dpi=(300, 300)))
    document = pypdfium2.PdfDocument(pdf)
    try:
        assert len(document) == 1
        rendered = document[0].render(scale=300 / 72).to_pil().convert("1")
    finally:
        document.close()
    assert rendered.size == page.size
    assert rendered.tobytes() == page.tobytes()


def test_palette_and_alpha_pages_keep_colours_and_transparency() -> None:
    """A palette page expands to its exact RGB colours; an RGBA page keeps its colours and
    its alpha channel as the image's soft mask."""
    palette = Image.new("P", (20, 10), 1)
    palette.putpalette([255, 0, 0, 0, 0, 255] + [0] * 762)
    palette.putpixel((3, 3), 0)
    rgba = Image.new("RGBA", (12, 8), (10, 20, 30, 255))
    rgba.putpixel((2, 5), (200, 100, 50, 0))
    rgba.putpixel((4, 1), (1, 2, 3, 128))
    pdf = tiff_to_pdf(_tiff([palette, rgba]))
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        (first,) = document.pages[0].images
        assert first["stream"].get_data() == palette.convert("RGB").tobytes()
        assert "SMask" not in first["stream"].attrs
        (second,) = document.pages[1].images
        assert second["stream"].get_data() == rgba.convert("RGB").tobytes()
        alpha = second["stream"]["SMask"].resolve().get_data()
    assert alpha == rgba.getchannel("A").tobytes()


@pytest.mark.parametrize(
    ("data", "refusal"),
    [
        (b"%PDF-1.4 not a tiff", FileTypeMismatch),  # 422 in the API
        (b"II*\x00" + b"\x00" * 40, UnsupportedFileContent),  # 415 in the API
    ],
)
async def test_what_is_no_readable_tiff_is_refused(
    data: bytes, refusal: type[UploadRejected]
) -> None:
    """A .tiff whose content is no TIFF is a type mismatch (422, as for any lying
    extension); a TIFF that cannot be read is unsupported content (415). The conversion runs
    in the core's sandboxed file reader, which turns its errors into these refusals."""
    reads = FileReads()
    try:
        with pytest.raises(UploadRejected) as info:
            await reads.tiff_to_pdf(data, 1 << 20)
    finally:
        await reads.close()
    assert type(info.value) is refusal


async def test_a_tiff_that_outgrows_the_limit_is_stopped_at_the_page_that_does() -> None:
    """A small TIFF of large pages (compressed well in the TIFF, not as raw Flate of noise)
    is refused with 413 once the PDF's pages pass the limit, not converted whole."""
    noise = Image.effect_noise((400, 400), 80).convert("L")
    tiff = _tiff([noise] * 6, compression="tiff_lzw")
    whole = tiff_to_pdf(tiff)
    reads = FileReads()
    try:
        with pytest.raises(UploadRejected) as info:
            await reads.tiff_to_pdf(tiff, len(whole) // 3)
        assert isinstance(info.value, FileTooLarge)  # 413 in the API
        assert await reads.tiff_to_pdf(tiff, len(whole)) == whole
    finally:
        await reads.close()


async def test_a_page_over_the_pixel_cap_is_refused_before_it_is_decoded() -> None:
    """A 60 KB group-4 TIFF whose second page has 121 million pixels (an A3 sheet at 600 dpi
    has 70): 413 naming that page, whatever CPU time or memory its decoding would take."""
    small = Image.new("1", (2480, 3508), 1)
    huge = Image.new("1", (11000, 11000), 1)
    tiff = _tiff([small, huge], compression="group4")
    assert len(tiff) < 100_000
    reads = FileReads()
    try:
        with pytest.raises(FileTooLarge) as info:
            await reads.tiff_to_pdf(tiff, 1 << 30)
    finally:
        await reads.close()
    assert "page 2 of the TIFF has 11000 × 11000 pixels" in info.value.detail


async def _keys(settings: CoreSettings) -> list[str]:
    async with S3Storage(settings.s3) as s3:
        resp = await s3.client.list_objects_v2(Bucket=settings.s3.s3_bucket)
        return sorted(item["Key"] for item in resp.get("Contents", []))


@pytest.mark.db
@pytest.mark.wire
@pytest.mark.parametrize("name", ["скан.tiff", "SCAN.TIF"])
async def test_upload_of_a_tiff_queues_the_pdf_and_keeps_the_original(
    client: httpx.AsyncClient, api_settings: CoreSettings, sessions: Any, name: str
) -> None:
    """POST /files with a multi-page TIFF: 201, the file is a PDF for the image pipeline (the
    contract's type), its stored source is the PDF, and the TIFF lies unchanged beside it."""
    tiff = _tiff(_pages(), compression="tiff_lzw")
    resp = await client.post("/api/v1/files", files={"file": (name, tiff, "image/tiff")})
    assert resp.status_code == 201, resp.text
    body = resp.json()
    assert (body["file_type"], body["original_name"]) == ("PDF", name)
    file_id = uuid.UUID(body["file_id"])
    async with sessions() as session:
        stored = await session.get(StoredFile, file_id)
        job = await session.get(RecognitionJob, uuid.UUID(body["job_id"]))
    assert stored is not None and job is not None
    assert (stored.file_type, stored.content_type, job.pipeline) == (
        "PDF",
        "application/pdf",
        "image",
    )
    assert await _keys(api_settings) == sorted(
        [f"uploads/{file_id}/source.pdf", f"uploads/{file_id}/original.tiff"]
    )
    async with S3Storage(api_settings.s3) as s3:
        pdf = await s3.get_bytes(api_settings.s3.s3_bucket, stored.s3_key, max_bytes=10**8)
        kept = await s3.get_bytes(
            api_settings.s3.s3_bucket, f"uploads/{file_id}/original.tiff", max_bytes=10**8
        )
    assert kept == tiff
    assert pdf == tiff_to_pdf(tiff)
    content = await client.get(f"/api/v1/files/{file_id}/content")
    assert content.content == pdf
    original = await client.get(f"/api/v1/files/{file_id}/original")
    assert original.content == tiff


def _attachment_name(response: httpx.Response) -> str:
    """The UTF-8 file name of a `Content-Disposition: attachment` (`filename*=UTF-8''…`)."""
    disposition = response.headers["content-disposition"]
    assert disposition.startswith("attachment; ")
    return unquote(disposition.rsplit("filename*=UTF-8''", 1)[1])


@pytest.mark.db
@pytest.mark.wire
async def test_a_tiff_scan_is_served_as_its_pdf_and_as_the_tiff_it_was(
    client: httpx.AsyncClient,
) -> None:
    """`content` of a TIFF scan is what the recognition read, named and typed so: the PDF as
    `скан.pdf`, application/pdf; `original` is the TIFF as sent, `скан.tiff`, image/tiff; the
    file's answer links both."""
    tiff = _tiff(_pages()[:2], compression="tiff_lzw")
    up = await client.post("/api/v1/files", files={"file": ("скан.tiff", tiff, "image/tiff")})
    assert up.status_code == 201, up.text
    file = (await client.get(up.headers["location"])).json()
    content = await client.get(file["content_url"])
    assert content.status_code == 200
    assert content.content == tiff_to_pdf(tiff)
    assert content.headers["content-type"] == "application/pdf"
    assert _attachment_name(content) == "скан.pdf"
    original = await client.get(file["original_url"])
    assert original.status_code == 200
    assert original.content == tiff
    assert original.headers["content-type"] == "image/tiff"
    assert _attachment_name(original) == "скан.tiff"


@pytest.mark.db
@pytest.mark.wire
async def test_the_original_of_a_file_stored_as_sent_is_its_content(
    client: httpx.AsyncClient, sample_files: dict[str, bytes]
) -> None:
    """A file that was not converted: `original` serves the same bytes, name and type as
    `content`; an unknown file is a 404 problem."""
    up = await client.post("/api/v1/files", files={"file": ("отчёт.pdf", sample_files["PDF"])})
    assert up.status_code == 201, up.text
    file_id = up.json()["file_id"]
    content = await client.get(f"/api/v1/files/{file_id}/content")
    original = await client.get(f"/api/v1/files/{file_id}/original")
    assert original.status_code == content.status_code == 200
    assert original.content == content.content == sample_files["PDF"]
    assert original.headers["content-type"] == content.headers["content-type"]
    assert _attachment_name(original) == _attachment_name(content) == "отчёт.pdf"
    missing = await client.get(f"/api/v1/files/{uuid.uuid4()}/original")
    assert missing.status_code == 404
    assert missing.json()["type"] == "urn:arm-ka:problem:not-found"


@pytest.mark.db
@pytest.mark.wire
async def test_deleting_a_tiff_scan_removes_its_pdf_and_its_tiff(
    client: httpx.AsyncClient, api_settings: CoreSettings, sessions: Any
) -> None:
    """DELETE /files/{id} of a TIFF scan removes both objects from S3 (the PDF and the TIFF);
    afterwards neither download finds the file."""
    tiff = _tiff(_pages()[:1])
    up = await client.post("/api/v1/files", files={"file": ("scan.tif", tiff)})
    assert up.status_code == 201, up.text
    file_id = up.json()["file_id"]
    assert len(await _keys(api_settings)) == 2
    async with sessions() as session, session.begin():
        await session.execute(
            update(RecognitionJob)
            .where(RecognitionJob.id == uuid.UUID(up.json()["job_id"]))
            .values(status=JobStatus.ERROR.value)
        )
    deleted = await client.delete(f"/api/v1/files/{file_id}")
    assert deleted.status_code == 200, deleted.text
    assert deleted.json()["objects"] == 2
    assert await _keys(api_settings) == []
    for route in ("content", "original"):
        assert (await client.get(f"/api/v1/files/{file_id}/{route}")).status_code == 404


@pytest.mark.db
@pytest.mark.wire
async def test_a_tiff_upload_that_is_no_tiff_leaves_nothing(
    client: httpx.AsyncClient, api_settings: CoreSettings, sample_files: dict[str, bytes]
) -> None:
    """A PDF named .tif is a type-mismatch problem and stores nothing."""
    resp = await client.post("/api/v1/files", files={"file": ("scan.tif", sample_files["PDF"])})
    assert resp.status_code == 422
    assert resp.json()["type"] == "urn:arm-ka:problem:file-type-mismatch"
    assert await _keys(api_settings) == []
