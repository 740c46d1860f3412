"""Faults on a running system: each test breaks one thing, ends with every one of its jobs in a
final state (nothing lost, nothing doubled) and restores what it broke.

The stack of this module has short clocks: ACK_TIMEOUT_SECONDS 1, OUTBOX_MAX_REPUBLISH 2 and a
tabular reply budget of TABULAR_BUDGET seconds. The tabular-parser reaches S3 through a TCP
proxy the tests can cut; arm-core reaches S3 directly, so uploads keep working meanwhile.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from services.devstack import LocalStack
from services.devstack.embedded import S3Server, TcpProxy, start_s3_server, start_tcp_proxy
from tests.e2e import _files
from tests.e2e._system import (
    ACTIVE,
    Core,
    Wire,
    service_log,
    stack_env,
    start_stack,
    stop_stack,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PARSER = "tabular-parser"
REQUEST_SUBJECT = "files.tabular_uploaded"
TABULAR_BUDGET = 15.0
# Rows of the reference sheet that keeps the parser reading for seconds (about 2 s here).
LARGE_ROWS = 30_000


@pytest.fixture(scope="module")
def s3() -> Iterator[S3Server]:
    server = start_s3_server()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def s3_proxy(s3: S3Server) -> Iterator[TcpProxy]:
    proxy = start_tcp_proxy(s3.host, s3.port)
    try:
        yield proxy
    finally:
        proxy.close()


@pytest.fixture(scope="module")
async def stack(
    e2e_db: str, s3: S3Server, s3_proxy: TcpProxy, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[LocalStack]:
    data_dir: Path = tmp_path_factory.mktemp("e2e-faults")
    local = LocalStack(
        data_dir=data_dir,
        s3=s3,
        extra_env=stack_env(e2e_db, TABULAR_REPLY_BUDGET_SECONDS=str(TABULAR_BUDGET)),
        service_env={
            PARSER: {"OPENBAO__S3__S3_ENDPOINT_URL": f"http://{s3_proxy.host}:{s3_proxy.port}"}
        },
    )
    await start_stack(local)
    try:
        yield local
    finally:
        await stop_stack(local)


@pytest.fixture
async def core(stack: LocalStack, s3_proxy: TcpProxy) -> AsyncIterator[Core]:
    """The core's API; after the test, whatever it broke is running again."""
    client = Core(stack.core_url)
    try:
        yield client
    finally:
        await client.aclose()
        s3_proxy.restore()
        assert stack.nats is not None
        if not stack.nats.is_running:
            await asyncio.to_thread(stack.nats.start)
        for svc in list(stack.running):
            if not svc.alive:
                await asyncio.to_thread(stack.start_service, svc.spec.name, svc.replica)


async def test_no_parser_running_ends_in_dlq_no_ack(stack: LocalStack, core: Core) -> None:
    """With no tabular-parser the request goes out once and is republished
    OUTBOX_MAX_REPUBLISH (2) times with the same Nats-Msg-Id, then the job is dlq / NO_ACK.
    A parser started again takes the next file."""
    assert stack.nats is not None
    await asyncio.to_thread(stack.stop_service, PARSER)
    wire = await Wire.listen(stack.nats.url, [REQUEST_SUBJECT])
    try:
        upload = await core.upload("nobody.xlsx", _files.osv_xlsx())
        job = await core.wait_final(upload["job_id"], within=30)
    finally:
        await wire.close()
    assert (job["status"], job["error_code"]) == ("dlq", "NO_ACK"), job
    assert job["republish_count"] == 2
    assert wire.msg_ids(REQUEST_SUBJECT)[f"{job['job_id']}:1"] == 3

    await asyncio.to_thread(stack.start_service, PARSER)
    later = await core.upload("somebody.xlsx", _files.osv_xlsx())
    assert (await core.wait_final(later["job_id"]))["status"] == "done"


async def test_parser_killed_mid_job_times_out_and_a_new_attempt_succeeds(
    stack: LocalStack, core: Core
) -> None:
    """SIGKILL of the parser (and its worker processes) while it recognises a large workbook,
    and a fresh parser started at once (it knows nothing of the job): the job stays processing
    until its reply_deadline, then timeout; the core queues the file's one automatic new
    attempt (TIMEOUT_NEW_ATTEMPT, on by default), which ends with a result without anyone
    asking for it."""
    upload = await core.upload("large.xlsx", _files.large_workbook(LARGE_ROWS))
    await core.wait_status(upload["job_id"], {"processing"}, within=30)
    await asyncio.to_thread(stack.kill_service, PARSER)
    await asyncio.to_thread(stack.start_service, PARSER)

    job = await core.wait_final(upload["job_id"], within=TABULAR_BUDGET + 15)
    assert (job["status"], job["error_code"]) == ("timeout", "TIMEOUT"), job
    assert job["result_msg_id"] is None

    deadline = asyncio.get_running_loop().time() + 15
    file = await core.file(upload["file_id"])
    while len(file["jobs"]) < 2 and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.2)
        file = await core.file(upload["file_id"])
    assert len(file["jobs"]) == 2, file["jobs"]
    retried = await core.wait_final(file["jobs"][1]["job_id"], within=TABULAR_BUDGET + 15)
    assert retried["status"] in {"done", "needs_check"}, (retried, service_log(stack, PARSER))
    file = await core.file(upload["file_id"])
    assert [(j["attempt"], j["status"]) for j in file["jobs"]] == [
        (1, "timeout"),
        (2, retried["status"]),
    ]


async def test_nats_killed_and_restarted_mid_flight(
    stack: LocalStack, core: Core, e2e_db: str
) -> None:
    """nats-server is killed right after a job was published and while more files arrive, then
    started again on its port: the core and both services reconnect, the files uploaded
    during the outage are published and done, and the job caught in flight ends in a final
    state. No job is left active; each done job has its one document. (An answer that overtakes
    the relay's commit — the burst after a reconnect does that on SQLite — is applied to the
    job still recorded as queued: services/arm_core/db/transitions.py.)"""
    assert stack.nats is not None
    in_flight = await core.upload("in-flight.xlsx", _files.osv_xlsx())
    await core.wait_status(in_flight["job_id"], {"published", "processing", "done"}, within=20)
    await asyncio.to_thread(stack.nats.kill)

    during = [await core.upload(f"during-{i}.xlsx", _files.osv_xlsx()) for i in range(3)]
    await asyncio.sleep(1.0)
    for upload in during:
        assert (await core.job(upload["job_id"]))["status"] == "queued"
    await asyncio.to_thread(stack.nats.start)

    after = await core.upload("after.xlsx", _files.osv_xlsx())
    uploads = [in_flight, *during, after]
    jobs = await core.wait_all_final([u["job_id"] for u in uploads], within=TABULAR_BUDGET + 30)
    for upload in [*during, after]:
        assert jobs[upload["job_id"]]["status"] == "done", jobs[upload["job_id"]]
    assert not {job["status"] for job in jobs.values()} & ACTIVE
    for upload in uploads:
        if jobs[upload["job_id"]]["status"] == "done":
            assert len(await core.documents(upload["file_id"])) == 1


async def test_s3_unreachable_for_the_parser_then_recovery(
    stack: LocalStack, core: Core, s3_proxy: TcpProxy
) -> None:
    """While the parser cannot reach S3, its jobs end in error FILE_READ_ERROR (acked first);
    once S3 is back, new files are done and the failed file recognised again is done too."""
    s3_proxy.cut()
    failed = [await core.upload(f"no-s3-{i}.xlsx", _files.osv_xlsx()) for i in range(2)]
    for upload in failed:
        job = await core.wait_final(upload["job_id"], within=TABULAR_BUDGET + 10)
        assert (job["status"], job["error_code"]) == ("error", "FILE_READ_ERROR"), job
        assert job["started_at"] is not None  # the ack came before the read

    s3_proxy.restore()
    fresh = await core.upload("s3-back.xlsx", _files.osv_xlsx())
    assert (await core.wait_final(fresh["job_id"]))["status"] == "done"
    again = await core.recognize_again(failed[0]["file_id"])
    assert (await core.wait_final(again["job_id"]))["status"] == "done"
