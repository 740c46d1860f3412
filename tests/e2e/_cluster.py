"""What the cluster fault tests share: a burst of tiny files, wires pinned to nodes, the tally.

The wire truth on a cluster whose nodes die: one plain nats-py client per node, connected to
that node only (no reconnect: a client that followed the cluster could end up on the node
killed next). A node killed takes its recorder with it; `reconnect()` attaches a new one when
the node is back. Only one node is down at a time, so every message that reached the cluster
was seen by at least one recorder, and the copies of a Nats-Msg-Id are the most any recorder
counted.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import httpx
import nats
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg

from services.devstack import LocalStack
from services.devstack.nats_cluster import ClusterNode, NatsCluster
from tests.e2e import _files
from tests.e2e._system import FINAL, MSG_ID, Core, WaitTimeout
from tests.support.nats_wire import round_trip

RESULT_SUBJECT = "files.tabular_parsed"
SERVICES = ("arm-core", "tabular-parser", "scan-gateway")
PDF_EVERY = 20  # one file in twenty is a text PDF, so scan-gateway carries part of the burst
UPLOADS_AT_ONCE = 8

_RETRY_LINE = re.compile(r"publish attempt \d+/\d+ failed, retrying: subject=\S+ msg_id=(\S+)")


@dataclass
class NodeWires:
    """One recorder per node on the result subject; copies per Nats-Msg-Id, per node."""

    cluster: NatsCluster
    clients: dict[str, NatsClient] = field(default_factory=dict)
    seen: dict[str, Counter[str]] = field(default_factory=dict)

    async def start(self) -> None:
        for node in self.cluster:
            await self.reconnect(node)

    async def reconnect(self, node: ClusterNode) -> None:
        """A recorder on `node` (after it came back); its counts add to the node's."""
        counts = self.seen.setdefault(node.name, Counter())

        async def record(msg: Msg) -> None:
            counts[(msg.headers or {}).get(MSG_ID) or ""] += 1

        old = self.clients.pop(node.name, None)
        if old is not None:
            with contextlib.suppress(Exception):
                await old.close()
        client = await nats.connect(node.url, allow_reconnect=False, connect_timeout=2)
        await client.subscribe(RESULT_SUBJECT, cb=record)
        await round_trip(client)
        self.clients[node.name] = client

    def copies(self, mid: str) -> int:
        """How many copies of `mid` crossed the cluster (the most any recorder saw)."""
        return max((counts[mid] for counts in self.seen.values()), default=0)

    async def close(self) -> None:
        for client in self.clients.values():
            with contextlib.suppress(Exception):
                await client.close()


def burst_files(count: int) -> list[tuple[str, bytes]]:
    """`count` tiny files: ОСВ workbooks and, one in PDF_EVERY, a text PDF."""
    xlsx, pdf = _files.osv_xlsx(), _files.statements_pdf()
    return [
        (f"burst-{n}.pdf", pdf) if n % PDF_EVERY == PDF_EVERY - 1 else (f"burst-{n}.xlsx", xlsx)
        for n in range(count)
    ]


async def upload_all(
    cores: list[Core], files: list[tuple[str, bytes]], progress: Callable[[int], None]
) -> list[dict[str, Any]]:
    """Upload through the cores in turn, UPLOADS_AT_ONCE at a time; `progress(n)` after each."""
    gate = asyncio.Semaphore(UPLOADS_AT_ONCE)
    done = 0

    async def one(n: int) -> dict[str, Any]:
        nonlocal done
        async with gate:
            name, data = files[n]
            answer = await cores[n % len(cores)].upload(name, data)
        done += 1
        progress(done)
        return answer

    return await asyncio.gather(*(one(n) for n in range(len(files))))


async def connected_servers(stack: LocalStack) -> dict[str, str | None]:
    """`nats_server` of each running service replica's /healthcheck (None: not connected)."""
    out: dict[str, str | None] = {}
    async with httpx.AsyncClient(timeout=2.0) as http:
        for svc in stack.running:
            key = f"{svc.spec.name}#{svc.replica}"
            try:
                body = (await http.get(f"{svc.url}/healthcheck")).json()
            except (httpx.HTTPError, ValueError):
                out[key] = None
                continue
            out[key] = body.get("nats_server") if body.get("nats") == "connected" else None
    return out


async def wait_reconnected(stack: LocalStack, cluster: NatsCluster, within: float = 30.0) -> float:
    """Until every service replica is connected to a running node; returns the seconds taken."""
    began = time.monotonic()
    servers: dict[str, str | None] = {}
    while time.monotonic() - began < within:
        servers = await connected_servers(stack)
        live = {node.address for node in cluster if node.is_running}
        if servers and all(server in live for server in servers.values()):
            return time.monotonic() - began
        await asyncio.sleep(0.05)
    msg = f"services not reconnected to a live node within {within:.0f} s: {servers}"
    raise WaitTimeout(msg)


async def settle(core: Core, file_ids: Iterable[str], within: float) -> dict[str, list[Any]]:
    """Each file's jobs once settled: the latest job final and not a first attempt that timed
    out (the sweeper queues the automatic attempt in the same commit as the timeout)."""
    deadline = time.monotonic() + within
    pending = set(file_ids)
    settled: dict[str, list[Any]] = {}
    gate = asyncio.Semaphore(8)

    async def look(file_id: str) -> None:
        async with gate:
            jobs = (await core.file(file_id))["jobs"]
        last = jobs[-1]
        if last["status"] in FINAL and not (last["status"] == "timeout" and len(jobs) == 1):
            settled[file_id] = jobs
            pending.discard(file_id)

    while pending and time.monotonic() < deadline:
        await asyncio.gather(*(look(file_id) for file_id in list(pending)))
        if pending:
            await asyncio.sleep(0.5)
    if pending:
        example = await core.file(next(iter(pending)))
        msg = f"{len(pending)} file(s) not settled within {within:.0f} s, e.g. {example['jobs']}"
        raise WaitTimeout(msg)
    return settled


def log_marks(stack: LocalStack) -> dict[str, int]:
    """Where each service log ends now, so that a scenario reads only its own lines."""
    return {str(svc.log_path): svc.log_path.stat().st_size for svc in stack.running}


def _log_text(stack: LocalStack, name: str, marks: dict[str, int]) -> str:
    parts = []
    for svc in stack.processes(name):
        with svc.log_path.open("rb") as log:
            log.seek(marks.get(str(svc.log_path), 0))
            parts.append(log.read().decode(errors="replace"))
    return "".join(parts)


@dataclass
class Tally:
    """What one scenario did: the figures it reports and what its assertions read."""

    scenario: str
    files: dict[str, list[dict[str, Any]]]
    recovery_seconds: list[float]
    duplicates_dropped: int
    repeats_answered: int
    result_copies: dict[str, int]
    publish_retries: Counter[str]
    elapsed: float

    @property
    def jobs(self) -> list[dict[str, Any]]:
        return [job for jobs in self.files.values() for job in jobs]

    def count(self, status: str) -> int:
        return sum(1 for job in self.jobs if job["status"] == status)

    @property
    def done(self) -> int:
        """Files whose latest job is done."""
        return sum(1 for jobs in self.files.values() if jobs[-1]["status"] == "done")

    @property
    def retried(self) -> int:
        return sum(1 for jobs in self.files.values() if len(jobs) > 1)

    def report(self) -> str:
        recovery = ", ".join(f"{s:.2f}" for s in self.recovery_seconds) or "-"
        return (
            f"{self.scenario}: jobs {len(self.files)}, done {self.done}, "
            f"timeout (result lost) {self.count('timeout')}, retried {self.retried}, "
            f"duplicates dropped {self.duplicates_dropped}, "
            f"repeats answered from memory {self.repeats_answered}, "
            f"recovery {recovery} s, all settled in {self.elapsed:.1f} s"
        )

    def unexplained_double_results(self) -> list[str]:
        """Jobs whose result crossed the cluster more than once with no cause: no republish
        of the request (a second recognition) and no publish retry logged for that result."""
        bad = []
        for job in self.jobs:
            mid = f"result:{job['job_id']}:{job['attempt']}"
            copies = self.result_copies.get(mid, 0)
            allowed = 1 + job["republish_count"] + self.publish_retries[mid]
            if copies > allowed:
                bad.append(f"{mid}: {copies} copies, {allowed} allowed")
        return bad


def tally(
    scenario: str,
    stack: LocalStack,
    files: dict[str, list[dict[str, Any]]],
    wires: NodeWires,
    recovery: list[float],
    elapsed: float,
    marks: dict[str, int],
) -> Tally:
    """The scenario's figures from the jobs, the recorders and the services' logs (the lines
    written after `marks`)."""
    service_logs = _log_text(stack, "tabular-parser", marks) + _log_text(
        stack, "scan-gateway", marks
    )
    retries = Counter(_RETRY_LINE.findall(service_logs))
    copies = {
        f"result:{job['job_id']}:{job['attempt']}": wires.copies(
            f"result:{job['job_id']}:{job['attempt']}"
        )
        for jobs in files.values()
        for job in jobs
    }
    return Tally(
        scenario=scenario,
        files=files,
        recovery_seconds=recovery,
        # Each job took one result (one final status, one result_msg_id), so every further
        # copy that crossed the cluster was dropped by the core (the intake logs it at INFO,
        # below uvicorn's level, hence counted on the wire).
        duplicates_dropped=sum(max(0, n - 1) for n in copies.values()),
        repeats_answered=service_logs.count("ack again, no second processing"),
        result_copies=copies,
        publish_retries=retries,
        elapsed=elapsed,
    )
