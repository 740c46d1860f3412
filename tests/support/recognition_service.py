"""What the tests of a recognition service (tabular-parser, scan-gateway) share.

Everything here is real: requests are built from the contract's own examples, S3 is the
harness's moto server, bodies are checked by the contract registry, and the app runs under
TestNatsBroker with a watcher on its result subject. Each service's tests keep only what is
theirs (their request example, their settings knobs, their recogniser stand-in).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

import httpx
import pytest
from faststream import TestApp
from faststream.asgi import AsgiFastStream
from faststream.nats import NatsBroker, NatsMessage, TestNatsBroker

from services.contract import Kind, validate
from services.runtime.backlog import JobBacklog
from services.runtime.protocol import Admitted, RequestProtocol
from services.runtime.service import service_backlog, service_protocol
from services.runtime.settings import RecognitionServiceSettings, S3Settings, load_settings
from services.runtime.storage import S3Storage

__all__ = [
    "EXAMPLES",
    "MSG_ID",
    "ROOT",
    "Events",
    "RecordingStorage",
    "ServiceHarness",
    "ack_id",
    "contract_errors",
    "example",
    "healthcheck",
    "request_msg_id",
    "result_id",
    "s3",
    "service_request",
    "service_settings",
    "serving",
]

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "contracts" / "examples"
MSG_ID = "Nats-Msg-Id"

SettingsT = TypeVar("SettingsT", bound=RecognitionServiceSettings)


def example(name: str) -> dict[str, Any]:
    """A contract example (project data under contracts/examples), freshly loaded."""
    loaded = json.loads((EXAMPLES / name).read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def service_request(template: str, bucket: str, key: str, **overrides: Any) -> dict[str, Any]:
    """The contract example `template` as a fresh job on `bucket/key`, deadline far ahead."""
    body = example(template)
    body.update(
        job_id=str(uuid.uuid4()),
        file_id=str(uuid.uuid4()),
        s3={"bucket": bucket, "key": key},
        reply_deadline="2099-01-01T00:00:00Z",
    )
    body.update(overrides)
    return body


def request_msg_id(body: dict[str, Any]) -> str:
    """The Nats-Msg-Id arm-core gives a request: `<job_id>:<attempt>` (attempt 1 when absent)."""
    return f"{body['job_id']}:{body.get('attempt', 1)}"


def ack_id(request: dict[str, Any]) -> str:
    """The Nats-Msg-Id of the ack a service sends for `request`."""
    return f"ack:{request['job_id']}:{request['attempt']}"


def result_id(request: dict[str, Any]) -> str:
    """The Nats-Msg-Id of the result a service sends for `request`."""
    return f"result:{request['job_id']}:{request['attempt']}"


def contract_errors(kind: Kind, body: dict[str, Any]) -> list[str]:
    """The registry's complaints about a body (empty = valid)."""
    return [str(problem) for problem in validate(kind, body)]


def service_settings(
    cls: type[SettingsT], s3_settings: S3Settings, *, nats_url: str | None = None, **overrides: Any
) -> SettingsT:
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
    return load_settings(cls, **values)


@pytest.fixture
async def s3(s3_settings: S3Settings) -> AsyncIterator[S3Storage]:
    """An open S3 client on the harness server (the service folders' conftests take it in)."""
    async with S3Storage(s3_settings) as storage:
        yield storage


async def healthcheck(app: AsgiFastStream) -> httpx.Response:
    """GET /healthcheck of `app`, in memory (no broker connection needed)."""
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://service") as client:
        return await client.get("/healthcheck")


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


@dataclass(kw_only=True)
class ServiceHarness(Generic[SettingsT]):
    """One service app under TestNatsBroker: sends requests on `request_subject` and records
    what the service publishes on its result subject (`serving` wires it up)."""

    settings: SettingsT
    request_subject: str
    s3: S3Storage
    bucket: str
    events: Events = field(default_factory=Events)
    broker: Any = None
    backlog: JobBacklog[Admitted] | None = None
    protocol: RequestProtocol | None = None
    published: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    async def send(
        self, body: dict[str, Any] | bytes, msg_id: str | None = "auto", *, wait: bool = True
    ) -> None:
        """Publish a request and wait until the job it queued, if any, is finished (or, not
        `wait`, only until its ack is out); `"auto"` gives a dict body its own Nats-Msg-Id,
        None gives none.

        The in-memory broker runs the subscriber inside `publish`, so the service has admitted
        (acked, queued) the request when `publish` returns; the work itself runs on the
        service's backlog, and is awaited here so that a test sees the whole answer.
        """
        headers: dict[str, str] = {}
        if msg_id == "auto" and isinstance(body, dict):
            msg_id = request_msg_id(body)
        if msg_id is not None and msg_id != "auto":
            headers[MSG_ID] = msg_id
        assert self.backlog is not None and self.protocol is not None, "send() in serving()"
        first = self.backlog.submitted
        await self.broker.publish(body, self.request_subject, headers=headers)
        await self.protocol.acks_sent()
        if wait:
            await self.backlog.finished(first)

    def ids(self) -> list[str]:
        return [mid for mid, _ in self.published]

    async def receive(self, msg_id: str, body: dict[str, Any]) -> None:
        """One message on the result subject (a subclass may fail or react to it)."""
        self.events.add("publish", msg_id)
        self.published.append((msg_id, body))


@asynccontextmanager
async def serving(app: AsgiFastStream, harness: ServiceHarness[Any]) -> AsyncIterator[None]:
    """`app` started in memory, its result subject fed to `harness.receive`, and
    `harness.broker` set to the client that sends requests."""
    broker = app.broker
    assert isinstance(broker, NatsBroker)

    @broker.subscriber(harness.settings.nats.nats_result_subject)
    async def watch(body: dict[str, Any], msg: NatsMessage) -> None:
        await harness.receive(msg.headers[MSG_ID], body)

    # Requests come from a plain broker, as from arm-core: the service's own broker
    # insists on Nats-Msg-Id, and some requests here must arrive without one.
    sender = NatsBroker()
    async with TestNatsBroker(broker, sender) as (_, client), TestApp(app):
        harness.broker = client
        harness.backlog = service_backlog(app)
        harness.protocol = service_protocol(app)
        yield
