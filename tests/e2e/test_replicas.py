"""Two arm-core replicas and two tabular-parser replicas on one PostgreSQL database.

The core replicas share the outbox (claims with FOR UPDATE SKIP LOCKED) and the result
subject (queue group `arm-core`); the parsers share the request subject (queue group
`tabular-parser`). A plain nats-py subscriber counts what actually crossed the wire.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from services.devstack import LocalStack
from tests.e2e import _files
from tests.e2e._system import Core, Wire, is_postgres, stack_env, start_stack, stop_stack

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

REQUEST_SUBJECT = "files.tabular_uploaded"
RESULT_SUBJECT = "files.tabular_parsed"
FILES = 12


@pytest.fixture(scope="module")
async def stack(e2e_db: str, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[LocalStack]:
    if not is_postgres(e2e_db):
        pytest.skip(
            "several arm-core replicas need PostgreSQL (row claims with FOR UPDATE SKIP LOCKED); "
            "SQLite has no row locks, so two relays may publish the same row. CI sets "
            "ARM_TEST_DATABASE_URL."
        )
    data_dir: Path = tmp_path_factory.mktemp("e2e-replicas")
    local = LocalStack(
        data_dir=data_dir,
        # An ack never takes 20 s here, so a second publish of a request would be a bug, not a
        # republish.
        extra_env=stack_env(e2e_db, ACK_TIMEOUT_SECONDS="20"),
        replicas={"arm-core": 2, "tabular-parser": 2},
    )
    await start_stack(local)
    try:
        yield local
    finally:
        await stop_stack(local)


async def test_two_cores_and_two_parsers_publish_and_finish_each_job_once(
    stack: LocalStack,
) -> None:
    """Files uploaded through both core replicas: each request goes out on the wire exactly
    once, each job is acked once and answered once, and every job ends done."""
    assert stack.nats is not None
    assert len(stack.processes("tabular-parser")) == 2
    cores = [Core(url) for url in stack.core_urls]
    assert len(cores) == 2
    wire = await Wire.listen(stack.nats.url, [REQUEST_SUBJECT, RESULT_SUBJECT])
    try:
        uploads = await asyncio.gather(
            *(cores[i % 2].upload(f"replica-{i}.xlsx", _files.osv_xlsx()) for i in range(FILES))
        )
        job_ids = [u["job_id"] for u in uploads]
        jobs = await cores[0].wait_all_final(job_ids, within=120)
        # The last result crossed the wire before the job closed; let the recorder drain.
        await wire.client.flush()
        for job_id in job_ids:
            assert jobs[job_id]["status"] == "done", jobs[job_id]
            assert jobs[job_id]["republish_count"] == 0
            assert await cores[1].job(job_id) == jobs[job_id]
    finally:
        await wire.close()
        for core in cores:
            await core.aclose()

    requests = wire.msg_ids(REQUEST_SUBJECT)
    answers = wire.msg_ids(RESULT_SUBJECT)
    for job_id in job_ids:
        assert requests[f"{job_id}:1"] == 1, requests
        assert answers[f"ack:{job_id}:1"] == 1, answers
        assert answers[f"result:{job_id}:1"] == 1, answers
    assert sum(requests.values()) == FILES
