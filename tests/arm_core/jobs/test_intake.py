"""Intake of acks and results: validation by MAJOR, dedup by Nats-Msg-Id, guarded moves."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.db import JobStatus, RecognitionJob
from services.arm_core.jobs.intake import MAPPING_ERROR, Intake, IntakeOutcome
from tests.support.core import FakeClock

pytestmark = pytest.mark.db


@pytest.fixture
def intake(sessions: async_sessionmaker[AsyncSession], clock: FakeClock) -> Intake:
    return Intake(sessions, clock=clock)


def raw(body: Any) -> bytes:
    return json.dumps(body).encode()


@pytest.mark.parametrize("major", [1, 2])
async def test_ack_moves_published_to_processing(
    intake: Intake, make_job: Any, reload: Any, envelope: Any, clock: FakeClock, major: int
) -> None:
    """A 1.0 or 2.0 processing envelope: published → processing with started_at and service."""
    job = await make_job(status=JobStatus.PUBLISHED)
    outcome = await intake.handle(
        raw(envelope(job, "processing", major=major)), {"Nats-Msg-Id": f"ack:{job.id}:1"}
    )
    assert outcome == IntakeOutcome.PROCESSING
    row = await reload(job.id)
    assert (row.status, row.started_at, row.service_name, row.service_version) == (
        "processing",
        clock.now,
        "tabular-parser",
        "1.4.2",
    )


async def test_a_repeated_ack_changes_nothing(
    intake: Intake, make_job: Any, reload: Any, envelope: Any, clock: FakeClock
) -> None:
    """The second ack (a re-sent request was acked again) keeps the first started_at."""
    job = await make_job(status=JobStatus.PUBLISHED)
    body = raw(envelope(job, "processing"))
    await intake.handle(body, {"Nats-Msg-Id": f"ack:{job.id}:1"})
    first = clock.now
    clock.advance(5)
    assert await intake.handle(body, {"Nats-Msg-Id": f"ack:{job.id}:1"}) == IntakeOutcome.IGNORED
    assert (await reload(job.id)).started_at == first


@pytest.mark.parametrize("start", [JobStatus.PUBLISHED, JobStatus.PROCESSING])
async def test_error_envelope_closes_the_job(
    intake: Intake,
    make_job: Any,
    reload: Any,
    envelope: Any,
    clock: FakeClock,
    start: JobStatus,
) -> None:
    """An error result records status error, the code, the message and finished_at."""
    job = await make_job(status=start)
    body = envelope(job, "error", metrics={"duration_ms": 5, "warnings": []})
    outcome = await intake.handle(raw(body), {"Nats-Msg-Id": f"result:{job.id}:1"})
    assert outcome == IntakeOutcome.FINISHED
    row = await reload(job.id)
    assert (row.status, row.error_code, row.error_message, row.finished_at) == (
        "error",
        "UNREADABLE",
        "the workbook is damaged",
        clock.now,
    )
    assert row.result_msg_id == f"result:{job.id}:1"
    assert row.metrics == {"duration_ms": 5, "warnings": []}


async def test_a_1_0_error_envelope_stores_its_string_warnings_as_legacy_structures(
    intake: Intake, make_job: Any, reload: Any, envelope: Any
) -> None:
    """spec 001: any 1.x input's string `metrics.warnings` become
    {code: LEGACY_WARNING, severity: info, message} in the job's metrics; an error envelope
    (no result file to map) included. Its other metrics stay as sent."""
    job = await make_job(status=JobStatus.PROCESSING)
    body = envelope(
        job,
        "error",
        major=1,
        metrics={"duration_ms": 7, "warnings": ["лист «Справка» пропущен", "OCR: стр. 2"]},
    )
    outcome = await intake.handle(raw(body), {"Nats-Msg-Id": f"result:{job.id}:1"})
    assert outcome == IntakeOutcome.FINISHED
    row = await reload(job.id)
    assert (row.status, row.error_code) == ("error", "UNREADABLE")
    assert row.metrics == {
        "duration_ms": 7,
        "warnings": [
            {"code": "LEGACY_WARNING", "severity": "info", "message": "лист «Справка» пропущен"},
            {"code": "LEGACY_WARNING", "severity": "info", "message": "OCR: стр. 2"},
        ],
    }


async def test_schema_mismatch_without_ack_closes_a_published_job(
    intake: Intake, make_job: Any, reload: Any, envelope: Any
) -> None:
    """SCHEMA_MISMATCH is the answer itself: published → error, no ack needed."""
    job = await make_job(status=JobStatus.PUBLISHED)
    body = envelope(
        job, "error", error={"code": "SCHEMA_MISMATCH", "message": "unknown request MAJOR"}
    )
    await intake.handle(raw(body), {"Nats-Msg-Id": f"result:{job.id}:1"})
    row = await reload(job.id)
    assert (row.status, row.error_code) == ("error", "SCHEMA_MISMATCH")


@pytest.mark.parametrize("final", ["done", "needs_check"])
async def test_final_result_sets_the_status_even_without_an_ack(
    intake: Intake, make_job: Any, reload: Any, envelope: Any, final: str
) -> None:
    """A result that arrives before (or without) the ack is accepted in published."""
    job = await make_job(status=JobStatus.PUBLISHED)
    outcome = await intake.handle(raw(envelope(job, final)), {"Nats-Msg-Id": f"result:{job.id}:1"})
    assert outcome == IntakeOutcome.FINISHED
    row = await reload(job.id)
    assert (row.status, row.service_name) == (final, "tabular-parser")


async def test_a_result_delivered_twice_changes_the_job_once(
    intake: Intake, make_job: Any, reload: Any, envelope: Any, clock: FakeClock
) -> None:
    """The second delivery (same Nats-Msg-Id) is recognised as a duplicate."""
    job = await make_job(status=JobStatus.PROCESSING)
    body = raw(envelope(job, "done"))
    headers = {"Nats-Msg-Id": f"result:{job.id}:1"}
    assert await intake.handle(body, headers) == IntakeOutcome.FINISHED
    finished = clock.now
    clock.advance(10)
    assert await intake.handle(body, headers) == IntakeOutcome.DUPLICATE
    row = await reload(job.id)
    assert (row.status, row.finished_at) == ("done", finished)


async def test_a_late_ack_does_not_reopen_a_finished_job(
    intake: Intake, make_job: Any, reload: Any, envelope: Any
) -> None:
    """An ack that arrives after the result leaves the job done."""
    job = await make_job(status=JobStatus.PUBLISHED)
    await intake.handle(raw(envelope(job, "done")), {"Nats-Msg-Id": f"result:{job.id}:1"})
    await intake.handle(raw(envelope(job, "processing")), {"Nats-Msg-Id": f"ack:{job.id}:1"})
    assert (await reload(job.id)).status == "done"


async def test_a_result_after_timeout_is_ignored(
    intake: Intake, make_job: Any, reload: Any, envelope: Any
) -> None:
    """timeout is final: a late result does not change it."""
    job = await make_job(status=JobStatus.TIMEOUT)
    outcome = await intake.handle(raw(envelope(job, "done")), {"Nats-Msg-Id": f"result:{job.id}:1"})
    assert outcome == IntakeOutcome.IGNORED
    assert (await reload(job.id)).status == "timeout"


async def test_an_unknown_major_closes_the_job_with_a_mapping_error(
    intake: Intake, make_job: Any, reload: Any, envelope: Any
) -> None:
    """A 3.0 envelope fails validation: error with metrics.mapping_error, no retry."""
    job = await make_job(status=JobStatus.PROCESSING)
    body = envelope(job, "done", schema_version="3.0")
    assert await intake.handle(raw(body), {"Nats-Msg-Id": f"result:{job.id}:1"}) == (
        IntakeOutcome.INVALID
    )
    row = await reload(job.id)
    assert (row.status, row.error_code) == ("error", MAPPING_ERROR)
    assert row.metrics is not None and row.metrics["mapping_error"]


async def test_group_schema_in_an_envelope_is_invalid(
    intake: Intake, make_job: Any, reload: Any, envelope: Any
) -> None:
    """The 2.0 envelope must not carry group_schema."""
    job = await make_job(status=JobStatus.PROCESSING)
    await intake.handle(raw(envelope(job, "done", group_schema="osv")), {})
    assert (await reload(job.id)).error_code == MAPPING_ERROR


async def test_an_envelope_for_another_file_is_invalid(
    intake: Intake, make_job: Any, reload: Any, envelope: Any
) -> None:
    """A job_id with a foreign file_id is not applied as a result."""
    job = await make_job(status=JobStatus.PROCESSING)
    await intake.handle(raw(envelope(job, "done", file_id=str(uuid.uuid4()))), {})
    row = await reload(job.id)
    assert (row.status, row.error_code) == ("error", MAPPING_ERROR)


@pytest.mark.parametrize(
    "body",
    [b"not json", b"[1, 2]", raw({"job_id": "not-a-uuid"}), raw({"status": "done"})],
)
async def test_unreadable_messages_are_dropped(
    intake: Intake, make_job: Any, reload: Any, body: bytes
) -> None:
    """No job can be tied to the message: nothing changes."""
    job = await make_job(status=JobStatus.PUBLISHED)
    assert await intake.handle(body, {}) == IntakeOutcome.DROPPED
    assert (await reload(job.id)).status == "published"


async def test_a_message_for_an_unknown_job_is_dropped(intake: Intake, envelope: Any) -> None:
    """A valid envelope for a job this core does not know changes nothing."""

    class Ghost:
        id = uuid.uuid4()
        file_id = uuid.uuid4()

    assert await intake.handle(raw(envelope(Ghost, "done")), {}) == IntakeOutcome.UNKNOWN_JOB


async def test_custom_final_handler_is_called_for_done(
    sessions: async_sessionmaker[AsyncSession], make_job: Any, envelope: Any, clock: FakeClock
) -> None:
    """The final-result seam receives done / needs_check envelopes with the msg id."""
    seen: list[tuple[uuid.UUID, str, str | None]] = []

    async def on_final(
        session: AsyncSession,
        job: RecognitionJob,
        envelope: dict[str, Any],
        *,
        result_msg_id: str | None,
        now: dt.datetime,
    ) -> bool:
        seen.append((job.id, envelope["status"], result_msg_id))
        return True

    job = await make_job(status=JobStatus.PROCESSING)
    intake = Intake(sessions, on_final=on_final, clock=clock)
    await intake.handle(raw(envelope(job, "needs_check")), {"Nats-Msg-Id": "result:x:1"})
    assert seen == [(job.id, "needs_check", "result:x:1")]
