"""`arm-ka parse` of a TIFF scan: read as the PDF arm-core makes of it at upload (decision
0013), so the local parse and the core give the same document; refused as the core refuses
it. The TIFFs are drawn here: the forms of the scan tests, rendered and saved by Pillow.
"""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import pytest
from PIL import Image

from services.documents_io.tiff import tiff_to_pdf
from tests.cli._run import arm_ka
from tests.scan_gateway._forms import font_path, render_pdf, render_png

needs_ocr = pytest.mark.skipif(
    shutil.which("tesseract") is None or font_path() is None,
    reason="needs tesseract and the DejaVuSans font to draw the forms",
)
_IDS = re.compile(r'"(job_id|file_id)": "[^"]*"|"duration_ms": \d+')


def _tiff(pages: list[int], dpi: int = 200) -> bytes:
    """The forms' pages as one grey TIFF, a page per form (as a scanner writes them)."""
    pdf = render_pdf()
    images = [Image.open(io.BytesIO(render_png(pdf, page, dpi=dpi))) for page in pages]
    out = io.BytesIO()
    images[0].save(out, format="TIFF", save_all=True, append_images=images[1:], dpi=(dpi, dpi))
    return out.getvalue()


def _documents(stdout: str) -> list[tuple[str, object]]:
    body = json.loads(stdout)
    return [(doc["document_type"], doc["locator"]) for doc in body["documents"]]


@needs_ocr
def test_a_tiff_is_read_as_the_pdf_the_core_stores_for_it(tmp_path: Path) -> None:
    """`parse --json scan.tif` prints what the same command prints for the PDF arm-core's
    upload makes of that TIFF (`tiff_to_pdf`): the same document, byte for byte but for the
    ids and the time taken."""
    tiff = _tiff([0])
    scan, converted = tmp_path / "scan.tif", tmp_path / "scan.pdf"
    scan.write_bytes(tiff)
    converted.write_bytes(tiff_to_pdf(tiff))
    from_tiff = arm_ka("parse", "--json", str(scan), timeout=300)
    from_pdf = arm_ka("parse", "--json", str(converted), timeout=300)
    assert from_tiff.returncode == 0, from_tiff.stderr
    assert from_pdf.returncode == 0, from_pdf.stderr
    assert [kind for kind, _ in _documents(from_tiff.stdout)] == ["BALANCE"]
    assert _IDS.sub("", from_tiff.stdout) == _IDS.sub("", from_pdf.stdout)


@needs_ocr
def test_a_multi_page_tiff_gives_each_pages_form(tmp_path: Path) -> None:
    """Two pages, two forms, in their order; the summary names the file's type as given."""
    path = tmp_path / "скан.TIFF"
    path.write_bytes(_tiff([0, 1]))
    run = arm_ka("parse", str(path), timeout=300)
    assert run.returncode == 0, run.stderr
    assert "скан.TIFF (TIFF) — " in run.stdout
    assert "сервис: scan-gateway" in run.stdout
    assert re.search(r"1\. Баланс .*страница 1", run.stdout), run.stdout
    assert re.search(r"2\. ОФР .*страница 2", run.stdout), run.stdout


def test_a_tiff_is_known_by_its_content_whatever_its_name(tmp_path: Path) -> None:
    """A TIFF with another extension is still a TIFF scan (the signature decides, as for the
    other types): a blank page reaches the scan-gateway's recogniser, which finds nothing."""
    blank = io.BytesIO()
    Image.new("L", (200, 100), 255).save(blank, format="TIFF")
    path = tmp_path / "scan.dat"
    path.write_bytes(blank.getvalue())
    run = arm_ka("parse", "--json", str(path), timeout=300)
    body = json.loads(run.stdout)
    assert body["service"]["name"] == "scan-gateway"
    assert body["status"] == "error"  # no form on a blank page
    assert run.returncode == 2


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (
            b"\x89PNG\r\n\x1a\n" + b"\x00" * 64,
            "the file is named as TIFF, but its content is not a TIFF",
        ),
        (b"just some text", "the file is named as TIFF, but its content is not a TIFF"),
        (b"II*\x00" + b"\xff" * 64, "the TIFF could not be read"),
    ],
    ids=["a-png", "text", "broken-tiff"],
)
def test_a_tif_that_is_no_readable_tiff_is_refused(
    tmp_path: Path, content: bytes, reason: str
) -> None:
    """Named .tif but not a TIFF, or a TIFF that cannot be decoded: the core's refusal, one
    line naming the file, exit 64; nothing is recognised."""
    path = tmp_path / "scan.tif"
    path.write_bytes(content)
    run = arm_ka("parse", str(path))
    assert run.returncode == 64
    assert run.stdout == ""
    assert f"arm-ka: scan.tif: {reason}" in run.stderr
    assert "Traceback" not in run.stderr


def test_a_refused_tiff_in_a_folder_is_skipped_and_the_others_go_on(tmp_path: Path) -> None:
    """In a batch the refusal is a `skipped` line, as for any file that cannot be taken."""
    (tmp_path / "fake.tiff").write_bytes(b"not a tiff at all")
    run = arm_ka("parse", str(tmp_path))
    assert run.returncode == 2
    assert "skipped      fake.tiff: the file is named as TIFF, but its content is not a TIFF" in (
        run.stdout
    )
