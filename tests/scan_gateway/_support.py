"""What only the scan-gateway tests need: image requests, the gateway's settings, and a
scripted result-set source. The rest is shared: tests/support/recognition_service.py."""

from __future__ import annotations

import asyncio
from typing import Any

from services.runtime.settings import S3Settings
from services.scan_gateway.settings import ScanGatewaySettings
from tests.support.recognition_service import service_request, service_settings


def request_body(bucket: str, key: str, **overrides: Any) -> dict[str, Any]:
    """A valid image request for a fresh job on `bucket/key` with a deadline far ahead."""
    return service_request("request-image.json", bucket, key, **overrides)


def gateway_settings(
    s3_settings: S3Settings, *, nats_url: str | None = None, **overrides: Any
) -> ScanGatewaySettings:
    """Settings on the harness S3 with unique subjects and one OCR worker."""
    values: dict[str, Any] = {"pool": {"workers": 1}, **overrides}
    return service_settings(ScanGatewaySettings, s3_settings, nats_url=nats_url, **values)


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
