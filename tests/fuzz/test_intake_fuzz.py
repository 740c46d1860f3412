"""Fuzzing the core's intake with hypothesis: whatever arrives on the result subject, the intake
never crashes, and a job row changes only by a transition the design defines.

A real database (the session's: PostgreSQL in CI, SQLite otherwise), a fresh job in
`published` per example, and `Intake.handle` with the envelope's raw bytes and a Nats-Msg-Id.
The allowed outcome is derived from the message alone:
- not JSON / not an object / job_id missing, not a uuid or another job's → the row unchanged;
- a Nats-Msg-Id `ack:`/`result:<job_id>:<n>` naming another attempt → unchanged (stale);
- fails the envelope schema of its MAJOR, or names another file → error MAPPING_ERROR;
- a valid ack → processing; a valid error → error with its code; a valid done / needs_check →
  that status (the intake's default final handler records the status alone).
Nothing but the job row is written.

Text in the generated messages includes U+0000, which PostgreSQL cannot store in a text or
JSONB column: the intake keeps such text with the character replaced (services/arm_core/db/text.py).
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import re
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from services.arm_core.db import (
    JobStatus,
    RecognitionJob,
    StoredFile,
    create_engine,
    create_session_factory,
    migrate,
)
from services.arm_core.db.documents import Document
from services.arm_core.jobs._contract import envelope_problems
from services.arm_core.jobs.intake import Intake
from tests.fuzz._strategies import json_values, texts

pytestmark = [pytest.mark.db]

_ANSWER_ID = re.compile(r"^(?:ack|result):(?P<job>[^:]+):(?P<attempt>[0-9]+)$")
# Columns a defined transition may write; every other column must stay as it was.
_TRANSITION_COLUMNS = {
    "status",
    "error_code",
    "error_message",
    "metrics",
    "result_msg_id",
    "finished_at",
    "started_at",
    "next_attempt_at",
    "updated_at",
    "service_name",
    "service_version",
}
_ERROR_CODES = [
    "UNSUPPORTED_FORMAT",
    "UNREADABLE",
    "TIMEOUT",
    "SCHEMA_MISMATCH",
    "FILE_READ_ERROR",
    "UNKNOWN_ERROR",
]


@pytest.fixture(scope="module")
async def engine(database_url: str) -> AsyncIterator[AsyncEngine]:
    await migrate(database_url)
    eng = create_engine(database_url)
    try:
        yield eng
    finally:
        await eng.dispose()


@pytest.fixture(scope="module")
def sessions(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return create_session_factory(engine)


async def _published_job(sessions: async_sessionmaker[AsyncSession]) -> RecognitionJob:
    now = dt.datetime.now(dt.UTC)
    file_id, job_id = uuid.uuid4(), uuid.uuid4()
    file = StoredFile(
        id=file_id,
        original_name="fuzz.xlsx",
        file_type="XLSX",
        size=1,
        sha256="0" * 64,
        content_type="application/octet-stream",
        s3_bucket="uploads",
        s3_key=f"uploads/{file_id}/source.xlsx",
        created_at=now,
    )
    job = RecognitionJob(
        id=job_id,
        file_id=file_id,
        pipeline="tabular",
        attempt=1,
        status=JobStatus.PUBLISHED.value,
        request_subject="files.tabular_uploaded",
        request_msg_id=f"{job_id}:1",
        published_at=now,
        last_published_at=now,
        next_attempt_at=now + dt.timedelta(seconds=30),
        reply_deadline=now + dt.timedelta(minutes=10),
        republish_count=0,
        created_at=now,
        updated_at=now,
    )
    async with sessions() as session, session.begin():
        session.add_all([file, job])
    return job


async def _row(sessions: async_sessionmaker[AsyncSession], job_id: uuid.UUID) -> dict[str, Any]:
    async with sessions() as session:
        job = await session.get(RecognitionJob, job_id)
        assert job is not None
        return {c.key: getattr(job, c.key) for c in RecognitionJob.__table__.columns}


def _envelope(job_id: str, file_id: str, status: str, draw: st.DrawFn) -> dict[str, Any]:
    body: dict[str, Any] = {
        "schema_version": draw(st.sampled_from(["2.0", "2.3", "1.0"])),
        "job_id": job_id,
        "file_id": file_id,
        "status": status,
        "service": {"name": "tabular-parser", "version": "1.0.0"},
    }
    if status == "error":
        body["error"] = {
            "code": draw(st.sampled_from(_ERROR_CODES)),
            "message": draw(texts(30)),
        }
        body["metrics"] = {"duration_ms": draw(st.integers(0, 10_000)), "warnings": []}
    elif status in {"done", "needs_check"}:
        body["result_s3"] = {"bucket": "uploads", "key": f"results/{file_id}/{job_id}/result.json"}
        body["result_schema_version"] = body["schema_version"]
        body["metrics"] = {"duration_ms": draw(st.integers(0, 10_000)), "warnings": []}
    return body


_JSON = json_values(nul=False)
_MUTATIONS: dict[str, st.SearchStrategy[Any]] = {
    "schema_version": st.sampled_from(["3.0", "2", "", "two"]) | _JSON,
    "job_id": st.uuids().map(str) | texts(12) | _JSON,
    "file_id": st.uuids().map(str) | texts(12) | _JSON,
    "status": st.sampled_from(["processing", "done", "error", "queued", "DONE"]) | _JSON,
    "service": _JSON,
    "error": st.fixed_dictionaries({"code": texts(12), "message": texts(12)}) | _JSON,
    "metrics": st.fixed_dictionaries(
        {"duration_ms": st.integers(-5, 5), "warnings": st.lists(_JSON, max_size=2)}
    )
    | _JSON,
    "result_s3": _JSON,
    "group_schema": st.sampled_from(["osv", "rsbu", None]),
}


@st.composite
def messages(draw: st.DrawFn, job_id: str, file_id: str) -> tuple[bytes, dict[str, str]]:
    """A message for the job: a valid envelope, mutated or not, or junk; and its headers."""
    shape = draw(st.sampled_from(["envelope", "envelope", "envelope", "json", "bytes"]))
    if shape == "bytes":
        body = draw(st.binary(max_size=60))
    elif shape == "json":
        body = json.dumps(draw(_JSON)).encode()
    else:
        status = draw(st.sampled_from(["processing", "done", "needs_check", "error"]))
        envelope = _envelope(job_id, file_id, status, draw)
        for name in draw(st.lists(st.sampled_from(sorted(_MUTATIONS)), max_size=2, unique=True)):
            if draw(st.booleans()):
                envelope.pop(name, None)
            else:
                envelope[name] = draw(_MUTATIONS[name])
        body = json.dumps(envelope).encode()
    kind = draw(st.sampled_from(["ack", "result", "none", "junk"]))
    if kind == "none":
        return body, {}
    if kind == "junk":
        return body, {"Nats-Msg-Id": draw(texts(20))}
    attempt = draw(st.sampled_from([1, 1, 1, 2]))
    return body, {"Nats-Msg-Id": f"{kind}:{job_id}:{attempt}"}


def _expected(body: bytes, headers: dict[str, str], job_id: uuid.UUID, file_id: uuid.UUID) -> Any:
    """(status, error_code) the job must end with; None when it must stay unchanged."""
    try:
        envelope = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(envelope, dict):
        return None
    raw_id = envelope.get("job_id")
    try:
        if not isinstance(raw_id, str) or uuid.UUID(raw_id) != job_id:
            return None
    except ValueError:
        return None
    match = _ANSWER_ID.match(headers.get("Nats-Msg-Id", ""))
    if match and _same_uuid(match.group("job"), job_id) and int(match.group("attempt")) != 1:
        return None
    problems = envelope_problems(envelope)
    if not problems and not _same_uuid(envelope.get("file_id"), file_id):
        problems = ["file_id"]
    if problems:
        return ("error", "MAPPING_ERROR")
    status = envelope["status"]
    if status == "error":
        return ("error", envelope["error"]["code"])
    return (status, None)


def _same_uuid(value: object, expected: uuid.UUID) -> bool:
    try:
        return isinstance(value, str) and uuid.UUID(value) == expected
    except ValueError:
        return False


@st.composite
def _job_message(draw: st.DrawFn) -> tuple[str, str, bytes, dict[str, str]]:
    # Ids are fixed placeholders here and swapped for the real job's ids in the test.
    job_id, file_id = "00000000-0000-4000-8000-00000000000a", "00000000-0000-4000-8000-00000000000b"
    body, headers = draw(messages(job_id, file_id))
    return job_id, file_id, body, headers


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(example=_job_message())
async def test_intake_changes_a_job_only_by_a_defined_transition(
    sessions: async_sessionmaker[AsyncSession], example: tuple[str, str, bytes, dict[str, str]]
) -> None:
    """Any message for a published job: `handle` returns, and the job row is either unchanged
    or moved exactly as the design says (see the module docstring); no document is written."""
    placeholder_job, placeholder_file, raw, raw_headers = example
    job = await _published_job(sessions)
    body = raw.replace(placeholder_job.encode(), str(job.id).encode()).replace(
        placeholder_file.encode(), str(job.file_id).encode()
    )
    headers = {k: v.replace(placeholder_job, str(job.id)) for k, v in raw_headers.items()}
    before = await _row(sessions, job.id)
    async with sessions() as session:
        documents_before = await session.scalar(select(func.count()).select_from(Document))

    await Intake(sessions).handle(body, headers)

    after = await _row(sessions, job.id)
    expected = _expected(body, headers, job.id, job.file_id)
    event(f"outcome: {expected}")
    if expected is None:
        assert after == before
    else:
        status, error_code = expected
        assert after["status"] == status
        assert after["error_code"] == error_code
        changed = {k for k in before if before[k] != after[k]}
        assert changed <= _TRANSITION_COLUMNS, changed
        if status != "processing":
            assert after["finished_at"] is not None
            stored_id = (headers.get("Nats-Msg-Id") or "").replace("\x00", "\ufffd")
            assert after["result_msg_id"] == (stored_id or None)
    async with sessions() as session:
        assert await session.scalar(select(func.count()).select_from(Document)) == documents_before


async def test_a_second_final_message_changes_nothing(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    """After a final result, the same result, another result and a late ack leave the row
    exactly as the first result left it."""
    job = await _published_job(sessions)
    envelope: dict[str, Any] = {
        "schema_version": "2.0",
        "job_id": str(job.id),
        "file_id": str(job.file_id),
        "status": "error",
        "service": {"name": "tabular-parser", "version": "1.0.0"},
        "error": {"code": "UNREADABLE", "message": "damaged"},
    }
    intake = Intake(sessions)
    result_id = {"Nats-Msg-Id": f"result:{job.id}:1"}
    await intake.handle(json.dumps(envelope).encode(), result_id)
    closed = await _row(sessions, job.id)
    assert (closed["status"], closed["error_code"]) == ("error", "UNREADABLE")

    other = copy.deepcopy(envelope)
    other["error"] = {"code": "UNKNOWN_ERROR", "message": "another"}
    ack = {k: envelope[k] for k in ("schema_version", "job_id", "file_id", "service")}
    ack["status"] = "processing"
    await intake.handle(json.dumps(envelope).encode(), result_id)
    await intake.handle(json.dumps(other).encode(), {"Nats-Msg-Id": f"result:{job.id}:1"})
    await intake.handle(json.dumps(ack).encode(), {"Nats-Msg-Id": f"ack:{job.id}:1"})
    assert await _row(sessions, job.id) == closed


async def test_nul_in_an_error_message_is_stored_or_refused(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    """A schema-valid error envelope whose message holds U+0000 closes the job in error
    without the intake raising."""
    job = await _published_job(sessions)
    envelope = {
        "schema_version": "2.0",
        "job_id": str(job.id),
        "file_id": str(job.file_id),
        "status": "error",
        "service": {"name": "tabular-parser", "version": "1.0.0"},
        "error": {"code": "UNREADABLE", "message": "before\x00after"},
    }
    await Intake(sessions).handle(
        json.dumps(envelope).encode(), {"Nats-Msg-Id": f"result:{job.id}:1"}
    )
    row = await _row(sessions, job.id)
    assert row["status"] == "error"
    assert row["error_message"] == "before\ufffdafter"
