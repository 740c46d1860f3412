"""The request protocol both recognition services run, written once (spec 001, spec 002).

One request in, at most one ack and one result out, in this order:

1. Parse: not JSON / not an object / no `job_id` in the canonical uuid form
   (services.runtime.ids) → nothing published (logged, dropped).
2. Decide: a body that fails the request schema (or has an unknown MAJOR, or names the other
   pipeline) is answered with error SCHEMA_MISMATCH and no ack — unless this process already
   took that job (then nothing: the answer's message id would shadow the real result), or no
   valid `file_id` / attempt can be had (then nothing). A body that passed is read into its
   generated model (`RecognitionRequest`), and the `Job` is built from that.
3. Ack: a valid request is acked (`status = processing`) on arrival, BEFORE the object is
   read (the ack's publish runs beside the next admissions; `run` waits for it first); a
   repeat of a request waiting, in work or done is acked again and goes no further.
   `admit` ends here and hands back the job (`Admitted`); the service queues it
   (services.runtime.backlog) and `run`s it when a worker is free, in arrival order.
4. Work: file type check; the reply_deadline rule (passed before the object is read or before
   recognition starts → TIMEOUT, nothing parsed: a backlog drains instead of producing results
   nobody waits for); S3 read (size-capped), pre-recognition checks, the `Recognizer`;
   every failure becomes an error envelope with its code; nothing kills the service.
5. Result: the result file `results/{file_id}/{job_id}/result.json` is written, then the
   envelope is published. Errors write no result file (`result_s3` is optional for them).

`handle` is `admit` then `run` in one call (the in-memory tests and the fuzzer use it).
What differs between services is their `ProtocolRules` (name, pipeline, file types, the OQ-71
attempt policy, pre-recognition checks) and the plugged `Recognizer`. The bodies are built in
services.runtime.envelopes; publishing retries and the `Nats-Msg-Id` rule live in the broker
middleware (services.runtime.messaging), which raises `PublishGaveUp` when it gives up.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from pydantic import ValidationError

from services.contract import Kind, validate
from services.contract.models.request_v1 import RecognitionRequest
from services.runtime._protocol_memory import JobMemory, JobState
from services.runtime._protocol_policy import (
    AttemptPolicy,
    attempt_from_body_or_header,
    attempt_from_body_or_one,
)
from services.runtime.envelopes import (
    RESULT_SCHEMA_VERSION,
    ServiceInfo,
    ack_envelope,
    error_envelope,
    result_envelope,
    result_file,
    result_file_bytes,
    result_key,
)
from services.runtime.exceptions import ObjectTooLarge, PublishGaveUp, StorageError
from services.runtime.ids import MSG_ID_HEADER, msg_id, parse_uuid
from services.runtime.recognizer import (
    EncodedRecognition,
    ErrorCode,
    Job,
    Recognition,
    RecognitionFailed,
    Recognizer,
    recognize_checked,
)

__all__ = [
    "MSG_ID_HEADER",
    "RESULT_SCHEMA_VERSION",
    "Admitted",
    "AttemptPolicy",
    "JobMemory",
    "JobState",
    "ObjectStore",
    "PreCheck",
    "ProtocolConfig",
    "ProtocolRules",
    "Publish",
    "RequestProtocol",
    "RequestValidator",
    "ServiceInfo",
    "attempt_from_body_or_header",
    "attempt_from_body_or_one",
    "contract_request_problems",
    "result_file",
    "result_file_bytes",
    "result_key",
]

_JSON_CONTENT_TYPE = "application/json; charset=utf-8"
Pipeline = Literal["tabular", "image"]

_log = logging.getLogger(__name__)


class Publish(Protocol):
    """Publish one body on the result subject with its `Nats-Msg-Id`.

    The broker middleware retries with the same id and logs when retries are exhausted; an
    exception that still escapes is logged by the protocol and never ends the service.
    """

    def __call__(self, body: dict[str, Any], msg_id: str) -> Awaitable[None]: ...


class ObjectStore(Protocol):
    """The part of `services.runtime.storage.S3Storage` the protocol uses."""

    async def get_bytes(self, bucket: str, key: str, max_bytes: int) -> bytes: ...

    async def put_bytes(
        self, bucket: str, key: str, data: bytes, *, content_type: str = ...
    ) -> None: ...


RequestValidator = Callable[[dict[str, Any]], list[str]]
"""Contract problems of a request body (schema and MAJOR); an empty list means valid."""

PreCheck = Callable[[Job], Awaitable[None]]
"""Runs after the ack and the S3 read, right before recognition; raise `RecognitionFailed`
to end the job. (The reply_deadline rule is the protocol's own, for every service.)"""


@dataclass(frozen=True, slots=True, eq=False)
class Admitted:
    """A valid new request, marked taken here, its ack on the way: the work still to do."""

    job: Job
    started: float
    """The clock reading at its arrival: waiting counts in `duration_ms`."""
    ack: asyncio.Future[None]
    """The ack's publish (confirmed by a flush); the object is read only once it is done."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ProtocolRules:
    """What makes the shared protocol one service's protocol: its name (the queue group), the
    pipeline and file types it serves, the OQ-71 attempt policy and its pre-recognition checks.
    `services.runtime.service.ServiceSpec` is these rules plus what the app adds (subject
    role, AsyncAPI texts)."""

    name: str
    pipeline: Pipeline
    file_types: frozenset[str]
    attempt_policy: AttemptPolicy
    pre_checks: Sequence[PreCheck] = ()


@dataclass(frozen=True, slots=True)
class ProtocolConfig:
    """One service's rules with its running version and the limits its settings give."""

    rules: ProtocolRules
    version: str
    max_object_bytes: int
    results_bucket: str | None = None
    seen_jobs_max: int = 10_000
    seen_jobs_max_age_seconds: float = 24 * 3600.0

    @property
    def service(self) -> ServiceInfo:
        """`service {name, version}` of this service's envelopes and result files."""
        return ServiceInfo(self.rules.name, self.version)


def contract_request_problems(body: dict[str, Any]) -> list[str]:
    """The contract registry's verdict on a request (the schema of the body's own MAJOR)."""
    return [str(problem) for problem in validate(Kind.REQUEST, body)]


class RequestProtocol:
    """Handles request messages of one service; see the module docstring for the order."""

    def __init__(
        self,
        config: ProtocolConfig,
        *,
        recognizer: Recognizer,
        storage: ObjectStore,
        publish: Publish,
        validate_request: RequestValidator | None = None,
        logger: logging.Logger | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC),
    ) -> None:
        self.config = config
        self._recognizer = recognizer
        self._storage = storage
        self._publish = publish
        self._validate = validate_request or contract_request_problems
        self._log = logger or _log
        self._clock = clock
        self._wall_clock = wall_clock
        self._acks: set[asyncio.Future[None]] = set()
        self.memory = JobMemory(
            max_done=config.seen_jobs_max,
            max_age_seconds=config.seen_jobs_max_age_seconds,
            clock=clock,
        )

    # -- entry point -------------------------------------------------------------------------

    async def handle(self, body: bytes, headers: Mapping[str, str] | None = None) -> None:
        """Answer one request message as the contract table says, the work included (`admit`
        then `run`); never raises (but cancel)."""
        admitted = await self.admit(body, headers)
        if admitted is not None:
            await self.run(admitted)

    async def admit(
        self,
        body: bytes,
        headers: Mapping[str, str] | None = None,
        *,
        backlog_full: int | None = None,
    ) -> Admitted | None:
        """Everything up to the ack; the job to `run` when the request is valid and new.

        `backlog_full` (the service's BACKLOG_MAX, given when that many jobs already wait): a
        valid new request is still acked, then answered TIMEOUT at once. Never raises (but
        cancel); a returned job is marked in work until `run` ends.
        """
        started = self._clock()
        request_msg_id = _header(headers, MSG_ID_HEADER)
        try:
            return await self._admit(body, request_msg_id, started, backlog_full)
        except asyncio.CancelledError:
            raise
        except Exception:
            self._log.exception("request (Nats-Msg-Id %r) failed unexpectedly", request_msg_id)
            return None

    async def run(self, admitted: Admitted) -> None:
        """The work of an admitted job up to its result; never raises (but cancel: the
        canceller names the abandoned job, as the service does at shutdown)."""
        job = admitted.job
        try:
            await admitted.ack  # the ack goes out before the object is read (spec 001)
            await self._process(job, admitted.started)
        except asyncio.CancelledError:
            raise
        except Exception:
            self._log.exception("job %s attempt %d failed unexpectedly", job.job_id, job.attempt)
        finally:
            self.memory.finish(job.job_id, job.attempt)

    async def acks_sent(self) -> None:
        """Until every ack published so far is out (or given up by the retry middleware)."""
        await asyncio.gather(*list(self._acks), return_exceptions=True)

    def jobs_in_work(self) -> list[tuple[uuid.UUID, int]]:
        """(job_id, attempt) of the requests being processed now."""
        return self.memory.in_work()

    # -- decisions ---------------------------------------------------------------------------

    async def _admit(
        self,
        body: bytes,
        request_msg_id: str | None,
        started: float,
        backlog_full: int | None,
    ) -> Admitted | None:
        doc = _json_object(body)
        if doc is None:
            self._log.warning(
                "request dropped: not a JSON object (Nats-Msg-Id %r, %d bytes)",
                request_msg_id,
                len(body),
            )
            return None
        job_id = parse_uuid(doc.get("job_id"))
        if job_id is None:
            self._log.warning(
                "request dropped: job_id missing or not a uuid (Nats-Msg-Id %r)", request_msg_id
            )
            return None

        problems = self._problems(doc)
        if problems:
            await self._answer_mismatch(doc, job_id, request_msg_id, problems, started)
            return None

        try:
            job = _job(RecognitionRequest.model_validate(doc))
        except ValidationError as exc:
            # The schema is the judge; a value its model still cannot read (a MINOR laxer
            # than the model) is a mismatch too. Only field names travel, never values.
            problems = [f"unreadable request field: {_fields(exc)}"]
            await self._answer_mismatch(doc, job_id, request_msg_id, problems, started)
            return None
        state = self.memory.state(job.job_id, job.attempt)
        if state is not None:
            self._log.info(
                "job %s attempt %d is %s: ack again, no second processing",
                job.job_id,
                job.attempt,
                state.value,
            )
            await self._send(self._ack(job), msg_id("ack", job.job_id, job.attempt))
            return None

        # Marked before the first await, so a repeat that arrives meanwhile sees it. The ack
        # is not awaited here: the next request is admitted while this ack's flush is on its
        # way, so a burst's acks share round trips instead of queueing one behind the other.
        self.memory.start(job.job_id, job.attempt)
        ack = asyncio.ensure_future(
            self._send(self._ack(job), msg_id("ack", job.job_id, job.attempt))
        )
        self._acks.add(ack)
        ack.add_done_callback(self._acks.discard)
        admitted = Admitted(job, started, ack)
        try:
            # Answered at once, never queued: a deadline already passed, or no room to wait.
            # A full backlog ends the job (the core closes it, an analyst sends it again)
            # rather than leaving it unacked (republish, then NO_ACK) or holding unbounded memory.
            self._check_deadline(job, "the request arrived", started)
            if backlog_full is not None:
                raise RecognitionFailed(
                    ErrorCode.TIMEOUT,
                    f"not started: {backlog_full} jobs already wait in "
                    f"{self.config.service.name} (BACKLOG_MAX); send the file again later",
                )
        except RecognitionFailed as failure:
            await self._answer_now(admitted, failure)
            return None
        return admitted

    async def _answer_now(self, admitted: Admitted, failure: RecognitionFailed) -> None:
        """The final error of an acked job that is not queued."""
        job = admitted.job
        self._log.warning("job %s attempt %d: %s", job.job_id, job.attempt, failure.message)
        try:
            await admitted.ack
            answer = self._error(job, failure, [], admitted.started)
            await self._send(answer, msg_id("result", job.job_id, job.attempt))
        finally:
            self.memory.finish(job.job_id, job.attempt)

    def _problems(self, doc: dict[str, Any]) -> list[str]:
        problems = list(self._validate(doc))
        pipeline = doc.get("pipeline")
        if not problems and pipeline != self.config.rules.pipeline:
            problems.append(
                f"pipeline {pipeline!r} is not served by {self.config.service.name} "
                f"({self.config.rules.pipeline!r})"
            )
        return problems

    async def _answer_mismatch(
        self,
        doc: dict[str, Any],
        job_id: uuid.UUID,
        request_msg_id: str | None,
        problems: list[str],
        started: float,
    ) -> None:
        summary = "; ".join(problems[:5])
        if self.memory.knows_job(job_id):
            self._log.warning(
                "request for job %s dropped: fails the contract (%s) but the job is already "
                "taken by this process",
                job_id,
                summary,
            )
            return
        file_id = parse_uuid(doc.get("file_id"))
        if file_id is None:
            self._log.warning(
                "request for job %s dropped: fails the contract (%s) and file_id is missing "
                "or not a uuid",
                job_id,
                summary,
            )
            return
        attempt = self.config.rules.attempt_policy(doc.get("attempt"), request_msg_id, job_id)
        if attempt is None:
            self._log.warning(
                "request for job %s dropped: fails the contract (%s) and no attempt in the "
                "body or in Nats-Msg-Id %r",
                job_id,
                summary,
                request_msg_id,
            )
            return
        self._log.warning("job %s attempt %d: SCHEMA_MISMATCH (%s)", job_id, attempt, summary)
        mismatch = RecognitionFailed(
            ErrorCode.SCHEMA_MISMATCH, f"the request does not match the contract: {summary}"
        )
        answer = error_envelope(
            job_id, file_id, self.config.service, mismatch, self._elapsed_ms(started)
        )
        await self._send(answer, msg_id("result", job_id, attempt))

    # -- the work ----------------------------------------------------------------------------

    async def _process(self, job: Job, started: float) -> None:
        warnings: list[dict[str, Any]] | None = None
        try:
            recognition = await self._recognize(job, started)
            warnings = recognition.warnings
            answer = await self._write_result(job, recognition, started)
        except RecognitionFailed as failure:
            self._log.info("job %s attempt %d: error %s", job.job_id, job.attempt, failure)
            answer = self._error(job, failure, warnings, started)
        except Exception as exc:
            self._log.exception("job %s attempt %d: unexpected failure", job.job_id, job.attempt)
            unknown = RecognitionFailed(
                ErrorCode.UNKNOWN_ERROR, f"unexpected {type(exc).__name__} while processing"
            )
            answer = self._error(job, unknown, warnings or [], started)
        await self._send(answer, msg_id("result", job.job_id, job.attempt))

    def _check_deadline(self, job: Job, before: str, started: float) -> None:
        """The reply_deadline rule of both services: nobody waits for a result past it."""
        if job.reply_deadline > self._wall_clock():
            return
        waited = self._clock() - started
        raise RecognitionFailed(
            ErrorCode.TIMEOUT,
            f"reply_deadline {job.reply_deadline.isoformat()} passed before {before} "
            f"(the job was {waited:.1f} s in {self.config.service.name})",
        )

    async def _recognize(self, job: Job, started: float) -> Recognition | EncodedRecognition:
        if job.file_type not in self.config.rules.file_types:
            raise RecognitionFailed(
                ErrorCode.UNSUPPORTED_FORMAT,
                f"file type {job.file_type} is not handled by {self.config.service.name} "
                f"(handles {', '.join(sorted(self.config.rules.file_types))})",
            )
        self._check_deadline(job, "the file was read", started)
        data = await self._read(job)
        self._check_deadline(job, "recognition started", started)
        for check in self.config.rules.pre_checks:
            await check(job)
        try:
            return await recognize_checked(self._recognizer, data, job)
        except RecognitionFailed as failure:
            if failure.__cause__ is not None:  # the recogniser raised something else
                self._log.error("job %s: recogniser raised", job.job_id, exc_info=failure.__cause__)
            raise

    async def _read(self, job: Job) -> bytes:
        try:
            return await self._storage.get_bytes(
                job.bucket, job.key, max_bytes=self.config.max_object_bytes
            )
        except ObjectTooLarge as exc:
            raise RecognitionFailed(
                ErrorCode.FILE_READ_ERROR,
                f"object {job.bucket}/{job.key} is larger than {self.config.max_object_bytes} bytes",
            ) from exc
        except StorageError as exc:
            raise RecognitionFailed(
                ErrorCode.FILE_READ_ERROR, f"object {job.bucket}/{job.key} cannot be read: {exc}"
            ) from exc

    async def _write_result(
        self, job: Job, recognition: Recognition | EncodedRecognition, started: float
    ) -> dict[str, Any]:
        bucket = self.config.results_bucket or job.bucket
        key = result_key(job)
        duration_ms = self._elapsed_ms(started)
        # Off the loop either way: encoding dicts (a stub, scan-gateway) costs CPU, and even
        # joining a worker's pre-encoded parts copies tens of MB, time an ack would wait for.
        data = await asyncio.to_thread(
            result_file_bytes, job, recognition, self.config.service, duration_ms
        )
        try:
            await self._storage.put_bytes(bucket, key, data, content_type=_JSON_CONTENT_TYPE)
        except StorageError as exc:
            self._log.error(
                "job %s: result file %s/%s not written: %s", job.job_id, bucket, key, exc
            )
            raise RecognitionFailed(
                ErrorCode.UNKNOWN_ERROR, f"the result file could not be written to {bucket}"
            ) from exc
        return result_envelope(
            job, recognition, self.config.service, bucket=bucket, duration_ms=duration_ms
        )

    # -- bodies ------------------------------------------------------------------------------

    def _ack(self, job: Job) -> dict[str, Any]:
        return ack_envelope(job, self.config.service)

    def _error(
        self,
        job: Job,
        failed: RecognitionFailed,
        warnings: list[dict[str, Any]] | None,
        started: float,
    ) -> dict[str, Any]:
        """`warnings` None: the ones `failed` carries."""
        return error_envelope(
            job.job_id,
            job.file_id,
            self.config.service,
            failed,
            self._elapsed_ms(started),
            warnings,
        )

    async def _send(self, body: dict[str, Any], msg_id: str) -> None:
        try:
            await self._publish(body, msg_id)
        except asyncio.CancelledError:
            raise
        except PublishGaveUp:
            pass  # the retry middleware wrote its error line; the service goes on
        except Exception:
            self._log.exception("publishing %s failed; the service goes on", msg_id)

    def _elapsed_ms(self, started: float) -> int:
        return max(0, round((self._clock() - started) * 1000))


# -- parsing helpers ---------------------------------------------------------------------------


def _header(headers: Mapping[str, str] | None, name: str) -> str | None:
    if not headers:
        return None
    value = headers.get(name)
    if value is None:
        lowered = name.lower()
        value = next((v for k, v in headers.items() if k.lower() == lowered), None)
    return value if isinstance(value, str) else None


def _json_object(body: bytes) -> dict[str, Any] | None:
    try:
        doc = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    return doc if isinstance(doc, dict) else None


def _job(request: RecognitionRequest) -> Job:
    """A `Job` from the typed request (the body passed the schema first); the deadline keeps
    its offset (aware datetimes compare across offsets, a conversion could overflow)."""
    return Job(
        job_id=request.job_id,
        file_id=request.file_id,
        attempt=request.attempt,
        file_type=request.file_type,
        original_name=request.original_name,
        bucket=request.s3.bucket,
        key=request.s3.key,
        reply_deadline=request.reply_deadline,
    )


def _fields(exc: ValidationError) -> str:
    """The fields a model refused, without their values (they are the sender's input)."""
    where = {".".join(str(part) for part in error["loc"]) for error in exc.errors()}
    return ", ".join(sorted(where)) or "the request"
