"""Builders for the scan-gateway tests: requests from the contract's image example, settings on
the harness S3, recording storage, and recognisers for the app tests."""

from __future__ import annotations

import asyncio
import copy
import json
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from services.contract import Kind, validate
from services.runtime.settings import S3Settings, load_settings
from services.runtime.storage import S3Storage
from services.scan_gateway.settings import ScanGatewaySettings

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "contracts" / "examples"
MSG_ID = "Nats-Msg-Id"


def example(name: str) -> dict[str, Any]:
    loaded = json.loads((EXAMPLES / name).read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def request_body(bucket: str, key: str, **overrides: Any) -> dict[str, Any]:
    """A valid image request for a fresh job on `bucket/key` with a deadline far ahead."""
    body = copy.deepcopy(example("request-image.json"))
    body.update(
        job_id=str(uuid.uuid4()),
        file_id=str(uuid.uuid4()),
        s3={"bucket": bucket, "key": key},
        reply_deadline="2099-01-01T00:00:00Z",
    )
    body.update(overrides)
    return body


def request_msg_id(body: dict[str, Any]) -> str:
    return f"{body['job_id']}:{body.get('attempt', 1)}"


def contract_errors(kind: Kind, body: dict[str, Any]) -> list[str]:
    return [str(problem) for problem in validate(kind, body)]


def gateway_settings(
    s3_settings: S3Settings, *, nats_url: str | None = None, **overrides: Any
) -> ScanGatewaySettings:
    """Settings on the harness S3 with unique subjects."""
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
        "ocr_workers": 1,
    }
    values.update(overrides)
    return load_settings(ScanGatewaySettings, **values)


@dataclass
class Events:
    """What happened, in order: ("publish", msg_id), ("s3.get", key), ("s3.put", key)."""

    items: list[tuple[str, str]] = field(default_factory=list)

    def add(self, kind: str, what: str) -> None:
        self.items.append((kind, what))

    def kinds(self, kind: str) -> list[str]:
        return [what for k, what in self.items if k == kind]


class RecordingStorage:
    """The real S3Storage with every read and write recorded."""

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


class GatedSource:
    """A result-set source that waits for `gate` and counts calls (for repeat scenarios)."""

    def __init__(self, items: dict[str, bytes], gate: asyncio.Event | None = None) -> None:
        from services.scan_gateway.resultset import RawResultSet

        self._raw = RawResultSet
        self.items = items
        self.gate = gate
        self.calls = 0
        self.started = asyncio.Event()

    async def fetch(self, data: bytes, job: Any, *, deadline: float) -> Any:
        self.calls += 1
        self.started.set()
        if self.gate is not None:
            await self.gate.wait()
        return self._raw(items=dict(self.items), source_job_id="fake-1")
