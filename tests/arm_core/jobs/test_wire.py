"""The core on the wire: real nats-server, real S3 (moto), the app under a real uvicorn.

Deadlines here are short (ACK_TIMEOUT_SECONDS=0.3) so the republish / dlq / timeout paths run
in a second; the tests wait for states, they never assert on durations. The app, the stand-in
service and the request recorder live in _wire_stack.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import nats
import pytest

from services.arm_core.settings import CoreSettings
from services.runtime.settings import S3Settings
from tests.arm_core._wire_stack import FAKE_SERVICE, Body, WireStack, service_message, wait_for
from tests.support.core import example

pytestmark = [pytest.mark.wire, pytest.mark.db]

MakeStack = Callable[..., WireStack]


@pytest.fixture
async def wire(
    core_settings: Callable[..., CoreSettings],
    s3_settings: S3Settings,
    bucket: str,
    nats_url: str,
    sessions: Any,
) -> AsyncIterator[MakeStack]:
    """`wire(**overrides)` → a WireStack on the harness NATS/S3 and emptied tables, with short
    timings (ack 0.3 s, 2 republishes, relay poll 50 ms, no publish retries) unless overridden."""
    nc = await nats.connect(nats_url)

    def make(**overrides: Any) -> WireStack:
        values: dict[str, Any] = {
            "s3": {**s3_settings.model_dump(), "s3_bucket": bucket},
            "nats": {"nats_url": nats_url},
            "ack_timeout_seconds": 0.3,
            "outbox_max_republish": 2,
            "relay_poll_interval_seconds": 0.05,
            "publish_retries": 0,
        }
        return WireStack(core_settings(**{**values, **overrides}), nc)

    try:
        yield make
    finally:
        await nc.close()


async def _unreadable(request: Body) -> Body:
    """The stand-in service's answer: the file is damaged."""
    return service_message(request, "error", error={"code": "UNREADABLE", "message": "damaged"})


async def test_without_a_service_the_request_is_republished_then_dlq(
    wire: MakeStack, sample_files: dict[str, bytes]
) -> None:
    """No service acks: the request goes out 1 + OUTBOX_MAX_REPUBLISH times with the same
    Nats-Msg-Id and body, then the job is dlq / NO_ACK with request_msg_id unchanged."""
    stack = wire()
    requests = await stack.record_requests("tabular")
    async with stack.core() as core:
        job_id = await core.upload(sample_files["XLSX"])
        job = await core.wait_status(job_id, "dlq")
    sent = await requests.received()
    assert job["error_code"] == "NO_ACK"
    assert job["request_msg_id"] == f"{job_id}:1"
    assert job["republish_count"] == 2
    assert [mid for mid, _ in sent] == [f"{job_id}:1"] * 3
    assert all(body == sent[0][1] for _, body in sent)


async def test_an_acking_service_moves_the_job_to_processing(
    wire: MakeStack, sample_files: dict[str, bytes]
) -> None:
    """The service's ack (queue group arm-core) moves published → processing, records the
    service, and stops the republishing."""
    stack = wire(ack_timeout_seconds=5)
    await stack.start_service("image")
    async with stack.core() as core:
        job_id = await core.upload(sample_files["PDF"], "scan.pdf")
        job = await core.wait_status(job_id, "processing")
    assert (job["service_name"], job["service_version"]) == (
        FAKE_SERVICE["name"],
        FAKE_SERVICE["version"],
    )
    assert job["started_at"] is not None and job["republish_count"] == 0


async def test_an_error_result_closes_the_job_once(
    wire: MakeStack, sample_files: dict[str, bytes]
) -> None:
    """Ack then an error result (delivered twice) → error with the service's code."""
    stack = wire(ack_timeout_seconds=5)
    await stack.start_service("tabular", reply=_unreadable)
    async with stack.core() as core:
        job_id = await core.upload(sample_files["XLSX"])
        job = await core.wait_status(job_id, "error")
    assert (job["error_code"], job["result_msg_id"]) == ("UNREADABLE", f"result:{job_id}:1")


async def test_a_result_that_never_comes_ends_in_timeout(
    wire: MakeStack, sample_files: dict[str, bytes]
) -> None:
    """Acked but never answered: the job ends in timeout at its reply_deadline."""
    stack = wire(ack_timeout_seconds=5, tabular_reply_budget_seconds=3)
    await stack.start_service("tabular")
    async with stack.core() as core:
        job_id = await core.upload(sample_files["XLSX"])
        await core.wait_status(job_id, "processing")
        job = await core.wait_status(job_id, "timeout")
    assert job["started_at"] is not None and job["finished_at"] is not None


async def test_a_core_killed_before_publishing_loses_nothing(
    wire: MakeStack, sample_files: dict[str, bytes]
) -> None:
    """Upload committed, relay never ran (the process died): a new core instance publishes it."""
    stack = wire(ack_timeout_seconds=5)
    requests = await stack.record_requests("tabular")
    async with stack.core(run_background=False) as core:
        job_id = await core.upload(sample_files["XLSX"])
        assert (await core.job(job_id))["status"] == "queued"
    assert await requests.ids() == []
    async with stack.core() as core:
        await core.wait_status(job_id, "published")
    assert await requests.ids() == [f"{job_id}:1"]


async def test_two_relays_on_postgresql_publish_each_job_once(
    wire: MakeStack, make_job: Any, reload: Any, is_postgres: bool
) -> None:
    """Two core replicas on one PostgreSQL: every queued job is published exactly once."""
    if not is_postgres:
        pytest.skip("needs PostgreSQL (ARM_TEST_DATABASE_URL): SQLite is single-writer")
    stack = wire(ack_timeout_seconds=60, relay_batch_size=3)
    requests = await stack.record_requests("tabular")
    jobs = [await make_job() for _ in range(30)]

    async def all_published() -> bool:
        statuses = [(await reload(job.id)).status for job in jobs]
        return all(status == "published" for status in statuses)

    async with stack.core(), stack.core():
        await wait_for(all_published, "all jobs published")
        await asyncio.sleep(0.2)  # a second publish of any job would have arrived by now
    assert sorted(map(str, await requests.ids())) == sorted(f"{job.id}:1" for job in jobs)


async def test_a_result_file_travels_from_the_service_to_the_read_api(
    wire: MakeStack, sample_files: dict[str, bytes]
) -> None:
    """A service acks, writes results/{file_id}/{job_id}/result.json, publishes the envelope
    twice (same Nats-Msg-Id): the core maps the file once and serves its document unchanged."""
    stack = wire(ack_timeout_seconds=5)
    result = example("result-statement-minimal.json")
    envelope = example("result-message-needs-check.json")
    await stack.start_service("image", reply=stack.stored_result(result, envelope))
    async with stack.core() as core:
        job_id = await core.upload(sample_files["PDF"], "scan.pdf")
        job = await core.wait_status(job_id, "needs_check")
        listing = await core.read(job["documents_url"])
        detail = await core.read(listing["items"][0]["url"])
        document = await core.read(detail["normalized_url"])
    assert job["group_schema"] == "rsbu"
    assert len(listing["items"]) == 1
    assert document == result["documents"][0]
