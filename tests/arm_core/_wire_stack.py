"""What the core's wire tests put around the core: the app under a real uvicorn with a client on
its REST API, and NATS-side stand-ins (a request recorder, a recognition service).

Kept apart from test_wire.py so each test there reads as arrange, act, assert.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import uvicorn
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg

from services.arm_core.app import CoreApp, create_app
from services.arm_core.settings import CoreSettings
from services.devstack.embedded import free_port
from services.runtime.storage import S3Storage
from tests.support.nats_wire import round_trip

WAIT = 30.0
MSG_ID = "Nats-Msg-Id"
FAKE_SERVICE = {"name": "fake-parser", "version": "9.9"}

Body = dict[str, Any]
Reply = Callable[[Body], Awaitable[Body]]
"""What a stand-in service answers to a request (after its ack)."""


async def wait_for(check: Callable[[], Awaitable[bool]], what: str) -> None:
    """Poll `check` until it holds (fails the test after WAIT seconds)."""
    try:
        async with asyncio.timeout(WAIT):
            while not await check():  # noqa: ASYNC110 - polling the API is the point
                await asyncio.sleep(0.05)
    except TimeoutError:
        pytest.fail(f"timed out waiting for {what}")


@dataclass
class CoreApi:
    """A client on one running core's REST API."""

    http: httpx.AsyncClient

    async def upload(self, data: bytes, name: str = "balance.xlsx") -> str:
        """Upload a file (201 expected); returns the id of the job it created."""
        resp = await self.http.post("/api/v1/files", files={"file": (name, data)})
        assert resp.status_code == 201, resp.text
        job_id: str = resp.json()["job_id"]
        return job_id

    async def read(self, url: str) -> Any:
        """GET `url` (2xx expected) and parse its JSON."""
        resp = await self.http.get(url)
        resp.raise_for_status()
        return resp.json()

    async def job(self, job_id: str) -> Body:
        """The job as the API shows it now."""
        body: Body = await self.read(f"/api/v1/jobs/{job_id}")
        return body

    async def wait_status(self, job_id: str, status: str) -> Body:
        """Poll the job until it is in `status`; returns it as seen then."""
        seen: Body = {}

        async def reached() -> bool:
            nonlocal seen
            seen = await self.job(job_id)
            current: str = seen["status"]
            return current == status

        await wait_for(reached, f"job {job_id} to be {status}")
        return seen


@asynccontextmanager
async def serve(app: CoreApp) -> AsyncIterator[CoreApi]:
    """Run `app` under uvicorn on a free port; yield a client on it; stop the app after."""
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, lifespan="on", log_level="warning")
    )
    task = asyncio.create_task(server.serve())
    try:
        async with asyncio.timeout(WAIT):
            while not server.started:
                if task.done():
                    task.result()
                await asyncio.sleep(0.02)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
            yield CoreApi(http)
    finally:
        server.should_exit = True
        await task


class RequestRecorder:
    """Records (Nats-Msg-Id, body) of every message on one request subject."""

    def __init__(self, nc: NATS) -> None:
        self._nc = nc
        self._messages: list[tuple[str | None, Body]] = []

    async def record(self, msg: Msg) -> None:
        self._messages.append(((msg.headers or {}).get(MSG_ID), json.loads(msg.data)))

    async def received(self) -> list[tuple[str | None, Body]]:
        """What the subject carried so far; flushes first, so nothing sent is still on the way."""
        await self._nc.flush()
        return list(self._messages)

    async def ids(self) -> list[str | None]:
        """The Nats-Msg-Id of each message received so far."""
        return [mid for mid, _ in await self.received()]


def service_message(request: Body, status: str, **fields: Any) -> Body:
    """A result-subject message of the stand-in service (FAKE_SERVICE) about `request`'s job."""
    return {
        "schema_version": "2.0",
        "job_id": request["job_id"],
        "file_id": request["file_id"],
        "service": FAKE_SERVICE,
        "status": status,
        **fields,
    }


def _tag(request: Body) -> str:
    return f"{request['job_id']}:{request['attempt']}"


@dataclass
class WireStack:
    """One test's core settings and NATS client, and what the test puts around the core."""

    settings: CoreSettings
    nc: NATS

    def request_subject(self, pipeline: str) -> str:
        """The request subject of `pipeline` ("tabular" or "image")."""
        subject: str = getattr(self.settings.nats, f"nats_{pipeline}_request_subject")
        return subject

    def core(self, *, run_background: bool = True) -> AbstractAsyncContextManager[CoreApi]:
        """A core on these settings, served while the context lasts."""
        return serve(create_app(self.settings, run_background=run_background))

    async def record_requests(self, pipeline: str) -> RequestRecorder:
        """Record every request the core sends on `pipeline`'s subject from now on."""
        recorder = RequestRecorder(self.nc)
        await self.nc.subscribe(self.request_subject(pipeline), cb=recorder.record)
        await round_trip(self.nc)
        return recorder

    async def start_service(self, pipeline: str, reply: Reply | None = None) -> None:
        """A recognition service stand-in on `pipeline`: acks every request (processing), then
        publishes `reply(request)`, if given, twice with one Nats-Msg-Id (a retried publish the
        core must apply once)."""
        result_subject = self.settings.nats.nats_result_subject

        async def send(body: Body, msg_id: str) -> None:
            await self.nc.publish(
                result_subject, json.dumps(body).encode(), headers={MSG_ID: msg_id}
            )

        async def on_request(msg: Msg) -> None:
            request: Body = json.loads(msg.data)
            await send(service_message(request, "processing"), f"ack:{_tag(request)}")
            if reply is not None:
                answer = await reply(request)
                for _ in range(2):
                    await send(answer, f"result:{_tag(request)}")

        await self.nc.subscribe(self.request_subject(pipeline), cb=on_request)
        await round_trip(self.nc)

    def stored_result(self, result: Body, envelope: Body) -> Reply:
        """A reply that writes `result` where a service would (results/{file_id}/{job_id}/
        result.json in the core's bucket) and answers with `envelope` pointing at it."""
        bucket = self.settings.s3.s3_bucket

        async def reply(request: Body) -> Body:
            ids = {"job_id": request["job_id"], "file_id": request["file_id"]}
            key = f"results/{request['file_id']}/{request['job_id']}/result.json"
            async with S3Storage(self.settings.s3) as s3:
                await s3.put_json(bucket, key, {**result, **ids})
            return {**envelope, **ids, "result_s3": {"bucket": bucket, "key": key}}

        return reply
