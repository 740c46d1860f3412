"""The whole system on one shared stack, nothing broken: files in, documents out of the core's API.

nats-server, moto S3, the module's database and arm-core, tabular-parser and scan-gateway as
real processes. Each test uploads through `POST /api/v1/files` and reads what the core stored.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from services.devstack import LocalStack
from tests.e2e import _files
from tests.e2e._system import (
    Core,
    Wire,
    publish_raw,
    stack_env,
    start_stack,
    stop_stack,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

RESULT_SUBJECT = "files.tabular_parsed"


@pytest.fixture(scope="module")
async def stack(e2e_db: str, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[LocalStack]:
    data_dir: Path = tmp_path_factory.mktemp("e2e-pipeline")
    local = LocalStack(data_dir=data_dir, extra_env=stack_env(e2e_db))
    await start_stack(local)
    try:
        yield local
    finally:
        await stop_stack(local)


@pytest.fixture(scope="module")
async def core(stack: LocalStack) -> AsyncIterator[Core]:
    client = Core(stack.core_url)
    try:
        yield client
    finally:
        await client.aclose()


def _line(document: dict[str, Any], code: str) -> dict[str, Any]:
    found = [line for line in document["lines"] or [] if line.get("line_code") == code]
    assert len(found) == 1, f"line {code}: {len(found)} found"
    line: dict[str, Any] = found[0]
    return line


def _amount(line: dict[str, Any], position: int = 0) -> Decimal:
    values = sorted(line["values"], key=lambda v: v["column_index"])
    return Decimal(values[position]["amount"])


async def test_osv_xlsx_becomes_an_osv_document_with_its_rows(core: Core) -> None:
    """An ОСВ workbook ends done with one OSV document whose rows carry the sheet's sums."""
    upload = await core.upload("osv.xlsx", _files.osv_xlsx())
    assert (upload["pipeline"], upload["file_type"]) == ("tabular", "XLSX")
    job = await core.wait_final(upload["job_id"])
    assert job["status"] == "done", job
    assert job["group_schema"] == "osv"
    assert job["service_name"] == "tabular-parser"
    [document] = await core.documents(upload["file_id"])
    assert (document["document_type"], document["status"]) == ("OSV", "done")
    assert document["header"]["period_start"] == "2025-01-01"
    rows = (await core.get(f"{document['rows_url']}?limit=100"))["items"]
    assert len(rows) == document["rows_total"] == 8
    by_account = {row["account"]: row for row in rows if row["account"]}
    assert by_account["01"]["opening_debit"] == "1000"
    assert by_account["01"]["closing_debit"] == "1500"
    assert by_account["80"]["closing_credit"] == "1450"
    [total] = [row for row in rows if row["kind"] == "total"]
    assert (total["closing_debit"], total["closing_credit"]) == ("1700", "1700")


async def test_xlsb_statements_become_balance_and_income(core: Core) -> None:
    """A 1C balance + ОФР in XLSB: BALANCE and INCOME (full forms) with the printed amounts."""
    upload = await core.upload("report.xlsb", _files.statements_xlsb())
    assert upload["file_type"] == "XLSB"
    job = await core.wait_final(upload["job_id"])
    assert job["status"] in {"done", "needs_check"}, job
    assert job["group_schema"] == "rsbu"
    documents = {d["document_type"]: d for d in await core.documents(upload["file_id"])}
    assert set(documents) == {"BALANCE", "INCOME"}
    balance, income = documents["BALANCE"], documents["INCOME"]
    assert balance["form_variant"] == "full"
    assert balance["header"]["inn"] == "7728168971"
    assert _amount(_line(balance, "1600")) == Decimal("100000")
    assert _amount(_line(balance, "1700")) == Decimal("100000")
    assert _amount(_line(income, "2110")) == Decimal("152340")
    assert _amount(_line(income, "2120")) == Decimal("-118450")


async def test_xls_income_statement(core: Core) -> None:
    """An ОФР in XLS (BIFF8) ends with one INCOME document whose net profit is the printed one."""
    upload = await core.upload("ofr.xls", _files.income_xls())
    assert upload["file_type"] == "XLS"
    job = await core.wait_final(upload["job_id"])
    assert job["status"] in {"done", "needs_check"}, job
    [income] = await core.documents(upload["file_id"])
    assert income["document_type"] == "INCOME"
    assert _amount(_line(income, "2400")) == Decimal("14400")
    assert _amount(_line(income, "2400"), 1) == Decimal("12800")


async def test_text_pdf_goes_through_the_scan_gateway(core: Core) -> None:
    """A text-layer PDF takes the image pipeline and comes back as BALANCE and INCOME."""
    upload = await core.upload("report.pdf", _files.statements_pdf())
    assert (upload["pipeline"], upload["file_type"]) == ("image", "PDF")
    job = await core.wait_final(upload["job_id"])
    assert job["status"] in {"done", "needs_check"}, job
    assert job["service_name"] == "scan-gateway"
    documents = {d["document_type"]: d for d in await core.documents(upload["file_id"])}
    assert {"BALANCE", "INCOME"} <= set(documents)
    assert _amount(_line(documents["BALANCE"], "1600")) == Decimal("12790")
    assert _amount(_line(documents["INCOME"], "2400")) == Decimal("2680")


async def test_bodies_that_are_no_workbook_are_refused_at_the_upload(core: Core) -> None:
    """The core asks the same sniffer as the parser (`services.contract.filetypes`): a ZIP
    naming `xl/workbook.xml` without an OOXML package and a body with no workbook signature
    are refused at the edge (415); a PDF named .xlsx is a type mismatch (422)."""
    for name, body in (
        ("not-a-workbook.xlsx", _files.zip_without_workbook()),
        ("notes.xlsx", b"just some text, not a workbook"),
    ):
        refused = await core.upload_response(name, body)
        assert refused.status_code == 415, (name, refused.text)
        assert refused.json()["type"] == "urn:arm-ka:problem:unsupported-file-content"
    renamed = await core.upload_response("report.xlsx", _files.statements_pdf())
    assert renamed.status_code == 422


async def test_damaged_workbook_ends_unreadable(core: Core) -> None:
    """An OOXML package whose workbook part is not XML: error UNREADABLE, no documents."""
    upload = await core.upload("damaged.xlsx", _files.damaged_xlsx())
    job = await core.wait_final(upload["job_id"])
    assert (job["status"], job["error_code"]) == ("error", "UNREADABLE"), job
    assert job["service_name"] == "tabular-parser"


async def test_second_recognition_keeps_both_jobs(core: Core) -> None:
    """POST recognitions makes attempt 2 as a new job; the file lists both, each with its own
    documents, and the file's documents are the latest attempt's."""
    upload = await core.upload("osv-twice.xlsx", _files.osv_xlsx())
    first = await core.wait_final(upload["job_id"])
    second = await core.recognize_again(upload["file_id"])
    assert second["attempt"] == 2
    assert second["job_id"] != first["job_id"]
    second = await core.wait_final(second["job_id"])
    assert first["status"] == second["status"] == "done"
    assert second["request_msg_id"] == f"{second['job_id']}:2"

    file = await core.file(upload["file_id"])
    assert [(j["job_id"], j["attempt"], j["status"]) for j in file["jobs"]] == [
        (first["job_id"], 1, "done"),
        (second["job_id"], 2, "done"),
    ]
    [of_first] = await core.documents(upload["file_id"], first["job_id"])
    [of_second] = await core.documents(upload["file_id"], second["job_id"])
    [latest] = await core.documents(upload["file_id"])
    assert of_first["document_id"] != of_second["document_id"]
    assert latest["document_id"] == of_second["document_id"]


async def test_result_delivered_twice_and_late_ack_change_the_job_once(
    stack: LocalStack, core: Core
) -> None:
    """The real ack and result of a finished job, published again on the result subject with
    their own Nats-Msg-Id (the result twice, the ack after it), leave the job as it was: same
    status, finish time, result id and documents."""
    assert stack.nats is not None
    wire = await Wire.listen(stack.nats.url, [RESULT_SUBJECT])
    try:
        upload = await core.upload("osv-dup.xlsx", _files.osv_xlsx())
        job = await core.wait_final(upload["job_id"])
        assert job["status"] == "done", job
        before_documents = await core.documents(upload["file_id"])
        ours = [
            (mid, body)
            for _subject, mid, body in wire.messages
            if body is not None and body.get("job_id") == job["job_id"]
        ]
    finally:
        await wire.close()
    ack = next((m, b) for m, b in ours if b["status"] == "processing")
    result = next((m, b) for m, b in ours if b["status"] == "done")
    assert ack[0] == f"ack:{job['job_id']}:1"
    assert result[0] == job["result_msg_id"] == f"result:{job['job_id']}:1"

    url = stack.nats.url
    await publish_raw(url, RESULT_SUBJECT, result[1], result[0])
    await publish_raw(url, RESULT_SUBJECT, result[1], result[0])
    await publish_raw(url, RESULT_SUBJECT, ack[1], ack[0])
    # A non-event: the job must stay as it was while the core reads the three messages.
    for _ in range(20):
        await asyncio.sleep(0.1)
        assert await core.job(job["job_id"]) == job
    assert await core.documents(upload["file_id"]) == before_documents
