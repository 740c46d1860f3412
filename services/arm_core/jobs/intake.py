"""Intake of the result subject: acks, error results and final results.

Each message is checked against the envelope schema of its own MAJOR (1 or 2), then:
- `processing` (the ack): published → processing, with started_at and the service;
- `error`: published | processing → error with the service's error code and message;
- `done` / `needs_check`: handed to the final handler; the app plugs in
  `results.ResultFileHandler` (read, validate, map and store the result file), while
  `record_final_status` (the default here) records the status alone.
A `StagedFinalHandler` does its slow part (reading the result file from S3) before the write
transaction opens, so a slow S3 never holds a database connection or a row lock: a short
read-only look at the job first drops an unknown job, a duplicate or a stale attempt, and skips
the read for a job already final; the write transaction then re-reads the job and makes the
same checks again, which alone decide.
A result whose Nats-Msg-Id equals the job's result_msg_id is a duplicate and changes nothing; a
message whose Nats-Msg-Id (`ack:` / `result:<job_id>:<attempt>`) names another attempt than the
job's is stale and ignored; the guarded transitions make any late or repeated message a no-op. An envelope that fails its
schema (an unknown MAJOR included) closes the job in error with `metrics.mapping_error`; it is
not retried. A message without a usable job_id cannot be tied to anything and is dropped.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import uuid
from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.db.models import ACTIVE_STATUSES, JobStatus, RecognitionJob, utcnow
from services.arm_core.db.text import storable
from services.arm_core.db.transitions import accept_final, mark_processing
from services.arm_core.jobs._contract import envelope_problems
from services.arm_core.jobs.mapping import envelope_metrics
from services.contract import Registry, parse_version
from services.contract.models import result_message_v1, result_message_v2
from services.runtime.ids import MSG_ID_HEADER, parse_answer_msg_id, parse_uuid

__all__ = [
    "MAPPING_ERROR",
    "FinalResultHandler",
    "Intake",
    "IntakeOutcome",
    "StagedFinalHandler",
    "close_in_error",
    "record_final_status",
    "service_values",
]

MAPPING_ERROR = "MAPPING_ERROR"
"""error_code of a job closed because its result did not pass the contract."""

log = logging.getLogger("services.arm_core.jobs.intake")

_FINAL_RESULT = (JobStatus.DONE.value, JobStatus.NEEDS_CHECK.value)

Envelope = result_message_v1.RecognitionResultMessage | result_message_v2.RecognitionResultMessage
"""An envelope that passed its MAJOR's schema, as its generated model."""


class IntakeOutcome(StrEnum):
    """What the intake did with one message (for logs and tests)."""

    PROCESSING = "processing"
    FINISHED = "finished"
    INVALID = "invalid"
    DUPLICATE = "duplicate"
    STALE = "stale"
    IGNORED = "ignored"
    UNKNOWN_JOB = "unknown_job"
    DROPPED = "dropped"


class FinalResultHandler(Protocol):
    """Closes a job with a valid done / needs_check envelope, inside the intake's transaction.

    Returns False when the job was not moved (a guard refused: duplicate or late message).
    """

    async def __call__(
        self,
        session: AsyncSession,
        job: RecognitionJob,
        envelope: dict[str, Any],
        *,
        result_msg_id: str | None,
        now: dt.datetime,
    ) -> bool: ...


@runtime_checkable
class StagedFinalHandler(Protocol):
    """A final handler whose work that needs no database runs before the intake's transaction.

    `prepare` (reading and mapping the result file) is called with no database connection
    held, and only for a job that was still active when looked at; the `FinalResultHandler` it
    returns is then called inside the write transaction with the job as re-read there.
    """

    async def prepare(self, envelope: dict[str, Any]) -> FinalResultHandler: ...


async def record_final_status(
    session: AsyncSession,
    job: RecognitionJob,
    envelope: dict[str, Any],
    *,
    result_msg_id: str | None,
    now: dt.datetime,
) -> bool:
    """The minimal final handler: the envelope's status, service and metrics, no documents."""
    return await accept_final(
        session,
        job.id,
        status=JobStatus(envelope["status"]),
        result_msg_id=result_msg_id,
        now=now,
        values=service_values(job, envelope),
    )


async def close_in_error(
    session: AsyncSession,
    job: RecognitionJob,
    *,
    code: str,
    message: str,
    result_msg_id: str | None,
    now: dt.datetime,
    values: Mapping[str, Any] | None = None,
) -> bool:
    """Close `job` in error with `code` and `message` (and the other job columns in `values`);
    False when the guard refused (a duplicate or late message)."""
    return await accept_final(
        session,
        job.id,
        status=JobStatus.ERROR,
        result_msg_id=result_msg_id,
        now=now,
        values={**(values or {}), "error_code": code, "error_message": message},
    )


def service_values(job: RecognitionJob, envelope: Mapping[str, Any]) -> dict[str, Any]:
    """The job columns a final envelope fills: the service (kept from the ack) and metrics."""
    service = envelope.get("service") or {}
    values: dict[str, Any] = {
        "service_name": job.service_name or service.get("name"),
        "service_version": job.service_version or service.get("version"),
    }
    metrics = envelope_metrics(envelope.get("metrics"))
    if metrics is not None:
        values["metrics"] = metrics
    return values


class Intake:
    """Applies result-subject messages to jobs."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        on_final: FinalResultHandler | StagedFinalHandler = record_final_status,
        clock: Callable[[], dt.datetime] = utcnow,
        registry: Registry | None = None,
        reply_budget: Callable[[str], dt.timedelta] | None = None,
    ) -> None:
        self._sessions = sessions
        self._on_final = on_final
        self._clock = clock
        self._registry = registry
        self._reply_budget = reply_budget

    async def handle(self, body: bytes, headers: Mapping[str, str]) -> IntakeOutcome:
        """Apply one raw message; never raises for bad input (only for database failures)."""
        try:
            envelope = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            log.warning("result message dropped: not JSON")
            return IntakeOutcome.DROPPED
        if not isinstance(envelope, dict):
            log.warning("result message dropped: not a JSON object")
            return IntakeOutcome.DROPPED
        envelope = storable(envelope)
        job_id = parse_uuid(envelope.get("job_id"))
        if job_id is None:
            log.warning("result message dropped: job_id missing or not a uuid")
            return IntakeOutcome.DROPPED
        msg_id = storable(headers.get(MSG_ID_HEADER)) or None
        problems = envelope_problems(envelope, self._registry)
        prepared: FinalResultHandler | None = None
        if (
            isinstance(self._on_final, StagedFinalHandler)
            and not problems
            and envelope["status"] in _FINAL_RESULT
        ):
            # A short read-only look: what it refuses, the transaction would refuse too (a job
            # row never comes back, its attempt never changes, result_msg_id is set once).
            async with self._sessions() as session:
                snapshot = await _screened(session, job_id, msg_id)
            if isinstance(snapshot, IntakeOutcome):
                return snapshot
            if (
                snapshot.status in ACTIVE_STATUSES
                and parse_uuid(envelope.get("file_id")) == snapshot.file_id
            ):
                prepared = await self._on_final.prepare(envelope)
        async with self._sessions() as session, session.begin():
            job = await _screened(session, job_id, msg_id)
            if isinstance(job, IntakeOutcome):
                return job
            return await self._apply(session, job, envelope, msg_id, problems, prepared)

    async def _apply(
        self,
        session: AsyncSession,
        job: RecognitionJob,
        envelope: dict[str, Any],
        msg_id: str | None,
        problems: list[str],
        prepared: FinalResultHandler | None,
    ) -> IntakeOutcome:
        now = self._clock()
        if not problems and parse_uuid(envelope.get("file_id")) != job.file_id:
            problems = ["file_id does not match the job's file"]
        typed = None if problems else _typed(envelope)
        if typed is None and not problems:
            problems = ["the envelope cannot be read as its MAJOR's model"]
        if problems or typed is None:
            summary = "; ".join(problems)[:2000]
            log.warning("job %s: result message fails the contract: %s", job.id, summary)
            moved = await close_in_error(
                session,
                job,
                code=MAPPING_ERROR,
                message="the result message does not match the contract",
                result_msg_id=msg_id,
                now=now,
                values={"metrics": {"mapping_error": summary}},
            )
            return IntakeOutcome.INVALID if moved else IntakeOutcome.IGNORED
        status = JobStatus(typed.status)
        if status is JobStatus.PROCESSING:
            service = typed.service
            moved = await mark_processing(
                session,
                job.id,
                service_name=service.name,
                service_version=service.version,
                now=now,
                deadline_if_missing=(
                    now + self._reply_budget(job.pipeline) if self._reply_budget else None
                ),
            )
            if moved:
                log.info("job %s: acked by %s", job.id, service.name)
            return IntakeOutcome.PROCESSING if moved else IntakeOutcome.IGNORED
        if status is JobStatus.ERROR:
            error = typed.error  # required by the schema when status = error
            moved = await close_in_error(
                session,
                job,
                code=error.code if error is not None else MAPPING_ERROR,
                message=error.message if error is not None else "error envelope without error",
                result_msg_id=msg_id,
                now=now,
                values=service_values(job, envelope),
            )
        else:
            moved = await self._close_final(session, job, envelope, msg_id, now, prepared)
        if moved:
            log.info("job %s: closed with %s", job.id, status)
        return IntakeOutcome.FINISHED if moved else IntakeOutcome.IGNORED

    async def _close_final(
        self,
        session: AsyncSession,
        job: RecognitionJob,
        envelope: dict[str, Any],
        msg_id: str | None,
        now: dt.datetime,
        prepared: FinalResultHandler | None,
    ) -> bool:
        handler = prepared
        if handler is None:
            if isinstance(self._on_final, StagedFinalHandler):
                # Not prepared: the job was already final when looked at, and no transition
                # leaves a final state, so the guard refuses it (and S3 is spared).
                return False
            handler = self._on_final
        return await handler(session, job, envelope, result_msg_id=msg_id, now=now)


def _typed(envelope: dict[str, Any]) -> Envelope | None:
    """The generated model of an envelope that passed its schema; None for a MAJOR without one.

    The final handlers still get the dict: they read the result file it points at, which stays
    a raw document (decision 0012: a 40 MB result costs three times json.loads as a model).
    """
    version = parse_version(envelope.get("schema_version"))
    try:
        if version is not None and version[0] == 1:
            return result_message_v1.RecognitionResultMessage.model_validate(envelope)
        if version is not None and version[0] == 2:
            return result_message_v2.RecognitionResultMessage.model_validate(envelope)
    except ValueError:  # pydantic's ValidationError: the schema passed, the model did not
        return None
    return None


async def _screened(
    session: AsyncSession, job_id: uuid.UUID, msg_id: str | None
) -> RecognitionJob | IntakeOutcome:
    """The job a message applies to, or why it applies to none (unknown, duplicate, stale)."""
    job = await session.get(RecognitionJob, job_id)
    if job is None:
        log.warning("result message for unknown job %s dropped", job_id)
        return IntakeOutcome.UNKNOWN_JOB
    if msg_id is not None and job.result_msg_id == msg_id:
        log.info("job %s: duplicate result %s ignored", job_id, msg_id)
        return IntakeOutcome.DUPLICATE
    if _is_stale(msg_id, job):
        log.warning(
            "job %s: message %s is for another attempt than %d; ignored",
            job_id,
            msg_id,
            job.attempt,
        )
        return IntakeOutcome.STALE
    return job


def _is_stale(msg_id: str | None, job: RecognitionJob) -> bool:
    """Whether the Nats-Msg-Id names this job with another attempt (an earlier request's answer)."""
    parsed = parse_answer_msg_id(msg_id)
    if parsed is None or parsed.job_id != job.id:
        return False
    return parsed.attempt != job.attempt
