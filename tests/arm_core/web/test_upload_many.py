"""Several files in one upload, and the same bytes uploaded again: each file is answered on its
own, and a repeat names the earlier file it repeats (both kept)."""

from __future__ import annotations

import datetime as dt
import re

import httpx
import pytest

from services.arm_core.web.views import waited
from tests.scan_gateway._forms import BALANCE, render_pdf

pytestmark = pytest.mark.db


async def test_one_upload_of_several_files_stores_each_and_refuses_the_bad_one(
    client: httpx.AsyncClient, sample_files: dict[str, bytes]
) -> None:
    response = await client.post(
        "/ui/files",
        files=[
            ("file", ("a.xlsx", sample_files["XLSX"])),
            ("file", ("b.pdf", sample_files["PDF"])),
            ("file", ("notes.txt", b"not a document")),
        ],
    )
    assert response.status_code == 201, response.text
    assert "«a.xlsx» загружен" in response.text
    assert "«b.pdf» загружен" in response.text
    assert "«notes.txt»:" in response.text
    listed = (await client.get("/api/v1/files")).json()["items"]
    assert sorted(f["original_name"] for f in listed) == ["a.xlsx", "b.pdf"]


async def test_only_refused_files_answer_their_refusal(
    client: httpx.AsyncClient,
) -> None:
    response = await client.post("/ui/files", files=[("file", ("notes.txt", b"plain text"))])
    assert response.status_code == 415
    assert "«notes.txt»:" in response.text


async def test_the_same_bytes_again_name_the_earlier_file_and_both_are_kept(
    client: httpx.AsyncClient, sample_files: dict[str, bytes]
) -> None:
    first = await client.post(
        "/api/v1/files", files={"file": ("balance.xlsx", sample_files["XLSX"])}
    )
    assert first.status_code == 201 and first.json()["duplicate_of"] is None
    again = await client.post(
        "/api/v1/files", files={"file": ("balance-copy.xlsx", sample_files["XLSX"])}
    )
    assert again.status_code == 201
    assert again.json()["duplicate_of"] == first.json()["file_id"]
    page = await client.post("/ui/files", files={"file": ("third.xlsx", sample_files["XLSX"])})
    assert page.status_code == 201
    assert f'data-duplicate-of="{again.json()["file_id"]}"' in page.text
    assert "«balance-copy.xlsx»" in page.text
    other = await client.post("/api/v1/files", files={"file": ("other.xlsb", sample_files["XLSB"])})
    assert other.json()["duplicate_of"] is None
    assert (await client.get("/api/v1/files")).json()["total"] == 4


def test_the_wait_reads_as_minutes_and_seconds() -> None:
    start = dt.datetime(2026, 1, 1, 10, 0, 0, tzinfo=dt.UTC)
    assert waited(start, start + dt.timedelta(seconds=7)) == "0:07"
    assert waited(start, start + dt.timedelta(minutes=12, seconds=30)) == "12:30"
    assert waited(start, start + dt.timedelta(hours=1, minutes=2, seconds=5)) == "1:02:05"
    assert waited(start.replace(tzinfo=None), start + dt.timedelta(seconds=61)) == "1:01"


async def test_a_file_being_recognised_shows_how_long_it_has_waited(
    client: httpx.AsyncClient, sample_files: dict[str, bytes]
) -> None:
    """No service takes the job here, so it stays queued: the row says «распознаётся…» with
    the time since the upload, and the table keeps refreshing every second."""
    await client.post("/api/v1/files", files={"file": ("slow.pdf", sample_files["PDF"])})
    table = await client.get("/ui/files/table")
    assert table.status_code == 200
    assert re.search(r"распознаётся… <span class=\"waited\" data-waited>0:0\d</span>", table.text)
    assert "every 1s" in table.text


async def test_a_scan_being_recognised_shows_its_pages_beside_the_wait(
    client: httpx.AsyncClient, sample_files: dict[str, bytes]
) -> None:
    """A three-page PDF in recognition: the files list and the file page say «страниц: 3»
    beside the time waited (the page count read by the core's file worker; no contract field,
    decision 0037); a workbook being recognised shows no page count."""
    pdf = render_pdf((BALANCE, BALANCE, BALANCE))
    upload = await client.post("/api/v1/files", files={"file": ("three.pdf", pdf)})
    assert upload.status_code == 201, upload.text
    await client.post("/api/v1/files", files={"file": ("book.xlsx", sample_files["XLSX"])})
    table = (await client.get("/ui/files/table")).text
    assert table.count("распознаётся…") == 2 and table.count("data-pages=") == 1
    assert re.search(
        r'data-waited>0:0\d</span> <span class="muted" data-pages="3">· страниц: 3</span>', table
    ), table
    page = (await client.get(f"/ui/files/{upload.json()['file_id']}")).text
    assert re.search(r'data-waited>0:0\d</span> <span data-pages="3">· страниц: 3</span>', page)
