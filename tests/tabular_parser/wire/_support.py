"""Builders shared by the tabular-parser app tests (in-memory and wire).

Everything here is real except the recogniser: requests are built from the contract's own
example, S3 is the harness's moto server, bodies are checked by the contract registry.
"""

from __future__ import annotations

import asyncio
import copy
import json
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from services.contract import Kind, validate
from services.runtime.recognizer import Job, Recognition
from services.runtime.settings import S3Settings, load_settings
from services.runtime.storage import S3Storage
from services.tabular_parser.settings import TabularParserSettings

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "contracts" / "examples"
MSG_ID = "Nats-Msg-Id"


def example(name: str) -> dict[str, Any]:
    """A contract example (project data under contracts/examples)."""
    loaded = json.loads((EXAMPLES / name).read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def osv_documents() -> list[dict[str, Any]]:
    """The documents of the contract's ОСВ example: a real, schema-valid osvDocument."""
    return copy.deepcopy(example("result-osv.json")["documents"])


def request_body(bucket: str, key: str, **overrides: Any) -> dict[str, Any]:
    """A valid tabular request for a fresh job on `bucket/key` (fields overridable)."""
    body = example("request-tabular.json")
    file_id = str(uuid.uuid4())
    body.update(
        job_id=str(uuid.uuid4()),
        file_id=file_id,
        s3={"bucket": bucket, "key": key},
        reply_deadline="2099-01-01T00:00:00Z",
    )
    body.update(overrides)
    return body


def request_msg_id(body: dict[str, Any]) -> str:
    return f"{body['job_id']}:{body['attempt']}"


def contract_errors(kind: Kind, body: dict[str, Any]) -> list[str]:
    """The registry's complaints about a body (empty = valid)."""
    return [str(problem) for problem in validate(kind, body)]


def tabular_settings(
    s3_settings: S3Settings, *, nats_url: str | None = None, **overrides: Any
) -> TabularParserSettings:
    """Settings on the harness S3 with unique subjects (and the harness NATS when given)."""
    suffix = uuid.uuid4().hex
    nats: dict[str, Any] = {
        "nats_tabular_request_subject": f"test.tabular.{suffix}",
        "nats_image_request_subject": f"test.image.{suffix}",
        "nats_result_subject": f"test.result.{suffix}",
    }
    if nats_url is not None:
        nats["nats_url"] = nats_url
    values: dict[str, Any] = {
        "nats": nats,
        "s3": s3_settings.model_dump(),
        "publish_retry_pause_seconds": 0.01,
        "publish_confirm_timeout_seconds": 0.5,
        "graceful_timeout_seconds": 2.0,
    }
    values.update(overrides)
    return load_settings(TabularParserSettings, **values)


@dataclass
class Events:
    """What happened, in order: ("publish", msg_id), ("s3.get", key), ("s3.put", key)."""

    items: list[tuple[str, str]] = field(default_factory=list)

    def add(self, kind: str, what: str) -> None:
        self.items.append((kind, what))

    def kinds(self, kind: str) -> list[str]:
        return [what for k, what in self.items if k == kind]


class RecordingStorage:
    """The real S3Storage, with every read and write recorded in `events`."""

    def __init__(self, inner: S3Storage, events: Events) -> None:
        self._inner = inner
        self._events = events

    async def get_bytes(self, bucket: str, key: str, max_bytes: int) -> bytes:
        self._events.add("s3.get", key)
        return await self._inner.get_bytes(bucket, key, max_bytes)

    async def put_json(self, bucket: str, key: str, document: Any) -> None:
        self._events.add("s3.put", key)
        await self._inner.put_json(bucket, key, document)

    async def put_bytes(
        self, bucket: str, key: str, data: bytes, *, content_type: str = "application/octet-stream"
    ) -> None:
        self._events.add("s3.put", key)
        await self._inner.put_bytes(bucket, key, data, content_type=content_type)


class StubRecognizer:
    """Returns the contract's ОСВ documents (optionally after `gate` opens); counts calls."""

    def __init__(
        self,
        *,
        gate: asyncio.Event | None = None,
        documents: list[dict[str, Any]] | None = None,
        warnings: list[dict[str, Any]] | None = None,
        error: BaseException | None = None,
    ) -> None:
        self.gate = gate
        self.documents = osv_documents() if documents is None else documents
        self.warnings = warnings or []
        self.error = error
        self.calls: list[tuple[bytes, Job]] = []
        self.started = asyncio.Event()
        self._called = asyncio.Event()

    async def wait_for_calls(self, count: int) -> None:
        """Until `count` recognitions have started."""
        while len(self.calls) < count:
            self._called.clear()
            await self._called.wait()

    async def recognize(self, data: bytes, job: Job) -> Recognition:
        self.calls.append((data, job))
        self.started.set()
        self._called.set()
        if self.gate is not None:
            await self.gate.wait()
        if self.error is not None:
            raise self.error
        return Recognition(
            documents=copy.deepcopy(self.documents),
            warnings=copy.deepcopy(self.warnings),
            group_schema="osv",
        )
