"""A file recognised end to end on the security suite's stack: uploaded with a bearer token,
requested by the core's relay over the secured NATS, read by the real tabular-parser, its
result taken in by the core."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from services.arm_core.app import CoreApp

__all__ = ["recognised"]

_FINAL = {"done", "needs_check", "failed"}
_WAIT_SECONDS = 60.0


async def recognised(
    app: CoreApp, client: httpx.AsyncClient, headers: dict[str, str], name: str, data: bytes
) -> dict[str, Any]:
    """The job of `data` (uploaded as `name`) once final; asserts it ended done or
    needs_check."""
    uploaded = await client.post("/api/v1/files", files={"file": (name, data)}, headers=headers)
    assert uploaded.status_code == 201, uploaded.text
    job_id = uploaded.json()["job_id"]
    await app.core.relay.run_pass()  # the suite's cores run no background tasks
    job: dict[str, Any] = {}
    async with asyncio.timeout(_WAIT_SECONDS):
        while job.get("status") not in _FINAL:
            await asyncio.sleep(0.1)
            job = (await client.get(f"/api/v1/jobs/{job_id}", headers=headers)).json()
    assert job["status"] in {"done", "needs_check"}, job
    return job
