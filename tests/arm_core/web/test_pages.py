"""The review pages against the app in memory: a real upload, a real recognition, the pages.

Each test names what an analyst sees or does; the document is the ОФР with one unreadable
amount (2120), whose relation 2100 = 2110 − 2120 fails until the amount is corrected.
"""

from __future__ import annotations

import io
import re
from decimal import Decimal
from typing import Any

import httpx
import openpyxl
import PIL.Image
import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.app import CoreApp
from services.arm_core.documents.export import (
    CORRECTED_FILL,
    DOUBT_FILL,
    OSV_COLUMNS,
    TABLE_HEADING,
)
from services.devstack._samples import ORG_INN
from tests.arm_core.web._doubtful import (
    DOUBTFUL_TEXT,
    RIGHT_AMOUNT,
    RIGHT_VALUE,
    doubtful_income_xlsx,
)
from tests.arm_core.web._recognition import (
    Recognised,
    deliver_result,
    upload_and_recognize,
    upload_taken,
)
from tests.e2e._files import osv_xlsx
from tests.support.core import example, for_job

pytestmark = [pytest.mark.db]

DOUBTFUL_LINE = 1  # 2120 is the second line of the ОФР
COLUMN = 3  # the current year's column


async def _page(client: httpx.AsyncClient, url: str, status: int = 200) -> str:
    response = await client.get(url)
    assert response.status_code == status, response.text
    return response.text


async def _corrected(client: httpx.AsyncClient, document_id: Any) -> dict[str, Any]:
    response = await client.get(f"/api/v1/documents/{document_id}/corrected")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _value(document: dict[str, Any], line: int, column: int) -> dict[str, Any]:
    values = document["lines"][line]["values"]
    found: dict[str, Any] = next(v for v in values if v["column_index"] == column)
    return found


async def test_root_leads_to_the_files_page_in_russian_with_local_assets(
    client: httpx.AsyncClient,
) -> None:
    """`/` redirects to the files page; the page is Russian and loads htmx from the core."""
    response = await client.get("/", follow_redirects=True)
    assert response.status_code == 200
    assert '<html lang="ru">' in response.text
    assert "Перетащите файлы сюда" in response.text
    assert 'src="/ui/static/htmx.min.js"' in response.text
    assert "http" not in re.sub(r'href="[^"]*"|xmlns="[^"]*"', "", response.text.split("<body>")[0])
    asset = await client.get("/ui/static/htmx.min.js")
    assert asset.status_code == 200
    assert "htmx" in asset.text[:2000]


async def test_an_upload_is_listed_with_its_job_status_and_the_list_polls_while_it_runs(
    client: httpx.AsyncClient,
) -> None:
    """A file uploaded through the page is listed as queued; the table polls every second."""
    response = await client.post("/ui/files", files={"file": ("ofr.xlsx", doubtful_income_xlsx())})
    assert response.status_code == 201, response.text
    assert "загружен" in response.text
    assert response.headers["HX-Trigger"] == "files-changed"
    table = await _page(client, "/ui/files/table")
    assert "ofr.xlsx" in table
    assert 'data-status="queued"' in table
    assert "every 1s" in table


async def test_the_files_page_answers_htmx_with_its_table_alone(
    client: httpx.AsyncClient, income: Recognised
) -> None:
    """One route: a browser gets the whole page, htmx swapping `#files-table` (the filter, the
    polling) only the table, and the answer varies by those headers; `/ui/files/table`
    still gives the table."""
    page = await client.get("/ui/files?status=needs_check")
    table = await client.get(
        "/ui/files?status=needs_check", headers={"HX-Request": "true", "HX-Target": "files-table"}
    )
    other_target = await client.get("/ui/files", headers={"HX-Request": "true", "HX-Target": "x"})
    alias = await _page(client, "/ui/files/table?status=needs_check")
    assert "<html" in page.text and 'id="upload-form"' in page.text
    assert table.text.startswith('<div id="files-table"') and "<html" not in table.text
    assert str(income.file_id) in table.text
    assert table.text == alias
    assert "<html" in other_target.text
    for response in (page, table):
        assert {"HX-Request", "HX-Target"} <= {
            v.strip() for v in response.headers["Vary"].split(",")
        }
    assert (
        'hx-get="/ui/files?status=needs_check&amp;attention=&amp;order=attention&amp;offset=0"'
        in table.text
    )


async def test_an_unsupported_upload_gets_a_readable_message_not_a_trace(
    client: httpx.AsyncClient,
) -> None:
    """A .txt upload is refused with a Russian sentence naming the supported types."""
    response = await client.post("/ui/files", files={"file": ("notes.txt", b"hello")})
    assert response.status_code == 415
    assert "Такой файл не распознаётся" in response.text
    assert "XLSX" in response.text
    assert "Traceback" not in response.text


async def test_the_status_filter_and_paging_select_files(
    client: httpx.AsyncClient, income: Recognised
) -> None:
    """Filtering by needs_check lists the recognised file; filtering by error lists none."""
    needs = await _page(client, "/ui/files/table?status=needs_check")
    assert str(income.file_id) in needs
    errors = await _page(client, "/ui/files/table?status=error")
    assert str(income.file_id) not in errors
    assert "из 0" in errors
    everything = await _page(client, "/ui/files/table?status=&offset=0")  # the «все» option
    assert str(income.file_id) in everything
    assert "running" not in needs or 'data-running="no"' in needs


async def test_re_run_queues_a_new_attempt_and_refreshes_the_list(
    client: httpx.AsyncClient, income: Recognised
) -> None:
    """«Распознать снова» queues attempt 2; the answer tells the list to refresh, which then
    shows the new attempt queued and polls again."""
    response = await client.post(f"/ui/files/{income.file_id}/recognitions")
    assert response.status_code == 204
    assert response.headers["HX-Trigger"] == "files-changed"
    table = await _page(client, "/ui/files/table")
    row = next(r for r in table.split("<tr ") if str(income.file_id) in r)
    assert 'data-status="queued"' in row
    assert "<td>2</td>" in row
    assert 'data-running="yes"' in table


async def test_the_document_page_marks_the_doubtful_value_and_the_failed_check(
    client: httpx.AsyncClient, income: Recognised
) -> None:
    """The grid marks the unread 2120 value; the failed relation is listed, its lines flagged."""
    page = await _page(client, income.page)
    assert "2100=2110+2115-2120" in page
    assert "Нарушено" in page
    cell = re.search(rf'<td class="([^"]*)"[^>]*><button[^>]*id="v-{DOUBTFUL_LINE}-{COLUMN}"', page)
    assert cell is not None
    assert {"review", "unrecognized", "in-failed"} <= set(cell.group(1).split())
    assert 'id="line-1" class="failed-line"' in page
    assert "Не проверен" in page


async def test_the_file_page_links_its_documents(
    client: httpx.AsyncClient, income: Recognised
) -> None:
    """The file page lists the recognised ОФР with a link to its page."""
    page = await _page(client, f"/ui/files/{income.file_id}")
    assert income.page in page
    assert "ОФР" in page


async def test_the_source_view_shows_the_excel_cells_with_the_value_highlighted(
    client: httpx.AsyncClient, income: Recognised
) -> None:
    """The panel of the doubtful value shows the sheet's cells around line 2120, the printed
    «(118 45O)» highlighted in column D, row 13."""
    panel = await _page(client, f"{income.page}/cell?line={DOUBTFUL_LINE}&column={COLUMN}")
    assert "Лист «Отчет о финансовых результатах»" in panel
    hit = re.findall(r'<td class="[^"]*\bhit\b[^"]*">([^<]*)</td>', panel)
    assert hit == [DOUBTFUL_TEXT]
    assert "<th>13</th>" in panel
    assert 'id="value-input"' in panel
    assert "autofocus" in panel


async def test_a_correction_is_stored_beside_the_recognised_value_and_the_check_is_recomputed(
    client: httpx.AsyncClient, income: Recognised
) -> None:
    """Typing (118 450) for 2120: stored with who/old/new, the relation holds again, the page
    says so, and the recognised document still reads as the parser sent it."""
    response = await client.post(
        f"{income.page}/corrections",
        data={"kind": "auto", "line": DOUBTFUL_LINE, "column": COLUMN, "value": RIGHT_AMOUNT},
    )
    assert response.status_code == 200, response.text
    assert 'id="checks-ok"' in response.text
    assert "Сохранено" in response.text
    body = await _corrected(client, income.document_id)
    assert _value(body["document"], DOUBTFUL_LINE, COLUMN)["amount"] == RIGHT_VALUE
    assert _value(body["document"], DOUBTFUL_LINE, COLUMN)["needs_review"] is False
    assert body["document"]["checks"]["relations_failed"] == []
    [correction] = body["corrections"]
    assert (correction["kind"], correction["author"]) == ("value", "local")
    assert (correction["old_value"], correction["new_value"]) == (None, RIGHT_VALUE)
    recognised = (await client.get(f"/api/v1/documents/{income.document_id}/normalized")).json()
    assert _value(recognised, DOUBTFUL_LINE, COLUMN)["amount"] is None
    assert recognised["checks"]["relations_failed"] != []


async def test_a_correction_that_is_not_an_amount_is_refused_with_the_reason(
    client: httpx.AsyncClient, income: Recognised
) -> None:
    """«сто» is no amount: the page answers 422 with the reason, the API a problem; nothing stored."""
    response = await client.post(
        f"{income.page}/corrections",
        data={"kind": "value", "line": DOUBTFUL_LINE, "column": COLUMN, "value": "сто"},
    )
    assert response.status_code == 422
    assert "«сто» — не сумма" in response.text
    assert response.headers["HX-Retarget"] == "#panel-message"
    api = await client.post(
        f"/api/v1/documents/{income.document_id}/corrections",
        json={"kind": "value", "line": DOUBTFUL_LINE, "column_index": COLUMN, "value": "12abc"},
    )
    assert api.status_code == 422
    assert api.json()["type"] == "urn:arm-ka:problem:invalid-correction"
    assert "не сумма" in api.json()["detail"]
    assert (await _corrected(client, income.document_id))["corrections"] == []


async def test_an_amount_finer_than_kopecks_is_refused_never_rounded(
    client: httpx.AsyncClient, income: Recognised
) -> None:
    """«0,013» (a per-share figure) cannot be held by a money string: refused with the reason
    on the page (typed as «auto» too, never taken as confirming a rounded 0.01) and the API."""
    for kind in ("auto", "value"):
        response = await client.post(
            f"{income.page}/corrections",
            data={"kind": kind, "line": DOUBTFUL_LINE, "column": COLUMN, "value": "0,013"},
        )
        assert response.status_code == 422
        assert "«0,013» — больше двух знаков после запятой" in response.text
    api = await client.post(
        f"/api/v1/documents/{income.document_id}/corrections",
        json={"kind": "value", "line": DOUBTFUL_LINE, "column_index": COLUMN, "value": "0.013"},
    )
    assert api.status_code == 422
    assert api.json()["type"] == "urn:arm-ka:problem:invalid-correction"
    assert (await _corrected(client, income.document_id))["corrections"] == []


async def test_unknown_line_column_or_field_is_refused(
    client: httpx.AsyncClient, income: Recognised
) -> None:
    """A line, column or header field the document lacks is refused with what is missing."""
    url = f"/api/v1/documents/{income.document_id}/corrections"
    for body, reason in (
        ({"kind": "value", "line": 999, "column_index": COLUMN, "value": "1"}, "нет строки 999"),
        ({"kind": "value", "line": 0, "column_index": 42, "value": "1"}, "нет колонки 42"),
        ({"kind": "header", "field": "secret", "value": "1"}, "не исправляется"),
        ({"kind": "header", "field": "inn", "value": "123"}, "ИНН"),
        ({"kind": "line_code", "line": 0, "value": "21x0"}, "не код строки"),
    ):
        response = await client.post(url, json=body)
        assert response.status_code == 422, body
        assert reason in response.json()["detail"], response.json()


async def test_confirm_line_code_header_and_review_mark_are_recorded(
    client: httpx.AsyncClient, income: Recognised
) -> None:
    """Confirming a value clears its flag, a code and a header field are corrected, the
    document is marked reviewed — all in the corrections, in order, by the principal."""
    url = f"/api/v1/documents/{income.document_id}/corrections"
    requests: list[dict[str, Any]] = [
        {"kind": "confirm", "line": 0, "column_index": COLUMN},
        {"kind": "line_code", "line": 2, "value": "2100"},
        {"kind": "header", "field": "report_date", "value": "31.12.2024"},
        {"kind": "header", "field": "inn", "value": "7707083893"},
        {"kind": "reviewed", "confirm_doubts": 1},  # the unread 2120 is knowingly left
    ]
    for request in requests:
        response = await client.post(url, json=request)
        assert response.status_code == 201, response.text
    body = await _corrected(client, income.document_id)
    assert [c["kind"] for c in body["corrections"]] == [
        "confirm",
        "line_code",
        "header",
        "header",
        "reviewed",
    ]
    assert body["document"]["header"]["inn"] == "7707083893"
    assert body["document"]["header"]["report_date"] == "2024-12-31"
    assert body["reviewed"] is True
    assert body["reviewed_by"] == "local"
    page = await _page(client, income.page)
    assert "Проверен" in page
    assert "7707083893" in page


async def test_a_document_of_another_file_is_a_404_page(
    app: CoreApp,
    client: httpx.AsyncClient,
    sessions: async_sessionmaker[AsyncSession],
    income: Recognised,
) -> None:
    """The document under another file's id is not found: an HTML page, not a trace."""
    other = await upload_and_recognize(app, client, sessions, "other.xlsx", osv_xlsx())
    page = await _page(client, f"/ui/files/{other.file_id}/documents/{income.document_id}", 404)
    assert "Такой документ не найден" in page
    assert "<html" in page
    missing = await _page(client, f"/ui/files/{income.file_id}/documents/{other.file_id}", 404)
    assert "не найден" in missing


async def test_the_xlsx_export_has_the_corrected_values_and_a_checks_sheet(
    client: httpx.AsyncClient, income: Recognised
) -> None:
    """Before the correction the 2120 cell is empty (marked doubtful) and the checks sheet
    lists the failure; after it the cell is −118450, marked corrected by `local`, and the
    checks sheet has only its heading. The header block names the organisation."""
    before = await client.get(f"{income.page}/export.xlsx")
    assert before.status_code == 200
    book = openpyxl.load_workbook(io.BytesIO(before.content))
    sheet, checks, _warnings = book.worksheets
    assert sheet.title == "ОФР"
    start = _table_start(sheet)
    assert next(r for r in sheet.iter_rows() if r[0].value == "ИНН")[1].value == ORG_INN
    assert [c.value for c in sheet[start + 2]][:3] == ["2120", "Себестоимость продаж", None]
    assert sheet.cell(start + 2, 4).value is None
    assert sheet.cell(start + 2, 4).fill.fgColor.rgb == DOUBT_FILL
    assert checks.max_row == 2
    await client.post(
        f"/api/v1/documents/{income.document_id}/corrections",
        json={"kind": "value", "line": DOUBTFUL_LINE, "column_index": COLUMN, "value": "(118 450)"},
    )
    after = await client.get(f"/api/v1/documents/{income.document_id}/export?format=xlsx")
    book = openpyxl.load_workbook(io.BytesIO(after.content))
    sheet, checks, _warnings = book.worksheets
    assert sheet.cell(start + 2, 4).value == -118450
    assert sheet.cell(start + 2, 4).fill.fgColor.rgb == CORRECTED_FILL
    assert "local" in sheet.cell(start + 2, 4).comment.text
    assert checks.max_row == 1
    corrected = (await _corrected(client, income.document_id))["document"]
    for row, line in enumerate(corrected["lines"], start=start + 1):
        assert sheet.cell(row, 1).value == line["line_code"]
        for offset, column in enumerate((3, 4)):
            amount = _value(corrected, row - start - 1, column)["amount"]
            expected = None if amount is None else int(amount)
            assert sheet.cell(row, 4 + offset).value == expected


def _table_start(sheet: Any) -> int:
    return next(r for r in range(1, sheet.max_row + 1) if sheet.cell(r, 1).value == TABLE_HEADING)


async def test_the_csv_export_is_semicolon_separated_utf8(
    client: httpx.AsyncClient, income: Recognised
) -> None:
    """The CSV has a BOM, a Russian heading and one row per line."""
    response = await client.get(f"{income.page}/export.csv")
    assert response.status_code == 200
    text = response.content.decode("utf-8")
    assert text.startswith("\ufeffКод;Наименование;Статус строки;")
    rows = text.strip().split("\r\n")
    corrected = (await _corrected(client, income.document_id))["document"]
    assert len(rows) == 1 + len(corrected["lines"])
    assert rows[1].startswith("2110;Выручка;;152340;138900")


async def test_an_osv_document_is_paged_and_exported_flat(
    app: CoreApp, client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession]
) -> None:
    """An ОСВ's page lists its rows with the six sums; its export is one flat table; its
    rows cannot be corrected."""
    osv = await upload_and_recognize(app, client, sessions, "osv.xlsx", osv_xlsx())
    page = await _page(client, osv.page)
    assert "Строки ОСВ (8)" in page
    assert "1\u202f000" in page
    export = await client.get(f"{osv.page}/export.xlsx")
    sheet = openpyxl.load_workbook(io.BytesIO(export.content)).worksheets[0]
    start = next(r for r in range(1, 20) if sheet.cell(r, 1).value == OSV_COLUMNS[0][1])
    assert [cell.value for cell in sheet[start]] == [title for _, title in OSV_COLUMNS]
    assert sheet.max_row == start + 8
    refused = await client.post(
        f"/api/v1/documents/{osv.document_id}/corrections",
        json={"kind": "value", "line": 0, "column_index": 0, "value": "1"},
    )
    assert refused.status_code == 422
    assert "ОСВ" in refused.json()["detail"]


async def test_an_osv_row_shows_the_source_cells_it_came_from(
    app: CoreApp, client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession]
) -> None:
    """Choosing an ОСВ row's account opens the sheet around the row its `ref` names (that
    row shaded, its account and sums among the cells) and the row's six sums; a row past
    the end, or `/row` of a statement, is a 404."""
    osv = await upload_and_recognize(app, client, sessions, "osv.xlsx", osv_xlsx())
    page = await _page(client, osv.page)
    assert f'hx-get="{osv.page}/row?index=2"' in page
    rows = (await client.get(f"/api/v1/documents/{osv.document_id}/rows?limit=3")).json()
    row = rows["items"][2]
    panel = await _page(client, f"{osv.page}/row?index=2")
    assert "Лист «ОСВ»" in panel and f"ссылка {row['ref']}" in panel
    sheet_row = int(re.sub(r"\D", "", row["ref"].rsplit("!", 1)[1]))
    shaded = re.search(rf"<tr><th>{sheet_row}</th>(.*?)</tr>", panel)
    assert shaded is not None and 'class="ref-row' in shaded.group(1)
    assert row["account"] in shaded.group(1)
    amounts = [row[k] for k in ("opening_debit", "closing_debit") if row[k] is not None]
    assert amounts, row
    printed = re.findall(r"<td[^>]*>([^<]*)</td>", shaded.group(1))
    numbers = {Decimal(t) for t in printed if re.fullmatch(r"-?\d+(\.\d+)?", t)}
    assert {Decimal(a) for a in amounts} <= numbers
    sums = re.search(r'<table id="row-sums">(.*?)</table>', panel, re.S)
    assert sums is not None and "Сальдо на начало" in sums.group(1)
    await _page(client, f"{osv.page}/row?index=999", 404)


async def test_a_statement_has_no_osv_row_panel(
    client: httpx.AsyncClient, income: Recognised
) -> None:
    """`/row` is the ОСВ's: a statement's is a 404 page."""
    await _page(client, f"{income.page}/row?index=0", 404)


async def test_a_scan_value_shows_its_page_rendered_from_the_stored_pdf(
    app: CoreApp,
    client: httpx.AsyncClient,
    sessions: async_sessionmaker[AsyncSession],
    sample_files: dict[str, bytes],
) -> None:
    """For a PDF the panel shows page 1 rendered from the stored file (a real PNG) and the
    text the recogniser read for the value."""
    stored, job = await upload_taken(client, sessions, "scan.pdf", sample_files["PDF"])
    result = for_job(example("result-statement-minimal.json"), job)
    scan = await deliver_result(app, client, stored, job, result)
    document = result["documents"][0]
    line = next(i for i, ln in enumerate(document["lines"]) if ln["values"])
    value = document["lines"][line]["values"][0]
    panel = await _page(client, f"{scan.page}/cell?line={line}&column={value['column_index']}")
    assert f'src="/ui/files/{scan.file_id}/pages/1.png"' in panel
    assert f">{value['text']}</strong>" in panel
    image = await client.get(f"/ui/files/{scan.file_id}/pages/1.png")
    assert image.status_code == 200
    assert image.headers["content-type"] == "image/png"
    with PIL.Image.open(io.BytesIO(image.content)) as png:
        assert png.width > 100
        assert png.height > 100
    missing = await client.get(f"/ui/files/{scan.file_id}/pages/9.png")
    assert missing.status_code == 404


async def test_the_pages_speak_russian_form_variants_lines_and_amounts(
    client: httpx.AsyncClient, income: Recognised
) -> None:
    """«ОФР (полная)», never «(full)»; the corrections log names the line by code and name
    and the column by its label, never by 0-based indexes; amounts with a decimal comma."""
    page = await _page(client, income.page)
    assert "ОФР (полная)" in page and "(full)" not in page
    listing = await _page(client, f"/ui/files/{income.file_id}")
    assert "ОФР (полная)" in listing and "(full)" not in listing
    await client.post(
        f"/api/v1/documents/{income.document_id}/corrections",
        json={"kind": "value", "line": DOUBTFUL_LINE, "column_index": COLUMN, "value": "-1234,5"},
    )
    page = await _page(client, income.page)
    log = page[page.index('id="corrections"') :]
    assert "сумма: 2120 Себестоимость продаж, " in log
    assert "строка 1" not in log and "колонка" not in log and "value," not in log
    assert "−1\u202f234,50" in log


async def test_the_page_prints_dates_as_people_read_them_and_the_api_keeps_iso(
    client: httpx.AsyncClient, income: Recognised
) -> None:
    """The report date in the header, its correction in the log and a column's period date
    are 31.12.2024 on the page, never «2024-12-31»; the API still answers ISO."""
    url = f"/api/v1/documents/{income.document_id}/corrections"
    response = await client.post(
        url, json={"kind": "header", "field": "report_date", "value": "31.12.2024"}
    )
    assert response.status_code == 201, response.text
    body = await _corrected(client, income.document_id)
    assert body["document"]["header"]["report_date"] == "2024-12-31"
    dated = [c for c in body["document"]["columns"] if c.get("period_date")]
    assert dated, "the fixture's columns carry period dates"
    page = await _page(client, income.page)
    assert re.search(r"\d{4}-\d{2}-\d{2}", page) is None, re.findall(r"\d{4}-\d{2}-\d{2}", page)
    header = page[page.index('id="header-fields"') :]
    assert '<button type="button" class="cell code" id="f-report_date"' in header
    assert re.search(r'id="f-report_date"[^>]*>31\.12\.2024</button>', header)
    log = page[page.index('id="corrections"') :]
    assert "31.12.2024" in log
    grid = page[page.index('id="grid"') :]
    for column in dated:
        day = column["period_date"]
        assert f"{column['label']} ({day[8:10]}.{day[5:7]}.{day[0:4]})" in grid
    panel = await _page(client, f"{income.page}/field?field=report_date")
    assert 'value="31.12.2024"' in panel


def _remarks(page: str) -> list[tuple[str, str]]:
    """(code, text) of each recogniser's remark the page lists."""
    found = re.findall(r'<li class="remark [^"]*" data-code="([A-Z_0-9]+)">(.*?)</li>', page)
    return [(code, re.sub(r"<[^>]+>", "", text)) for code, text in found]


async def test_the_page_lists_what_the_recogniser_warned_of_and_never_a_stale_relation(
    client: httpx.AsyncClient, income: Recognised
) -> None:
    """The unread 2120 is a remark in Russian linking to its line; the failed relation is not
    a remark (it is under «Проверки», live): once a correction makes it hold, no text on the
    page still says it fails."""
    page = await _page(client, income.page)
    remarks = _remarks(page)
    assert remarks, "the page lists no remark of the recogniser"
    assert "RELATION_FAILED" not in {code for code, _ in remarks}
    unread = [text for code, text in remarks if code == "VALUE_UNREADABLE"]
    assert unread and all(not re.search(r"[A-Za-z]{3,}", text) for text in unread), unread
    assert f'<a href="#line-{DOUBTFUL_LINE}" tabindex="-1">2120' in page
    fixed = await client.post(
        f"{income.page}/corrections",
        data={"kind": "auto", "line": DOUBTFUL_LINE, "column": COLUMN, "value": RIGHT_AMOUNT},
    )
    assert 'id="checks-ok"' in fixed.text
    assert "Нарушено" not in fixed.text
    assert "RELATION_FAILED" not in {code for code, _ in _remarks(fixed.text)}


async def test_the_file_page_says_what_the_recogniser_saw_in_a_sheet_it_did_not_take(
    app: CoreApp, client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession]
) -> None:
    """A workbook of the ОФР and a sheet of notes: the ОФР is a document, and the file page
    lists, under «Замечания к файлу», the recogniser's word on the notes sheet (SHEET_OTHER,
    in Russian, naming the sheet) — a sheet it did not understand is never silently dropped."""
    income = openpyxl.load_workbook(io.BytesIO(doubtful_income_xlsx()))
    notes = income.create_sheet("Заметки")
    notes.append(["Комментарий бухгалтера"])
    notes.append(["Аренда офиса продлена до 2026 года"])
    data = io.BytesIO()
    income.save(data)
    done = await upload_and_recognize(app, client, sessions, "ofr-notes.xlsx", data.getvalue())
    page = await _page(client, f"/ui/files/{done.file_id}")
    assert "Замечания к файлу" in page
    [other] = re.findall(r'<li class="remark [^"]*" data-code="SHEET_OTHER">(.*?)</li>', page)
    text = re.sub(r"<[^>]+>", "", other)
    assert "лист «Заметки»" in text
    assert "сведения" in text
