"""Over a 3-node NATS cluster, nodes killed and restarted mid-burst (issue 16, part 2).

Real processes: three nats-server nodes routed to each other on loopback
(`services.devstack.nats_cluster`), moto S3, the session's database, and the three services
given the three URLs comma-separated (each client shuffles them, so replicas spread over the
nodes). A burst of BURST tiny files (ОСВ workbooks, one in twenty a text PDF) is uploaded
while a fault strikes:

(a) the node each service is connected to (as its /healthcheck says) is SIGKILLed, one node
    at a time, each started again once the services moved away;
(b) a rolling restart: each node in turn stopped and started, waiting for its routes;
(c) two cores and two replicas of each service (PostgreSQL: two relays need row locks), and
    the node the first core is on SIGKILLed.

Core NATS is at-most-once, so a result (or an ack) published into a connection that dies with
its node can vanish; its job then ends `timeout` at its reply_deadline and the core queues the
file's one automatic new attempt (TIMEOUT_NEW_ATTEMPT). Each test fails when a file does not
end `done`, when a job other than a timed-out first attempt is not `done`, or when a result
crossed the cluster more times than a republish or a logged publish retry explains (a job
recognised twice without cause). Each prints jobs, done, timeout, retried, duplicates dropped
and recovery time, and appends them to benchmarks/results/cluster.txt when
ARM_CLUSTER_RESULTS names that file.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import platform
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from services.devstack import LocalStack
from services.devstack.nats_cluster import NatsCluster
from tests.e2e._cluster import (
    NodeWires,
    Tally,
    burst_files,
    connected_servers,
    log_marks,
    settle,
    tally,
    upload_all,
    wait_reconnected,
)
from tests.e2e._system import Core, is_postgres, service_log, stack_env, start_stack, stop_stack

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

BURST = 200
# A lost result costs one reply budget before the automatic attempt; short, so that it ends in
# the run, yet far above what a tiny file needs behind a 200-file burst.
BUDGET_SECONDS = 45
# Republishes are the answer to a lost request or ack: 3 × 5 s leaves room for a failover.
CLUSTER_ENV = {
    "ACK_TIMEOUT_SECONDS": "5",
    "OUTBOX_MAX_REPUBLISH": "3",
    "TABULAR_REPLY_BUDGET_SECONDS": str(BUDGET_SECONDS),
    "IMAGE_REPLY_BUDGET_SECONDS": str(BUDGET_SECONDS),
    "TIMEOUT_NEW_ATTEMPT": "true",
    "JOBS_IN_FLIGHT": "8",
}
SETTLE_SECONDS = 2 * BUDGET_SECONDS + 60
FAULT_AFTER_UPLOADS = BURST // 3


def _cluster_stack(
    cluster: NatsCluster, db_url: str, data_dir: Path, replicas: dict[str, int] | None = None
) -> LocalStack:
    """The three services on the cluster: every node's URL, comma-separated."""
    env = stack_env(db_url, **CLUSTER_ENV, OPENBAO__NATS__NATS_URL=cluster.url)
    return LocalStack(
        data_dir=data_dir,
        extra_env=env,
        nats=cluster.nodes[0].server,  # the stack starts no server of its own; env names all
        replicas=replicas or {},
    )


@pytest.fixture(scope="module")
async def cluster() -> AsyncIterator[NatsCluster]:
    nodes = NatsCluster()
    await asyncio.to_thread(nodes.start)
    try:
        yield nodes
    finally:
        await asyncio.to_thread(nodes.stop)


@pytest.fixture(scope="module")
async def stack(
    cluster: NatsCluster, e2e_db: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[LocalStack]:
    local = _cluster_stack(cluster, e2e_db, tmp_path_factory.mktemp("e2e-cluster"))
    await start_stack(local)
    try:
        yield local
    finally:
        await stop_stack(local)


Fault = Callable[[NatsCluster, LocalStack, NodeWires], Awaitable[list[float]]]


async def _run_burst(scenario: str, cluster: NatsCluster, stack: LocalStack, fault: Fault) -> Tally:
    """Upload BURST files through every core; strike `fault` a third of the way in; wait
    until every file settled; tally."""
    await asyncio.to_thread(cluster.start)  # a node left down by a failed test comes back
    await wait_reconnected(stack, cluster)
    cores = [Core(url) for url in stack.core_urls]
    wires = NodeWires(cluster)
    await wires.start()
    marks = log_marks(stack)
    midway = asyncio.Event()
    began = time.monotonic()
    try:

        def progress(n: int) -> None:
            if n >= FAULT_AFTER_UPLOADS:
                midway.set()

        async def strike() -> list[float]:
            await midway.wait()
            return await fault(cluster, stack, wires)

        uploads, recovery = await asyncio.gather(
            upload_all(cores, burst_files(BURST), progress), strike()
        )
        try:
            files = await settle(cores[0], [u["file_id"] for u in uploads], SETTLE_SECONDS)
        except AssertionError as exc:
            logs = "\n".join(service_log(stack, name) for name in ("arm-core", "tabular-parser"))
            raise AssertionError(f"{exc}\n{logs}") from exc
        elapsed = time.monotonic() - began
        await asyncio.sleep(0.5)  # a late copy of a result would have reached a recorder
    finally:
        await wires.close()
        for core in cores:
            await core.aclose()
    result = tally(scenario, stack, files, wires, recovery, elapsed, marks)
    _record(result)
    return result


def _record(result: Tally) -> None:
    print(result.report())  # the figures the issue asks for (pytest -s, or -rP)
    target = os.environ.get("ARM_CLUSTER_RESULTS")
    if target:
        stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        with Path(target).open("a", encoding="utf-8") as out:
            out.write(f"{stamp} {platform.node()} {os.cpu_count()} cores: {result.report()}\n")


def _assert_honest(result: Tally) -> None:
    """Every file done; nothing but done and timed-out first attempts; no result crossed the
    cluster more often than a republish or a logged publish retry explains."""
    report = result.report()
    assert result.done == len(result.files) == BURST, report
    for jobs in result.files.values():
        *earlier, last = jobs
        assert last["status"] == "done", (jobs, report)
        assert last["result_msg_id"] == f"result:{last['job_id']}:{last['attempt']}", last
        # Only a first attempt that timed out has a successor, and only one (the automatic one).
        assert [job["status"] for job in earlier] in ([], ["timeout"]), (jobs, report)
        assert all(job["error_code"] == "TIMEOUT" for job in earlier), jobs
    assert result.retried == result.count("timeout"), report
    assert result.count("dlq") == result.count("error") == 0, report
    assert result.unexplained_double_results() == [], report
    # The recorders must have seen the results, or the check above proves nothing. A result
    # the core took yet no recorder saw needs a node killed between the two deliveries (its
    # buffers hold both): at most one such per fault.
    finals = [jobs[-1] for jobs in result.files.values()]
    unseen = [
        job["job_id"]
        for job in finals
        if not result.result_copies.get(f"result:{job['job_id']}:{job['attempt']}")
    ]
    assert len(unseen) <= len(result.recovery_seconds), (unseen, report)


async def _kill_each_connected_node(
    cluster: NatsCluster, stack: LocalStack, wires: NodeWires
) -> list[float]:
    """SIGKILL every node a service is on, one at a time: kill, wait until every service is
    on a live node (the recovery time), start the node again, reattach its recorder."""
    recovery: list[float] = []
    servers = await connected_servers(stack)
    targets = []
    for server in servers.values():
        node = cluster.node_at(server)
        assert node is not None, servers
        if node not in targets:
            targets.append(node)
    for node in targets:
        await asyncio.to_thread(cluster.kill, node)
        recovery.append(await wait_reconnected(stack, cluster))
        moved = await connected_servers(stack)
        assert node.address not in moved.values(), moved
        await asyncio.to_thread(cluster.restart, node)
        await wires.reconnect(node)
    return recovery


async def _rolling_restart(
    cluster: NatsCluster, stack: LocalStack, wires: NodeWires
) -> list[float]:
    """Each node in turn: SIGTERM, wait until every service is on a live node, start it
    again, wait for its routes."""
    recovery: list[float] = []
    for node in cluster:
        await asyncio.to_thread(node.server.stop)
        recovery.append(await wait_reconnected(stack, cluster))
        await asyncio.to_thread(cluster.restart, node)
        await wires.reconnect(node)
    return recovery


async def _kill_the_first_cores_node(
    cluster: NatsCluster, stack: LocalStack, wires: NodeWires
) -> list[float]:
    """SIGKILL the node arm-core replica 0 is on, then start it again."""
    node = cluster.node_at((await connected_servers(stack))["arm-core#0"])
    assert node is not None
    await asyncio.to_thread(cluster.kill, node)
    recovery = [await wait_reconnected(stack, cluster)]
    await asyncio.to_thread(cluster.restart, node)
    await wires.reconnect(node)
    return recovery


@pytest.mark.timeout(240)
async def test_a_killed_node_under_each_service_loses_no_job(
    cluster: NatsCluster, stack: LocalStack
) -> None:
    """(a) SIGKILL of the node each service is connected to, mid-burst: every client fails
    over to a live node, and every file ends done (a lost result through one automatic
    attempt after its timeout), none recognised twice without cause."""
    result = await _run_burst(
        "(a) node under each service SIGKILLed", cluster, stack, _kill_each_connected_node
    )
    _assert_honest(result)
    assert result.recovery_seconds, "no node was killed"


@pytest.mark.timeout(240)
async def test_a_rolling_restart_of_all_three_nodes_loses_no_job(
    cluster: NatsCluster, stack: LocalStack
) -> None:
    """(b) each of the three nodes stopped and started in turn during a burst: every file
    ends done, none recognised twice without cause."""
    result = await _run_burst(
        "(b) rolling restart of the 3 nodes", cluster, stack, _rolling_restart
    )
    _assert_honest(result)
    assert len(result.recovery_seconds) == 3


@pytest.fixture(scope="module")
async def replicated(
    cluster: NatsCluster, e2e_db: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[LocalStack]:
    if not is_postgres(e2e_db):
        pytest.skip(
            "two arm-core replicas need PostgreSQL (row claims with FOR UPDATE SKIP LOCKED); "
            "CI sets ARM_TEST_DATABASE_URL"
        )
    local = _cluster_stack(
        cluster,
        e2e_db,
        tmp_path_factory.mktemp("e2e-cluster-replicas"),
        replicas={"arm-core": 2, "tabular-parser": 2, "scan-gateway": 2},
    )
    await start_stack(local)
    try:
        yield local
    finally:
        await stop_stack(local)


@pytest.mark.timeout(240)
async def test_two_of_everything_on_the_cluster_counts_each_result_once(
    cluster: NatsCluster, stack: LocalStack, replicated: LocalStack
) -> None:
    """(c) two cores and two replicas of each service, the first core's node SIGKILLed
    mid-burst: every file ends done; a result that crossed the cluster twice is explained by a
    republish or a publish retry, and its second copy was dropped as a duplicate (the job
    changed once: one final status, one result_msg_id)."""
    await stop_stack(stack)  # the single stack of (a) and (b) must not take a share
    result = await _run_burst(
        "(c) 2 cores + 2 replicas each, a node SIGKILLed",
        cluster,
        replicated,
        _kill_the_first_cores_node,
    )
    _assert_honest(result)
