"""The core on the wire: real nats-server, real S3 (moto), the app under a real uvicorn.

Deadlines here are short (ACK_TIMEOUT_SECONDS=0.3) so the republish / dlq / timeout paths run
in a second; the tests wait for states, they never assert on durations.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx
import nats
import pytest
import uvicorn
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg

from services.arm_core.app import CoreApp, create_app
from services.arm_core.settings import CoreSettings
from services.runtime.embedded import free_port
from services.runtime.settings import S3Settings
from services.runtime.storage import S3Storage

from .conftest import example

pytestmark = [pytest.mark.wire, pytest.mark.db]

WAIT = 30.0


@asynccontextmanager
async def serve(app: CoreApp) -> AsyncIterator[httpx.AsyncClient]:
    """Run `app` under uvicorn on a free port; yield a client for it; stop it after."""
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
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as client:
            yield client
    finally:
        server.should_exit = True
        await task


async def wait_for(check: Callable[[], Awaitable[bool]], what: str) -> None:
    """Poll `check` until it holds (fails the test after WAIT seconds)."""
    try:
        async with asyncio.timeout(WAIT):
            while not await check():  # noqa: ASYNC110 - polling the API is the point
                await asyncio.sleep(0.05)
    except TimeoutError:
        pytest.fail(f"timed out waiting for {what}")


async def job_status(client: httpx.AsyncClient, job_id: str) -> dict[str, Any]:
    resp = await client.get(f"/api/v1/jobs/{job_id}")
    resp.raise_for_status()
    body: dict[str, Any] = resp.json()
    return body


def status_is(client: httpx.AsyncClient, job_id: str, status: str) -> Callable[[], Awaitable[bool]]:
    async def check() -> bool:
        current: str = (await job_status(client, job_id))["status"]
        return current == status

    return check


@pytest.fixture
def wire_settings(
    core_settings: Callable[..., CoreSettings], s3_settings: S3Settings, bucket: str, nats_url: str
) -> Callable[..., CoreSettings]:
    """CoreSettings on the harness NATS/S3 with short timings; overrides by field."""

    def make(**overrides: Any) -> CoreSettings:
        values: dict[str, Any] = {
            "s3": {**s3_settings.model_dump(), "s3_bucket": bucket},
            "nats": {"nats_url": nats_url},
            "ack_timeout_seconds": 0.3,
            "outbox_max_republish": 2,
            "relay_poll_interval_seconds": 0.05,
            "publish_retries": 0,
        }
        values.update(overrides)
        return core_settings(**values)

    return make


@pytest.fixture
async def nc(nats_url: str) -> AsyncIterator[NATS]:
    client = await nats.connect(nats_url)
    try:
        yield client
    finally:
        await client.close()


class Recorder:
    """Records (Nats-Msg-Id, body) of every message on a subject."""

    def __init__(self) -> None:
        self.messages: list[tuple[str | None, dict[str, Any]]] = []

    async def record(self, msg: Msg) -> None:
        self.messages.append(((msg.headers or {}).get("Nats-Msg-Id"), json.loads(msg.data)))

    def ids(self) -> list[str | None]:
        return [mid for mid, _ in self.messages]


async def upload(
    client: httpx.AsyncClient, data: bytes, name: str = "balance.xlsx"
) -> dict[str, Any]:
    resp = await client.post("/api/v1/files", files={"file": (name, data)})
    assert resp.status_code == 201, resp.text
    body: dict[str, Any] = resp.json()
    return body


async def test_without_a_service_the_request_is_republished_then_dlq(
    wire_settings: Callable[..., CoreSettings],
    nc: NATS,
    sample_files: dict[str, bytes],
    sessions: Any,
) -> None:
    """No service acks: the request goes out 1 + OUTBOX_MAX_REPUBLISH times with the same
    Nats-Msg-Id and body, then the job is dlq / NO_ACK with request_msg_id unchanged."""
    settings = wire_settings()
    recorder = Recorder()
    await nc.subscribe(settings.nats.nats_tabular_request_subject, cb=recorder.record)
    async with serve(create_app(settings)) as client:
        up = await upload(client, sample_files["XLSX"])
        await wait_for(status_is(client, up["job_id"], "dlq"), "dlq")
        job = await job_status(client, up["job_id"])
    await nc.flush()
    assert job["error_code"] == "NO_ACK"
    assert job["request_msg_id"] == f"{up['job_id']}:1"
    assert job["republish_count"] == 2
    assert recorder.ids() == [f"{up['job_id']}:1"] * 3
    assert all(body == recorder.messages[0][1] for _, body in recorder.messages)


async def fake_service(
    nc: NATS, settings: CoreSettings, *, answer: str | None
) -> Callable[[Msg], Awaitable[None]]:
    """A recognition service stand-in: acks every request, then optionally answers."""
    result_subject = settings.nats.nats_result_subject

    async def on_request(msg: Msg) -> None:
        req = json.loads(msg.data)
        base = {
            "schema_version": "2.0",
            "job_id": req["job_id"],
            "file_id": req["file_id"],
            "service": {"name": "fake-parser", "version": "9.9"},
        }
        tag = f"{req['job_id']}:{req['attempt']}"
        await nc.publish(
            result_subject,
            json.dumps({**base, "status": "processing"}).encode(),
            headers={"Nats-Msg-Id": f"ack:{tag}"},
        )
        if answer == "error":
            body = {
                **base,
                "status": "error",
                "error": {"code": "UNREADABLE", "message": "damaged"},
            }
            for _ in range(2):  # a retried publish: the core must apply it once
                await nc.publish(
                    result_subject,
                    json.dumps(body).encode(),
                    headers={"Nats-Msg-Id": f"result:{tag}"},
                )

    return on_request


async def test_an_acking_service_moves_the_job_to_processing(
    wire_settings: Callable[..., CoreSettings],
    nc: NATS,
    sample_files: dict[str, bytes],
    sessions: Any,
) -> None:
    """The service's ack (queue group arm-core) moves published → processing, records the
    service, and stops the republishing."""
    settings = wire_settings(ack_timeout_seconds=5)
    await nc.subscribe(
        settings.nats.nats_image_request_subject, cb=await fake_service(nc, settings, answer=None)
    )
    async with serve(create_app(settings)) as client:
        up = await upload(client, sample_files["PDF"], "scan.pdf")
        await wait_for(status_is(client, up["job_id"], "processing"), "processing")
        job = await job_status(client, up["job_id"])
    assert (job["service_name"], job["service_version"]) == ("fake-parser", "9.9")
    assert job["started_at"] is not None and job["republish_count"] == 0


async def test_an_error_result_closes_the_job_once(
    wire_settings: Callable[..., CoreSettings],
    nc: NATS,
    sample_files: dict[str, bytes],
    sessions: Any,
) -> None:
    """Ack then an error result (delivered twice) → error with the service's code."""
    settings = wire_settings(ack_timeout_seconds=5)
    await nc.subscribe(
        settings.nats.nats_tabular_request_subject,
        cb=await fake_service(nc, settings, answer="error"),
    )
    async with serve(create_app(settings)) as client:
        up = await upload(client, sample_files["XLSX"])
        await wait_for(status_is(client, up["job_id"], "error"), "error")
        job = await job_status(client, up["job_id"])
    assert (job["error_code"], job["result_msg_id"]) == ("UNREADABLE", f"result:{up['job_id']}:1")


async def test_a_result_that_never_comes_ends_in_timeout(
    wire_settings: Callable[..., CoreSettings],
    nc: NATS,
    sample_files: dict[str, bytes],
    sessions: Any,
) -> None:
    """Acked but never answered: the job ends in timeout at its reply_deadline."""
    settings = wire_settings(ack_timeout_seconds=5, tabular_reply_budget_seconds=3)
    await nc.subscribe(
        settings.nats.nats_tabular_request_subject, cb=await fake_service(nc, settings, answer=None)
    )
    async with serve(create_app(settings)) as client:
        up = await upload(client, sample_files["XLSX"])
        await wait_for(status_is(client, up["job_id"], "processing"), "processing")
        await wait_for(status_is(client, up["job_id"], "timeout"), "timeout")
        job = await job_status(client, up["job_id"])
    assert job["started_at"] is not None and job["finished_at"] is not None


async def test_a_core_killed_before_publishing_loses_nothing(
    wire_settings: Callable[..., CoreSettings],
    nc: NATS,
    sample_files: dict[str, bytes],
    sessions: Any,
) -> None:
    """Upload committed, relay never ran (the process died): a new core instance publishes it."""
    settings = wire_settings(ack_timeout_seconds=5)
    recorder = Recorder()
    await nc.subscribe(settings.nats.nats_tabular_request_subject, cb=recorder.record)
    async with serve(create_app(settings, run_background=False)) as client:
        up = await upload(client, sample_files["XLSX"])
        assert (await job_status(client, up["job_id"]))["status"] == "queued"
    await nc.flush()
    assert recorder.messages == []
    async with serve(create_app(settings)) as client:
        await wait_for(status_is(client, up["job_id"], "published"), "published")
    await nc.flush()
    assert recorder.ids() == [f"{up['job_id']}:1"]


async def test_two_relays_on_postgresql_publish_each_job_once(
    wire_settings: Callable[..., CoreSettings],
    nc: NATS,
    make_job: Any,
    reload: Any,
    is_postgres: bool,
) -> None:
    """Two core replicas on one PostgreSQL: every queued job is published exactly once."""
    if not is_postgres:
        pytest.skip("needs PostgreSQL (ARM_TEST_DATABASE_URL): SQLite is single-writer")
    settings = wire_settings(ack_timeout_seconds=60, relay_batch_size=3)
    recorder = Recorder()
    await nc.subscribe(settings.nats.nats_tabular_request_subject, cb=recorder.record)
    jobs = [await make_job() for _ in range(30)]
    async with serve(create_app(settings)), serve(create_app(settings)):

        async def all_published() -> bool:
            statuses = [(await reload(j.id)).status for j in jobs]
            return all(status == "published" for status in statuses)

        await wait_for(all_published, "all jobs published")
        await nc.flush()
        await asyncio.sleep(0.2)
    assert sorted(map(str, recorder.ids())) == sorted(f"{j.id}:1" for j in jobs)


async def test_a_result_file_travels_from_the_service_to_the_read_api(
    wire_settings: Callable[..., CoreSettings],
    nc: NATS,
    sample_files: dict[str, bytes],
    sessions: Any,
) -> None:
    """A service acks, writes results/{file_id}/{job_id}/result.json, publishes the envelope
    twice (same Nats-Msg-Id): the core maps the file once and serves its document unchanged."""
    settings = wire_settings(ack_timeout_seconds=5)
    bucket = settings.s3.s3_bucket
    written: list[dict[str, Any]] = []

    async def on_request(msg: Msg) -> None:
        req = json.loads(msg.data)
        tag = f"{req['job_id']}:{req['attempt']}"
        ids = {"job_id": req["job_id"], "file_id": req["file_id"]}
        ack = {**example("result-message-processing.json"), **ids}
        subject = settings.nats.nats_result_subject
        await nc.publish(subject, json.dumps(ack).encode(), headers={"Nats-Msg-Id": f"ack:{tag}"})
        result = {**example("result-statement-minimal.json"), **ids}
        key = f"results/{req['file_id']}/{req['job_id']}/result.json"
        async with S3Storage(settings.s3) as s3:
            await s3.put_json(bucket, key, result)
        written.append(result)
        envelope = {
            **example("result-message-needs-check.json"),
            **ids,
            "result_s3": {"bucket": bucket, "key": key},
        }
        for _ in range(2):
            await nc.publish(
                subject, json.dumps(envelope).encode(), headers={"Nats-Msg-Id": f"result:{tag}"}
            )

    await nc.subscribe(settings.nats.nats_image_request_subject, cb=on_request)
    async with serve(create_app(settings)) as client:
        up = await upload(client, sample_files["PDF"], "scan.pdf")
        await wait_for(status_is(client, up["job_id"], "needs_check"), "needs_check")
        job = await job_status(client, up["job_id"])
        listing = (await client.get(job["documents_url"])).json()
        detail = (await client.get(listing["items"][0]["url"])).json()
        document = (await client.get(detail["normalized_url"])).json()
    assert job["group_schema"] == "rsbu"
    assert len(listing["items"]) == 1
    assert document == written[0]["documents"][0]
