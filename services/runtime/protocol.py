"""The request protocol both recognition services run, written once (spec 001, spec 002).

One request in, at most one ack and one result out, in this order:

1. Parse: not JSON / not an object / no uuid `job_id` → nothing published (logged, dropped).
2. Decide: a body that fails the request schema (or has an unknown MAJOR, or names the other
   pipeline) is answered with error SCHEMA_MISMATCH and no ack — unless this process already
   took that job (then nothing: the answer's message id would shadow the real result), or no
   valid `file_id` / attempt can be had (then nothing).
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
What differs between services is a `ProtocolConfig`: identity, pipeline, file types, the OQ-71
attempt policy, pre-recognition checks; plus the plugged `Recognizer`. Publishing retries and
the `Nats-Msg-Id` rule live in the broker middleware (services.runtime.messaging).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from services.contract import Kind, validate
from services.runtime._protocol_memory import JobMemory, JobState
from services.runtime._protocol_policy import (
    AttemptPolicy,
    attempt_from_body,
    attempt_from_body_or_header,
    attempt_from_body_or_one,
)
from services.runtime.messaging import MSG_ID_HEADER, msg_id
from services.runtime.recognizer import (
    EncodedRecognition,
    ErrorCode,
    Job,
    Recognition,
    RecognitionFailed,
    Recognizer,
)
from services.runtime.storage import ObjectTooLarge, StorageError

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

RESULT_SCHEMA_VERSION = "2.0"
_JSON_CONTENT_TYPE = "application/json; charset=utf-8"
Pipeline = Literal["tabular", "image"]

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ServiceInfo:
    """`service {name, version}` of every envelope and result file."""

    name: str
    version: str


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


@dataclass(frozen=True, slots=True)
class ProtocolConfig:
    """What makes the shared protocol one service's protocol."""

    service: ServiceInfo
    pipeline: Pipeline
    file_types: frozenset[str]
    attempt_policy: AttemptPolicy
    max_object_bytes: int
    results_bucket: str | None = None
    seen_jobs_max: int = 10_000
    seen_jobs_max_age_seconds: float = 24 * 3600.0
    pre_checks: Sequence[PreCheck] = field(default_factory=tuple)


def result_key(job: Job) -> str:
    """Where the result file of a job lives (spec 001)."""
    return f"results/{job.file_id}/{job.job_id}/result.json"


def result_file(
    job: Job,
    recognition: Recognition | EncodedRecognition,
    service: ServiceInfo,
    duration_ms: int,
) -> dict[str, Any]:
    """The 2.0 result file of a recognition (spec 001 «Файл результата»).

    Shared by the protocol and the local `parse` commands, so a file recognised on a laptop is
    the same document the service would write.
    """
    body = _result_head(job, recognition, service)
    if isinstance(recognition, EncodedRecognition):
        body["documents"] = recognition.decoded_documents()
    else:
        body["documents"] = recognition.documents
    body["metrics"] = {"duration_ms": duration_ms, "warnings": recognition.warnings}
    return body


def result_file_bytes(
    job: Job,
    recognition: Recognition | EncodedRecognition,
    service: ServiceInfo,
    duration_ms: int,
) -> bytes:
    """`result_file` as the UTF-8 JSON written to S3, Cyrillic kept readable.

    Already encoded documents are spliced in as they are: the event loop encodes only the
    small head and metrics, never the documents of a large workbook.
    """
    if not isinstance(recognition, EncodedRecognition):
        return _json_bytes(result_file(job, recognition, service, duration_ms))
    head = _json_bytes(_result_head(job, recognition, service))
    metrics = _json_bytes({"duration_ms": duration_ms, "warnings": recognition.warnings})
    return b"".join(
        (head[:-1], b', "documents": ', recognition.documents_json, b', "metrics": ', metrics, b"}")
    )


def _result_head(
    job: Job, recognition: Recognition | EncodedRecognition, service: ServiceInfo
) -> dict[str, Any]:
    """The result file's fields before `documents`, in the file's order."""
    service_body: dict[str, Any] = {"name": service.name, "version": service.version}
    if recognition.statements_version is not None:
        service_body["statements_version"] = recognition.statements_version
    return {
        "schema_version": RESULT_SCHEMA_VERSION,
        "job_id": str(job.job_id),
        "file_id": str(job.file_id),
        "status": recognition.status,
        "service": service_body,
        "group_schema": recognition.group_schema,
    }


def _json_bytes(document: Any) -> bytes:
    return json.dumps(document, ensure_ascii=False).encode("utf-8")


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
        job_id = _uuid(doc.get("job_id"))
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
            job = _job(doc)
        except (ValueError, KeyError, TypeError) as exc:
            # The schema checks formats loosely; a value Python cannot read is a mismatch too.
            problems = [f"unreadable request field: {exc}"]
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
            envelope = self._error(job, failure, [], admitted.started)
            await self._send(envelope, msg_id("result", job.job_id, job.attempt))
        finally:
            self.memory.finish(job.job_id, job.attempt)

    def _problems(self, doc: dict[str, Any]) -> list[str]:
        problems = list(self._validate(doc))
        pipeline = doc.get("pipeline")
        if not problems and pipeline != self.config.pipeline:
            problems.append(
                f"pipeline {pipeline!r} is not served by {self.config.service.name} "
                f"({self.config.pipeline!r})"
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
        file_id = _uuid(doc.get("file_id"))
        if file_id is None:
            self._log.warning(
                "request for job %s dropped: fails the contract (%s) and file_id is missing "
                "or not a uuid",
                job_id,
                summary,
            )
            return
        attempt = self.config.attempt_policy(doc.get("attempt"), request_msg_id, job_id)
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
        envelope = self._envelope(job_id, file_id, "error")
        envelope["error"] = {
            "code": ErrorCode.SCHEMA_MISMATCH.value,
            "message": f"the request does not match the contract: {summary}",
        }
        envelope["metrics"] = {"duration_ms": self._elapsed_ms(started), "warnings": []}
        await self._send(envelope, msg_id("result", job_id, attempt))

    # -- the work ----------------------------------------------------------------------------

    async def _process(self, job: Job, started: float) -> None:
        warnings: list[dict[str, Any]] = []
        try:
            recognition = await self._recognise(job, started)
            warnings = recognition.warnings
            if not recognition.document_count:
                raise RecognitionFailed(ErrorCode.RECOGNITION_FAILED, "no document recognised")
            envelope = await self._write_result(job, recognition, started)
        except RecognitionFailed as failure:
            self._log.info("job %s attempt %d: error %s", job.job_id, job.attempt, failure)
            envelope = self._error(job, failure, warnings or failure.warnings, started)
        except Exception as exc:
            self._log.exception("job %s attempt %d: unexpected failure", job.job_id, job.attempt)
            unknown = RecognitionFailed(
                ErrorCode.UNKNOWN_ERROR, f"unexpected {type(exc).__name__} while processing"
            )
            envelope = self._error(job, unknown, warnings, started)
        await self._send(envelope, msg_id("result", job.job_id, job.attempt))

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

    async def _recognise(self, job: Job, started: float) -> Recognition | EncodedRecognition:
        if job.file_type not in self.config.file_types:
            raise RecognitionFailed(
                ErrorCode.UNSUPPORTED_FORMAT,
                f"file type {job.file_type} is not handled by {self.config.service.name} "
                f"(handles {', '.join(sorted(self.config.file_types))})",
            )
        self._check_deadline(job, "the file was read", started)
        data = await self._read(job)
        self._check_deadline(job, "recognition started", started)
        for check in self.config.pre_checks:
            await check(job)
        try:
            return await self._recognizer.recognize(data, job)
        except (RecognitionFailed, asyncio.CancelledError):
            raise
        except Exception as exc:
            self._log.exception("job %s: recogniser raised", job.job_id)
            raise RecognitionFailed(
                ErrorCode.UNKNOWN_ERROR, f"recogniser raised {type(exc).__name__}"
            ) from exc

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
        status = recognition.status
        metrics = {"duration_ms": duration_ms, "warnings": recognition.warnings}
        if isinstance(recognition, EncodedRecognition):
            data = result_file_bytes(job, recognition, self.config.service, duration_ms)
        else:  # dicts built on this process (a stub, scan-gateway): encoded off the loop
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
        envelope = self._envelope(job.job_id, job.file_id, status)
        envelope["result_s3"] = {"bucket": bucket, "key": key}
        envelope["result_schema_version"] = RESULT_SCHEMA_VERSION
        if recognition.raw_s3_key is not None:
            envelope["raw_s3_key"] = recognition.raw_s3_key
        envelope["metrics"] = metrics
        return envelope

    # -- bodies ------------------------------------------------------------------------------

    def _envelope(self, job_id: uuid.UUID, file_id: uuid.UUID, status: str) -> dict[str, Any]:
        return {
            "schema_version": RESULT_SCHEMA_VERSION,
            "job_id": str(job_id),
            "file_id": str(file_id),
            "status": status,
            "service": {"name": self.config.service.name, "version": self.config.service.version},
        }

    def _ack(self, job: Job) -> dict[str, Any]:
        return self._envelope(job.job_id, job.file_id, "processing")

    def _error(
        self,
        job: Job,
        failed: RecognitionFailed,
        warnings: list[dict[str, Any]],
        started: float,
    ) -> dict[str, Any]:
        envelope = self._envelope(job.job_id, job.file_id, "error")
        envelope["error"] = {"code": ErrorCode(failed.code).value, "message": failed.message}
        envelope["metrics"] = {"duration_ms": self._elapsed_ms(started), "warnings": warnings}
        return envelope

    async def _send(self, body: dict[str, Any], msg_id: str) -> None:
        try:
            await self._publish(body, msg_id)
        except asyncio.CancelledError:
            raise
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


def _uuid(value: object) -> uuid.UUID | None:
    if not isinstance(value, str):
        return None
    try:
        return uuid.UUID(value)
    except ValueError:
        return None


def _job(doc: dict[str, Any]) -> Job:
    """A `Job` from a body that passed the schema."""
    deadline = dt.datetime.fromisoformat(str(doc["reply_deadline"]).replace("Z", "+00:00"))
    if deadline.tzinfo is None:
        deadline = deadline.replace(tzinfo=dt.UTC)
    attempt = attempt_from_body(doc.get("attempt"))
    if attempt is None:  # the schema requires attempt >= 1; kept safe for a lax MINOR
        attempt = 1
    s3 = doc["s3"]
    return Job(
        job_id=uuid.UUID(doc["job_id"]),
        file_id=uuid.UUID(doc["file_id"]),
        attempt=attempt,
        file_type=str(doc["file_type"]),
        original_name=str(doc["original_name"]),
        bucket=str(s3["bucket"]),
        key=str(s3["key"]),
        reply_deadline=deadline,
    )
