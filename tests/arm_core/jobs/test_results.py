"""Intake of result files (real S3, the test database): the core's scenarios of spec 001.

Each scenario of «Переход на контракт v2.0» and of idempotency that the core plays a part in
is one test below, its Russian title first in the docstring.
"""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.db import (
    Document,
    DocumentIssue,
    JobStatus,
    RecognitionJob,
    StatementLine,
)
from services.arm_core.documents.read import load_document, load_osv_rows, normalised_document
from services.arm_core.jobs.intake import MAPPING_ERROR, Intake, IntakeOutcome
from services.arm_core.jobs.mapping import LEGACY_WARNING, MAPPING_WARNING
from services.arm_core.jobs.results import ResultFileHandler, S3ResultReader
from services.contract import Registry, default_contracts_dir
from services.runtime.storage import S3Storage
from tests.support.core import FakeClock, ResultPublisher, example, for_job

pytestmark = [pytest.mark.db, pytest.mark.wire]

Sessions = async_sessionmaker[AsyncSession]


async def documents_of(sessions: Sessions, job_id: uuid.UUID) -> list[Document]:
    """The stored documents of a job, each loaded with its lines, values and issues."""
    async with sessions() as session:
        ids = (
            await session.scalars(
                select(Document.id).where(Document.job_id == job_id).order_by(Document.file_ordinal)
            )
        ).all()
        loaded = [await load_document(session, i) for i in ids]
    return [d for d in loaded if d is not None]


async def count(sessions: Sessions, model: Any) -> int:
    async with sessions() as session:
        return int(await session.scalar(select(func.count()).select_from(model)) or 0)


def core_issues(document: Document, code: str | None = None) -> list[DocumentIssue]:
    return [i for i in document.issues if i.source == "core" and (code is None or i.code == code)]


# --- spec 001: idempotency --------------------------------------------------------------


async def test_result_delivered_twice(
    results: ResultPublisher, make_job: Any, reload: Any, sessions: Sessions, clock: FakeClock
) -> None:
    """«Результат доставлен дважды»: задание изменено один раз, второе сообщение проигнорировано.

    The second delivery (same Nats-Msg-Id) stores no second set of documents.
    """
    job = await make_job(status=JobStatus.PROCESSING)
    body = for_job(example("result-statement-excel.json"), job)
    assert await results.deliver(job, body) == IntakeOutcome.FINISHED
    first = await reload(job.id)
    clock.advance(30)
    assert await results.deliver(job, body) == IntakeOutcome.DUPLICATE
    again = await reload(job.id)
    assert (again.status, again.finished_at, again.updated_at) == (
        "done",
        first.finished_at,
        first.updated_at,
    )
    assert await count(sessions, Document) == len(body["documents"])


async def test_temporary_publish_failure(
    results: ResultPublisher, make_job: Any, reload: Any, sessions: Sessions, clock: FakeClock
) -> None:
    """«Временный сбой публикации»: ядро изменит задание один раз, даже если первая попытка дошла.

    Ack, then the result twice with one Nats-Msg-Id (the retry after a lost confirmation):
    one transition, one set of documents.
    """
    job = await make_job(status=JobStatus.PUBLISHED)
    ack = {
        "schema_version": "2.0",
        "job_id": str(job.id),
        "file_id": str(job.file_id),
        "status": "processing",
        "service": {"name": "scan-gateway", "version": "0.1.0"},
    }
    await results.intake.handle(json.dumps(ack).encode(), {"Nats-Msg-Id": f"ack:{job.id}:1"})
    body = for_job(example("result-statement-minimal.json"), job)
    outcomes = [await results.deliver(job, body), await results.deliver(job, body)]
    assert outcomes == [IntakeOutcome.FINISHED, IntakeOutcome.DUPLICATE]
    row = await reload(job.id)
    assert (row.status, row.result_msg_id) == ("needs_check", f"result:{job.id}:1")
    assert await count(sessions, Document) == 1


async def test_a_result_of_another_attempt_is_ignored(
    results: ResultPublisher, make_job: Any, reload: Any, sessions: Sessions
) -> None:
    """A result whose Nats-Msg-Id names another attempt than the job's is logged and ignored."""
    job = await make_job(status=JobStatus.PROCESSING, attempt=2)
    body = for_job(example("result-osv.json"), job)
    outcome = await results.deliver(job, body, msg_id=f"result:{job.id}:1")
    assert outcome == IntakeOutcome.STALE
    assert (await reload(job.id)).status == "processing"
    assert await count(sessions, Document) == 0


# --- spec 001: versions ------------------------------------------------------------------


async def test_core_receives_an_unknown_major_envelope(
    results: ResultPublisher, make_job: Any, reload: Any, sessions: Sessions
) -> None:
    """«Ядро получает MAJOR, которого не знает» (конверт 3.0): ERROR, mapping_error, без повтора."""
    job = await make_job(status=JobStatus.PROCESSING)
    body = for_job(example("result-osv.json"), job)
    outcome = await results.deliver(job, body, schema_version="3.0")
    assert outcome == IntakeOutcome.INVALID
    row = await reload(job.id)
    assert (row.status, row.error_code) == ("error", MAPPING_ERROR)
    assert "3" in row.metrics["mapping_error"]
    assert await count(sessions, Document) == 0


async def test_core_receives_an_unknown_major_result_file(
    results: ResultPublisher, make_job: Any, reload: Any, sessions: Sessions
) -> None:
    """«Ядро получает MAJOR, которого не знает» (файл результата 3.0): ERROR с mapping_error.

    The 2.0 envelope is valid; the file it points at is "3.0", which no schema of the core
    accepts. The job is final: a second delivery of the same result changes nothing.
    """
    job = await make_job(status=JobStatus.PROCESSING)
    body = for_job(example("result-osv.json"), job)
    body["schema_version"] = "3.0"
    await results.deliver(job, body, major=2, result_schema_version="2.0")
    row = await reload(job.id)
    assert (row.status, row.error_code) == ("error", MAPPING_ERROR)
    assert "unknown MAJOR 3" in row.metrics["mapping_error"]
    assert await results.deliver(job, body, major=2) == IntakeOutcome.DUPLICATE
    assert await count(sessions, Document) == 0


async def test_ack_of_the_new_service(results: ResultPublisher, make_job: Any, reload: Any) -> None:
    """«Ack нового сервиса»: ack processing со schema_version 2.0 → задание в processing."""
    job = await make_job(status=JobStatus.PUBLISHED)
    ack = for_job(example("result-message-processing.json"), job)
    outcome = await results.intake.handle(
        json.dumps(ack).encode(), {"Nats-Msg-Id": f"ack:{job.id}:1"}
    )
    assert outcome == IntakeOutcome.PROCESSING
    row = await reload(job.id)
    assert (row.status, row.service_name) == ("processing", ack["service"]["name"])


async def test_incompatible_request_version(
    results: ResultPublisher, make_job: Any, reload: Any
) -> None:
    """«Несовместимая версия запроса»: SCHEMA_MISMATCH без ack закрывает задание published → error."""
    job = await make_job(status=JobStatus.PUBLISHED)
    answer = for_job(example("result-message-error.json"), job)
    answer["error"] = {"code": "SCHEMA_MISMATCH", "message": "request MAJOR 2 is not supported"}
    outcome = await results.intake.handle(
        json.dumps(answer).encode(), {"Nats-Msg-Id": f"result:{job.id}:1"}
    )
    assert outcome == IntakeOutcome.FINISHED
    row = await reload(job.id)
    assert (row.status, row.error_code, row.started_at) == ("error", "SCHEMA_MISMATCH", None)


@pytest.fixture
def registry_v1_only(tmp_path: Path) -> Registry:
    """A registry of a core that knows only MAJOR 1: the .v1 schemas as the main files."""
    source = default_contracts_dir()
    for stem in ("recognition-result", "recognition-result-message"):
        shutil.copy(source / f"{stem}.v1.schema.json", tmp_path / f"{stem}.schema.json")
    shutil.copy(source / "recognition-request.schema.json", tmp_path)
    return Registry(tmp_path)


def _v2_result_with_null_code(job: RecognitionJob) -> dict[str, Any]:
    body = for_job(example("result-statement-minimal.json"), job)
    lines = body["documents"][0]["lines"]
    assert any(line["line_code"] is None for line in lines)
    return body


async def test_order_violated_v2_envelope(
    sessions: Sessions,
    storage: S3Storage,
    bucket: str,
    clock: FakeClock,
    registry_v1_only: Registry,
    make_job: Any,
    reload: Any,
) -> None:
    """«Порядок нарушен»: результат 2.0 с line_code = null ядру, знающему только 1.x → ERROR.

    The 2.0 envelope already fails: MAJOR 2 is unknown to this core.
    """
    handler = ResultFileHandler(S3ResultReader(storage), registry=registry_v1_only)
    intake = Intake(sessions, on_final=handler, clock=clock, registry=registry_v1_only)
    job = await make_job(status=JobStatus.PROCESSING)
    await ResultPublisher(intake, storage, bucket).deliver(job, _v2_result_with_null_code(job))
    row = await reload(job.id)
    assert (row.status, row.error_code) == ("error", MAPPING_ERROR)
    assert "unknown MAJOR 2" in row.metrics["mapping_error"]


async def test_order_violated_v2_file_under_a_v1_envelope(
    sessions: Sessions,
    storage: S3Storage,
    bucket: str,
    clock: FakeClock,
    registry_v1_only: Registry,
    make_job: Any,
    reload: Any,
) -> None:
    """«Порядок нарушен»: конверт 1.0 проходит, файл 2.0 с line_code = null — нет → ERROR.

    The file is checked as what it says it is; a core that knows only 1.x has no schema for
    it; no document is stored.
    """
    handler = ResultFileHandler(S3ResultReader(storage), registry=registry_v1_only)
    intake = Intake(sessions, on_final=handler, clock=clock, registry=registry_v1_only)
    job = await make_job(status=JobStatus.PROCESSING)
    publisher = ResultPublisher(intake, storage, bucket)
    await publisher.deliver(
        job, _v2_result_with_null_code(job), major=1, result_schema_version="1.2"
    )
    row = await reload(job.id)
    assert (row.status, row.error_code) == ("error", MAPPING_ERROR)
    assert row.metrics["mapping_error"]
    assert await count(sessions, Document) == 0


async def test_a_v2_file_read_as_v1_fails_on_the_null_code(
    results: ResultPublisher, make_job: Any, reload: Any
) -> None:
    """A 2.0 body relabelled "1.2" fails the 1.x schema: its null line_code is the reason."""
    job = await make_job(status=JobStatus.PROCESSING)
    body = for_job(example("result-statement-minimal.json"), job)
    body["schema_version"] = "1.2"
    await results.deliver(job, body, major=1)
    row = await reload(job.id)
    assert (row.status, row.error_code) == ("error", MAPPING_ERROR)
    assert "line_code" in row.metrics["mapping_error"]


# --- spec 001: the 1.x mapper ---------------------------------------------------------------


async def test_service_still_on_v1_2(
    results: ResultPublisher, make_job: Any, reload: Any, sessions: Sessions
) -> None:
    """«Сервис ещё на v1.2»: повтор кода — хранится первая строка, MAPPING_WARNING, файл не ERROR.

    The 1.2 workbook has 1230 twice and checks.duplicate_line_codes; the first line is kept,
    the second is not stored; the failed soft relation is a core issue; the job is done.
    """
    job = await make_job(status=JobStatus.PROCESSING)
    body = for_job(example("result-statement-excel.json", major=1), job)
    balance = body["documents"][0]
    assert balance["checks"]["duplicate_line_codes"] == ["1230"]
    first, second = [line for line in balance["lines"] if line["line_code"] == "1230"]
    await results.deliver(job, body)

    row = await reload(job.id)
    assert (row.status, row.error_code, row.statements_version) == ("done", None, None)
    stored = (await documents_of(sessions, job.id))[0]
    kept = [line for line in stored.lines if line.line_code == "1230"]
    assert len(kept) == 1
    assert [v.amount for v in kept[0].values] == [v["amount"] for v in first["values"]]
    assert [v.amount for v in kept[0].values] != [v["amount"] for v in second["values"]]
    assert len(stored.lines) == len(balance["lines"]) - 1
    warning = core_issues(stored, MAPPING_WARNING)
    assert [(w.severity, w.additional["details"]["line_code"]) for w in warning] == [
        ("info", "1230")
    ]
    soft = core_issues(stored, "SOFT_RELATION_FAILED")
    assert [i.additional["details"]["relation"] for i in soft] == [
        balance["checks"]["soft_relations_failed"][0]["relation"]
    ]
    assert stored.status == "done"  # no hard relation failed, every value clean (D-6)
    assert stored.producer_checks == balance["checks"]


async def test_v1_hard_relation_failure_is_a_core_issue_and_needs_check(
    results: ResultPublisher, make_job: Any, reload: Any, sessions: Sessions
) -> None:
    """«Сервис ещё на v1.2», нарушение §7: RELATION_FAILED от ядра, документ needs_check по D-6.

    The core recomputes the checks itself (the 1.x file's own checks claim none failed).
    """
    job = await make_job(status=JobStatus.PROCESSING)
    body = for_job(example("result-statement-excel.json", major=1), job)
    balance = body["documents"][0]
    line_1600 = next(line for line in balance["lines"] if line["line_code"] == "1600")
    line_1600["values"][0]["amount"] = "1"
    assert balance["checks"]["relations_failed"] == []
    await results.deliver(job, body)

    row = await reload(job.id)
    assert row.status == "needs_check"
    stored = (await documents_of(sessions, job.id))[0]
    failed = core_issues(stored, "RELATION_FAILED")
    assert failed and all("1600" in i.additional["details"]["codes"] for i in failed)
    assert {i.column_index for i in failed} == {line_1600["values"][0]["column_index"]}
    assert stored.status == "needs_check"
    assert stored.checks["relations_failed"]


@pytest.mark.parametrize(
    ("confidence", "is_recognized", "needs_review"),
    [(100, True, False), (None, True, False), (60, True, True), (100, False, True)],
)
async def test_clean_value_of_1x(
    results: ResultPublisher,
    make_job: Any,
    sessions: Sessions,
    confidence: int | None,
    is_recognized: bool,
    needs_review: bool,
) -> None:
    """«Чистое значение 1.x»: confidence 100 и is_recognized true → needs_review false; 60 → true.

    D-6 follows: one value that is not clean makes the document needs_check.
    """
    job = await make_job(status=JobStatus.PROCESSING)
    body = for_job(example("result-statement-excel.json", major=1), job)
    income = body["documents"][1]
    value = income["lines"][0]["values"][0]
    value["confidence"], value["is_recognized"] = confidence, is_recognized
    await results.deliver(job, body)

    stored = (await documents_of(sessions, job.id))[1]
    first_line: StatementLine = stored.lines[0]
    assert first_line.values[0].needs_review is needs_review
    assert first_line.needs_review is False
    assert stored.status == ("needs_check" if needs_review else "done")


async def test_v1_defaults_and_legacy_warnings(
    results: ResultPublisher, make_job: Any, reload: Any, sessions: Sessions
) -> None:
    """The 1.x defaults of spec 001 on every stored line, value and column; strings → LEGACY_WARNING."""
    job = await make_job(status=JobStatus.PROCESSING)
    body = for_job(example("result-statement-excel.json", major=1), job)
    await results.deliver(job, body)

    row = await reload(job.id)
    assert row.group_schema == body["group_schema"]
    assert row.statements_version is None
    legacy = [w for w in row.metrics["warnings"] if w["code"] == LEGACY_WARNING]
    assert {w["message"] for w in legacy} >= set(body["metrics"]["warnings"])
    assert all(w["severity"] == "info" for w in legacy)
    stored = await documents_of(sessions, job.id)
    assert [d.document_type for d in stored] == [d["document_type"] for d in body["documents"]]
    assert [d.file_ordinal for d in stored] == list(range(len(body["documents"])))
    assert [d.form_variant for d in stored] == ["full", "full", None, None]
    for document, source in zip(stored, body["documents"], strict=True):
        repeated = _repeated_line(source)
        kept = [i for i in range(len(source["lines"])) if i != repeated]
        assert [line.row_index for line in document.lines] == kept
        for line in document.lines:
            original = source["lines"][line.row_index]
            assert (line.ref, line.line_status, line.needs_review) == (None, "ok", False)
            assert line.line_code == line.line_code_original_value == original["line_code"]
            assert [v.text for v in line.values] == [v["string_value"] for v in original["values"]]
        for column, original in zip(document.columns, source["columns"], strict=True):
            expected = "absolute" if original["period_date"] else "none"
            assert column.period_kind == expected


def _repeated_line(document: dict[str, Any]) -> int | None:
    """Position of the first line whose code an earlier line already had."""
    seen: set[str] = set()
    for index, line in enumerate(document["lines"]):
        if line["line_code"] in seen:
            return index
        seen.add(line["line_code"])
    return None


# --- invalid result files -----------------------------------------------------------------


async def test_missing_result_object_is_a_mapping_error(
    results: ResultPublisher, make_job: Any, reload: Any
) -> None:
    """The envelope points at no object: ERROR with the reason, not retried."""
    job = await make_job(status=JobStatus.PROCESSING)
    await results.deliver(job, None, status="done", major=2)
    row = await reload(job.id)
    assert (row.status, row.error_code) == ("error", MAPPING_ERROR)
    assert "could not be read" in row.metrics["mapping_error"]


async def test_result_file_that_is_not_json_is_a_mapping_error(
    results: ResultPublisher, make_job: Any, reload: Any
) -> None:
    """Bytes that are not JSON: ERROR with metrics.mapping_error."""
    job = await make_job(status=JobStatus.PROCESSING)
    await results.deliver(job, b"\x00not json", status="done", major=2)
    row = await reload(job.id)
    assert (row.status, row.metrics["mapping_error"]) == ("error", "the result file is not JSON")


async def test_result_file_over_the_cap_is_a_mapping_error(
    sessions: Sessions,
    storage: S3Storage,
    bucket: str,
    clock: FakeClock,
    make_job: Any,
    reload: Any,
) -> None:
    """A result file larger than RESULT_MAX_BYTES is not read: ERROR, and the limit is named."""
    handler = ResultFileHandler(S3ResultReader(storage, max_bytes=100))
    intake = Intake(sessions, on_final=handler, clock=clock)
    job = await make_job(status=JobStatus.PROCESSING)
    await ResultPublisher(intake, storage, bucket).deliver(
        job, for_job(example("result-osv.json"), job)
    )
    row = await reload(job.id)
    assert row.status == "error"
    assert "100 bytes" in row.metrics["mapping_error"]


@pytest.mark.parametrize("key", ["job_id", "file_id"])
async def test_result_file_of_another_job_is_a_mapping_error(
    results: ResultPublisher, make_job: Any, reload: Any, sessions: Sessions, key: str
) -> None:
    """The file's job_id / file_id must be the envelope's."""
    job = await make_job(status=JobStatus.PROCESSING)
    body = for_job(example("result-osv.json"), job)
    body[key] = str(uuid.uuid4())
    await results.deliver(job, body)
    row = await reload(job.id)
    assert (row.status, row.metrics["mapping_error"]) == (
        "error",
        f"the result file's {key} is not the envelope's",
    )
    assert await count(sessions, Document) == 0


async def test_envelope_and_file_majors_must_agree(
    results: ResultPublisher, make_job: Any, reload: Any
) -> None:
    """A 1.0 envelope announcing 1.2 with a valid 2.0 file: the MAJORs differ → ERROR."""
    job = await make_job(status=JobStatus.PROCESSING)
    body = for_job(example("result-osv.json"), job)
    await results.deliver(job, body, major=1, result_schema_version="1.2")
    row = await reload(job.id)
    assert row.status == "error"
    assert "MAJORs differ" in row.metrics["mapping_error"]


async def test_invalid_v2_file_is_a_mapping_error(
    results: ResultPublisher, make_job: Any, reload: Any
) -> None:
    """A 2.0 file with document_type OTHER fails its schema: ERROR naming the path."""
    job = await make_job(status=JobStatus.PROCESSING)
    body = for_job(example("result-statement-excel.json"), job)
    body["documents"][2]["document_type"] = "OTHER"
    await results.deliver(job, body)
    row = await reload(job.id)
    assert row.status == "error"
    assert "documents/2" in row.metrics["mapping_error"]


# --- 2.0 -------------------------------------------------------------------------------------


async def test_v2_result_is_stored_as_the_file_says(
    results: ResultPublisher, make_job: Any, reload: Any, sessions: Sessions
) -> None:
    """A result accepted without an ack: the job records group_schema, statements_version and
    the file's warnings; every document comes back from the rows exactly as sent."""
    job = await make_job(status=JobStatus.PUBLISHED)
    body = for_job(example("result-statement-minimal.json"), job)
    await results.deliver(job, body)
    row = await reload(job.id)
    assert (row.status, row.group_schema, row.statements_version) == (
        "needs_check",
        "rsbu",
        body["service"]["statements_version"],
    )
    stored = await documents_of(sessions, job.id)
    assert [normalised_document(d) for d in stored] == body["documents"]


async def test_a_newer_minor_loses_nothing(
    results: ResultPublisher, make_job: Any, sessions: Sessions
) -> None:
    """A 2.7 file with keys 2.0 does not know, at every level, and optional keys sent as null:
    accepted (any MINOR), and every document comes back from the rows unchanged."""
    job = await make_job(status=JobStatus.PROCESSING)
    body = for_job(example("result-statement-excel.json"), job)
    body["schema_version"] = "2.7"
    balance, income = body["documents"][0], body["documents"][1]
    balance["review_hint"] = {"by": "model", "score": 0.5}
    balance["columns"][0]["currency"] = "RUB"
    balance["lines"][0]["indent"] = 1
    balance["lines"][0]["parent_ref"] = None
    balance["lines"][0]["values"][0]["cell_format"] = "# ##0"
    balance["warnings"].append(
        {"code": "NOTE", "severity": "info", "message": "m", "field": "okpo", "origin": "x"}
    )
    detail = next(line for line in income["lines"] if line["line_status"] == "detail")
    detail["footnote"] = None
    osv = for_job(example("result-osv.json"), job)["documents"][0]
    osv["rows"][0]["outline"] = 3
    osv["rows"][1].pop("extra")
    body["documents"].append(osv)
    body["group_schema"] = "mixed"
    outcome = await results.deliver(job, body, result_schema_version="2.7")
    assert outcome == IntakeOutcome.FINISHED

    stored = await documents_of(sessions, job.id)
    async with sessions() as session:
        rows = await load_osv_rows(session, stored[-1].id)
    rendered = [normalised_document(d) for d in stored[:-1]]
    rendered.append(normalised_document(stored[-1], rows))
    assert rendered == body["documents"]
