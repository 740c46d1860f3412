"""The outbox relay against the database, with an in-memory publisher and a hand-moved clock."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.jobs.relay import OutboxRelay, format_deadline
from services.arm_core.settings import CoreSettings
from services.contract import Kind, validate
from tests.support.core import FakeClock, RecordingPublisher

pytestmark = pytest.mark.db

Sessions = async_sessionmaker[AsyncSession]


@pytest.fixture
def settings(core_settings: Callable[..., CoreSettings]) -> CoreSettings:
    return core_settings(
        ack_timeout_seconds=30,
        outbox_max_republish=3,
        tabular_reply_budget_seconds=600,
        image_reply_budget_seconds=1800,
    )


@pytest.fixture
def relay(
    sessions: Sessions, settings: CoreSettings, publisher: RecordingPublisher, clock: FakeClock
) -> OutboxRelay:
    return OutboxRelay(sessions, settings, publisher, clock=clock)


async def test_queued_job_is_published_with_a_valid_request(
    relay: OutboxRelay,
    publisher: RecordingPublisher,
    make_job: Any,
    reload: Any,
    settings: CoreSettings,
    clock: FakeClock,
) -> None:
    """queued → published: one request valid by the schema, on the pipeline's subject,
    with Nats-Msg-Id <job_id>:<attempt>, and reply_deadline = publish time + budget."""
    job = await make_job(pipeline="tabular", file_type="XLSX", attempt=2)
    outcome = await relay.run_pass()
    assert outcome.published == 1
    [(body, subject, mid)] = publisher.sent
    assert validate(Kind.REQUEST, body) == []
    assert subject == settings.nats.nats_tabular_request_subject
    assert mid == f"{job.id}:2"
    expected_deadline = clock.now + dt.timedelta(seconds=600)
    assert body["reply_deadline"] == format_deadline(expected_deadline)
    assert body["reply_deadline"].endswith("Z")
    assert (body["job_id"], body["file_id"], body["attempt"]) == (str(job.id), str(job.file_id), 2)
    assert body["s3"]["key"] == f"uploads/{job.file_id}/source.xlsx"
    row = await reload(job.id)
    assert (row.status, row.request_subject, row.request_msg_id) == ("published", subject, mid)
    assert row.reply_deadline == expected_deadline


async def test_image_jobs_go_to_the_image_subject_with_their_budget(
    relay: OutboxRelay,
    publisher: RecordingPublisher,
    make_job: Any,
    reload: Any,
    settings: CoreSettings,
    clock: FakeClock,
) -> None:
    """The subject and the reply budget follow the job's pipeline."""
    job = await make_job(pipeline="image", file_type="PDF")
    await relay.run_pass()
    [(body, subject, _)] = publisher.sent
    assert subject == settings.nats.nats_image_request_subject
    assert body["pipeline"] == "image" and body["file_type"] == "PDF"
    assert (await reload(job.id)).reply_deadline == clock.now + dt.timedelta(seconds=1800)


async def test_a_failed_publish_leaves_the_job_queued(
    relay: OutboxRelay, publisher: RecordingPublisher, make_job: Any, reload: Any
) -> None:
    """NATS down: nothing is marked published; the next pass publishes the job."""
    job = await make_job()
    publisher.fail = True
    outcome = await relay.run_pass()
    assert outcome.publish_failed and outcome.published == 0
    assert (await reload(job.id)).status == "queued"
    publisher.fail = False
    assert (await relay.run_pass()).published == 1
    assert publisher.ids() == [f"{job.id}:1"]


async def test_a_crash_after_publish_republishes_with_the_same_id(
    sessions: Sessions, settings: CoreSettings, clock: FakeClock, make_job: Any, reload: Any
) -> None:
    """A process that dies between publish and commit loses nothing: the row stays queued and
    the next relay publishes it again under the same Nats-Msg-Id."""

    class Crash(BaseException):
        pass

    sent: list[str] = []

    async def publish_then_die(body: dict[str, Any], subject: str, mid: str) -> None:
        sent.append(mid)
        raise Crash

    job = await make_job()
    with pytest.raises(Crash):
        await OutboxRelay(sessions, settings, publish_then_die, clock=clock).run_pass()
    assert (await reload(job.id)).status == "queued"
    survivor = RecordingPublisher()
    await OutboxRelay(sessions, settings, survivor, clock=clock).run_pass()
    assert survivor.ids() == sent == [f"{job.id}:1"]
    assert (await reload(job.id)).status == "published"


async def test_unacked_job_is_republished_then_dead_lettered(
    relay: OutboxRelay,
    publisher: RecordingPublisher,
    make_job: Any,
    reload: Any,
    clock: FakeClock,
) -> None:
    """Without an ack the same request goes out every ACK_TIMEOUT, OUTBOX_MAX_REPUBLISH times,
    then the job is dlq / NO_ACK with request_msg_id unchanged."""
    job = await make_job()
    await relay.run_pass()
    first_body = publisher.sent[0][0]
    await relay.run_pass()  # nothing due yet
    assert len(publisher.sent) == 1
    for expected in (1, 2, 3):
        clock.advance(30)
        outcome = await relay.run_pass()
        assert outcome.republished == 1
        assert (await reload(job.id)).republish_count == expected
    assert [body for body, _, _ in publisher.sent] == [first_body] * 4
    assert publisher.ids() == [f"{job.id}:1"] * 4
    assert (await reload(job.id)).status == "published"
    clock.advance(30)
    outcome = await relay.run_pass()
    assert (outcome.republished, outcome.dead_lettered) == (0, 1)
    row = await reload(job.id)
    assert (row.status, row.error_code, row.request_msg_id) == ("dlq", "NO_ACK", f"{job.id}:1")
    assert len(publisher.sent) == 4


async def test_zero_republishes_means_dlq_after_one_ack_timeout(
    sessions: Sessions,
    core_settings: Callable[..., CoreSettings],
    publisher: RecordingPublisher,
    clock: FakeClock,
    make_job: Any,
    reload: Any,
) -> None:
    """OUTBOX_MAX_REPUBLISH=0: one publish, then dlq."""
    relay = OutboxRelay(sessions, core_settings(outbox_max_republish=0), publisher, clock=clock)
    job = await make_job()
    await relay.run_pass()
    clock.advance(30)
    await relay.run_pass()
    assert len(publisher.sent) == 1
    assert (await reload(job.id)).status == "dlq"


async def test_an_acked_job_is_not_republished(
    relay: OutboxRelay,
    publisher: RecordingPublisher,
    make_job: Any,
    reload: Any,
    clock: FakeClock,
    sessions: Sessions,
) -> None:
    """Once processing, the job leaves the republish loop."""
    from services.arm_core.db.transitions import mark_processing

    job = await make_job()
    await relay.run_pass()
    async with sessions() as session, session.begin():
        await mark_processing(session, job.id, service_name="s", service_version="1", now=clock.now)
    for _ in range(5):
        clock.advance(30)
        await relay.run_pass()
    assert len(publisher.sent) == 1
    assert (await reload(job.id)).status == "processing"


async def test_a_request_failing_the_schema_closes_the_job(
    relay: OutboxRelay, publisher: RecordingPublisher, make_job: Any, reload: Any
) -> None:
    """A job whose stored data cannot make a valid request is closed in error, not sent."""
    job = await make_job(file_type="DOCX")
    outcome = await relay.run_pass()
    assert outcome.rejected == 1 and publisher.sent == []
    row = await reload(job.id)
    assert (row.status, row.error_code) == ("error", "REQUEST_INVALID")


async def test_one_pass_publishes_every_queued_job_once(
    relay: OutboxRelay, publisher: RecordingPublisher, make_job: Any
) -> None:
    """Several queued jobs: each published exactly once per pass."""
    jobs = [await make_job() for _ in range(5)]
    await relay.run_pass()
    await relay.run_pass()
    assert sorted(publisher.ids()) == sorted(f"{j.id}:1" for j in jobs)
