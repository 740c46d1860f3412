"""Fuzzing the shared request protocol with hypothesis: whatever arrives on the request subject,
the service never crashes and answers exactly as CONTRACT.md's table «The service's answer to
each kind of request» says.

The protocol is the real one (tabular-parser's config); around it an in-memory publish
recorder, a store that returns a few bytes and a recogniser that returns the contract's ОСВ
example. A fresh protocol per example, so the memory of taken jobs starts empty.

The expected answer is derived from the body alone:
- not JSON, not an object, job_id missing or not a uuid → nothing;
- fails the request schema or names the other pipeline → one error SCHEMA_MISMATCH
  (`result:<job_id>:<attempt>`, no ack) when file_id is a uuid and an attempt is available
  (the body's integer ≥ 1, else the request's Nats-Msg-Id `<job_id>:<attempt>`), else nothing;
- valid → ack (`ack:<job_id>:<attempt>`) then one result (`result:…`): TIMEOUT when the
  reply_deadline has passed, else UNSUPPORTED_FORMAT for an image file type, else done.
Every published body passes the envelope schema.

The mutations leave out an integral float `attempt` (2.0), which JSON Schema's "integer" admits:
the expected-answer model here reads attempts as ints, and
`test_an_integral_float_attempt_is_answered_as_itself` proves that case on its own.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import re
import uuid
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from pydantic import AwareDatetime, TypeAdapter

from services.contract import Kind, validate
from services.runtime.protocol import (
    ProtocolConfig,
    ProtocolRules,
    RequestProtocol,
    attempt_from_body_or_header,
    contract_request_problems,
)
from services.runtime.recognizer import Job, Recognition
from tests.fuzz._strategies import json_values, request_bodies, request_headers, valid_request
from tests.tabular_parser.wire._support import osv_documents

FILE_TYPES = frozenset({"XLS", "XLSX", "XLSB"})
_CANONICAL_UUID = re.compile(
    "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)


class Recorder:
    """The publish seam: keeps (msg_id, body) in order."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    async def __call__(self, body: dict[str, Any], msg_id: str) -> None:
        self.sent.append((msg_id, copy.deepcopy(body)))


class BytesStore:
    """Every object exists and holds a few bytes; result files are kept."""

    def __init__(self) -> None:
        self.written: dict[tuple[str, str], Any] = {}

    async def get_bytes(self, bucket: str, key: str, max_bytes: int) -> bytes:
        return b"PK\x03\x04 workbook bytes"

    async def put_bytes(
        self, bucket: str, key: str, data: bytes, *, content_type: str = "application/json"
    ) -> None:
        self.written[(bucket, key)] = data

    async def put_json(self, bucket: str, key: str, document: Any) -> None:
        self.written[(bucket, key)] = document


class ExampleRecognizer:
    """Recognises anything as the contract's ОСВ example."""

    async def recognize(self, data: bytes, job: Job) -> Recognition:
        return Recognition(documents=osv_documents(), group_schema="osv")


def _protocol() -> tuple[RequestProtocol, Recorder]:
    recorder = Recorder()
    protocol = RequestProtocol(
        ProtocolConfig(
            ProtocolRules(
                name="tabular-parser",
                pipeline="tabular",
                file_types=FILE_TYPES,
                attempt_policy=attempt_from_body_or_header,
            ),
            "0.0.0-fuzz",
            max_object_bytes=1024,
        ),
        recognizer=ExampleRecognizer(),
        storage=BytesStore(),
        publish=recorder,
    )
    return protocol, recorder


_DEADLINE: TypeAdapter[dt.datetime] = TypeAdapter(AwareDatetime)


def _uuid(value: object) -> uuid.UUID | None:
    """A job_id / file_id counts only in the schema's canonical form (spec 001)."""
    if not isinstance(value, str) or _CANONICAL_UUID.fullmatch(value) is None:
        return None
    return uuid.UUID(value)


def _deadline_readable(value: object) -> bool:
    """What the schema accepts as date-time (lowercase t / z included) is read."""
    try:
        _DEADLINE.validate_python(value)
    except ValueError:
        return False
    return True


def _deadline_passed(value: object) -> bool:
    return _DEADLINE.validate_python(value) <= dt.datetime.now(dt.UTC)


def expected_answer(body: bytes, msg_id: str | None) -> list[tuple[str, str]]:
    """[(Nats-Msg-Id, status or error code)] that the contract table prescribes."""
    try:
        doc = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return []
    if not isinstance(doc, dict):
        return []
    job_id = _uuid(doc.get("job_id"))
    if job_id is None:
        return []
    valid = (
        not contract_request_problems(doc)
        and doc.get("pipeline") == "tabular"
        and _deadline_readable(doc.get("reply_deadline"))
    )
    if valid:
        # JSON Schema's "integer" admits 1.0; the id carries the integer.
        attempt = int(doc["attempt"])
        if _deadline_passed(doc["reply_deadline"]):  # the protocol's reply_deadline rule
            last = "TIMEOUT"
        else:
            last = "done" if doc["file_type"] in FILE_TYPES else "UNSUPPORTED_FORMAT"
        return [(f"ack:{job_id}:{attempt}", "processing"), (f"result:{job_id}:{attempt}", last)]
    if _uuid(doc.get("file_id")) is None:
        return []
    answered = attempt_from_body_or_header(doc.get("attempt"), msg_id, job_id)
    if answered is None:
        return []
    return [(f"result:{job_id}:{answered}", "SCHEMA_MISMATCH")]


def _seen(sent: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, str]]:
    out = []
    for mid, envelope in sent:
        error = envelope.get("error")
        out.append((mid, error["code"] if isinstance(error, dict) else envelope["status"]))
    return out


async def _check(body: bytes, headers: dict[str, str] | None) -> None:
    protocol, recorder = _protocol()
    await protocol.handle(body, headers)  # must not raise
    msg_id = (headers or {}).get("Nats-Msg-Id")
    expected = expected_answer(body, msg_id)
    event("answer: " + (" + ".join(last for _mid, last in expected) or "nothing"))
    assert _seen(recorder.sent) == expected
    for mid, envelope in recorder.sent:
        problems = [str(p) for p in validate(Kind.RESULT_MESSAGE, envelope)]
        assert problems == [], (mid, envelope, problems)
    assert protocol.jobs_in_work() == []


FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(body=st.binary(max_size=200), headers=request_headers())
async def test_arbitrary_bytes_never_crash_and_get_the_contract_answer(
    body: bytes, headers: dict[str, str] | None
) -> None:
    """Random bytes: no crash, and an answer only where the contract gives one (never here
    unless the bytes happen to be a JSON object with a uuid job_id)."""
    await _check(body, headers)


@FUZZ
@given(value=json_values(), headers=request_headers())
async def test_arbitrary_json_never_crashes(value: Any, headers: dict[str, str] | None) -> None:
    """Any JSON document (mostly not an object, or an object without a uuid job_id): no crash,
    no answer unless the contract gives one."""
    await _check(json.dumps(value).encode(), headers)


@FUZZ
@given(body=request_bodies(), headers=request_headers())
async def test_mutated_requests_get_exactly_the_contract_answer(
    body: dict[str, Any], headers: dict[str, str] | None
) -> None:
    """Valid requests with fields dropped, retyped or replaced: ack + result for valid ones,
    a lone SCHEMA_MISMATCH only when job_id and file_id are uuids and an attempt is
    available, otherwise nothing."""
    await _check(json.dumps(body).encode(), headers)


@FUZZ
@given(body=valid_request(), repeats=st.integers(min_value=1, max_value=3))
async def test_a_repeated_valid_request_is_processed_once(
    body: dict[str, Any], repeats: int
) -> None:
    """The same valid request delivered again: one more ack each time, still one result."""
    protocol, recorder = _protocol()
    raw = json.dumps(body).encode()
    headers = {"Nats-Msg-Id": f"{body['job_id']}:{body['attempt']}"}
    for _ in range(1 + repeats):
        await protocol.handle(raw, headers)
    statuses = [envelope["status"] for _mid, envelope in recorder.sent]
    assert statuses.count("processing") == 1 + repeats
    assert len(statuses) - statuses.count("processing") == 1


async def test_an_integral_float_attempt_is_answered_as_itself() -> None:
    """A valid request with attempt 2.0 is acked and answered as attempt 2."""
    protocol, recorder = _protocol()
    body = {
        "schema_version": "1.0",
        "job_id": str(uuid.uuid4()),
        "file_id": str(uuid.uuid4()),
        "pipeline": "tabular",
        "file_type": "XLSX",
        "original_name": "a.xlsx",
        "s3": {"bucket": "uploads", "key": "uploads/a/source.xlsx"},
        "reply_deadline": "2099-01-01T00:00:00Z",
        "attempt": 2.0,
    }
    await protocol.handle(json.dumps(body).encode(), None)
    assert [mid for mid, _body in recorder.sent] == [
        f"ack:{body['job_id']}:2",
        f"result:{body['job_id']}:2",
    ]
