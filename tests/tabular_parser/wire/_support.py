"""What only the tabular-parser app tests (in-memory and wire) need: tabular requests, the
parser's settings, and a stub recogniser answering the contract's ОСВ example. The rest is
shared: tests/support/recognition_service.py.
"""

from __future__ import annotations

import asyncio
import copy
from typing import Any

from services.runtime.recognizer import Job, Recognition
from services.runtime.settings import S3Settings
from services.tabular_parser.settings import TabularParserSettings
from tests.support.recognition_service import example, service_request, service_settings


def osv_documents() -> list[dict[str, Any]]:
    """The documents of the contract's ОСВ example: a real, schema-valid osvDocument."""
    return copy.deepcopy(example("result-osv.json")["documents"])


def request_body(bucket: str, key: str, **overrides: Any) -> dict[str, Any]:
    """A valid tabular request for a fresh job on `bucket/key` (fields overridable)."""
    return service_request("request-tabular.json", bucket, key, **overrides)


def tabular_settings(
    s3_settings: S3Settings, *, nats_url: str | None = None, **overrides: Any
) -> TabularParserSettings:
    """Settings on the harness S3 with unique subjects (and the harness NATS when given)."""
    return service_settings(TabularParserSettings, s3_settings, nats_url=nats_url, **overrides)


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
