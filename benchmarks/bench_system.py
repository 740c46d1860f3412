"""The whole system, end to end: throughput, pipeline overhead, ack latency and memory.

The three services run as real processes (`services.devstack.LocalStack`) on a real
nats-server, moto S3 and PostgreSQL (SQLite when no PostgreSQL answers). Files are small ОСВ
workbooks uploaded through the core's REST API; every figure comes from the core's own job
timestamps (created_at, published_at, started_at = ack received, finished_at) and the service's
`metrics.duration_ms` (request arrival → result file written), not from polling.

1. Throughput: JOBS files uploaded at once; jobs per second = JOBS / (last finished_at − first
   created_at), with one and with two tabular-parser replicas (each with one worker process);
   the ratio two/one says how far a second replica helps on this machine.
2. Pipeline overhead: SEQUENTIAL files one at a time; per job, upload → done minus the
   service's own duration is what the pipeline adds (relay, NATS, S3, intake, storage); given
   in ms and as a share of upload → done.
3. Ack latency (publish → ack taken by the core) p50 / p99, idle (the sequential jobs) and under
   load (the throughput burst), and the ratio.
Jobs that end in timeout instead of done are counted and left out of the figures: a result
that reaches the core before the relay's commit of the publish is dropped (a known defect of
arm-core at the time of writing; the reply budget is short here so such a job ends in the run).
4. Memory: RSS of each service (the process and its workers) at rest after start, and the peak
   while the burst runs (sampled every 50 ms from /proc).

All of it twice: on one nats-server, then on a 3-node NATS cluster (`services.devstack.
nats_cluster`, the services given the three URLs), so the cost of the cluster's routes shows.

Run: `python -m benchmarks system` (the report goes to benchmarks/results/system.txt).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._system_files import small_osv_xlsx
from benchmarks._system_stack import ApiClient, bench_database, rss_of_session
from services.devstack import LocalStack
from services.devstack.nats_cluster import NatsCluster

JOBS = 60
SEQUENTIAL = 15
UPLOAD_CONCURRENCY = 8
WAIT_SECONDS = 90.0
ENV = {
    "ACK_TIMEOUT_SECONDS": "30",
    "RELAY_POLL_INTERVAL_SECONDS": "0.2",
    # Short, so that a job whose result the core dropped ends (in timeout) within the run.
    "TABULAR_REPLY_BUDGET_SECONDS": "30",
    "DB_MIGRATE_ON_START": "false",
    "PARSE_WORKERS": "1",
    "OCR_WORKERS": "1",
    "JOBS_IN_FLIGHT": "8",
}
SERVICES = ("arm-core", "tabular-parser", "scan-gateway")


def _ts(value: str) -> dt.datetime:
    return dt.datetime.fromisoformat(value.replace("Z", "+00:00"))


def _ms(later: str, earlier: str) -> float:
    return (_ts(later) - _ts(earlier)).total_seconds() * 1000


def _ack_latencies(jobs: list[dict[str, Any]]) -> list[float]:
    """publish → ack per job; a job whose result the core took first has no ack time."""
    return [_ms(j["started_at"], j["published_at"]) for j in jobs if j["started_at"]]


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class _MemorySampler:
    """Peak RSS per service while running (a thread reading /proc)."""

    def __init__(self, stack: LocalStack) -> None:
        self._stack = stack
        self.peak: dict[str, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            for name, rss in _memory(self._stack).items():
                self.peak[name] = max(self.peak.get(name, 0), rss)
            time.sleep(0.05)

    def __enter__(self) -> _MemorySampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)


def _memory(stack: LocalStack) -> dict[str, int]:
    """RSS per service name (replicas summed), in bytes."""
    out: dict[str, int] = {}
    for svc in stack.running:
        out[svc.spec.name] = out.get(svc.spec.name, 0) + rss_of_session(svc.pid)
    return out


async def _burst(api: ApiClient, data: bytes, count: int) -> list[dict[str, Any]]:
    gate = asyncio.Semaphore(UPLOAD_CONCURRENCY)

    async def one(i: int) -> str:
        async with gate:
            return str((await api.upload(f"burst-{i}.xlsx", data))["job_id"])

    job_ids = await asyncio.gather(*(one(i) for i in range(count)))
    return await api.wait_final(list(job_ids), WAIT_SECONDS)


async def _sequential(api: ApiClient, data: bytes, count: int) -> list[dict[str, Any]]:
    jobs = []
    for i in range(count):
        upload = await api.upload(f"seq-{i}.xlsx", data)
        jobs.extend(await api.wait_final([str(upload["job_id"])], WAIT_SECONDS))
    return jobs


def _check_done(jobs: list[dict[str, Any]], what: str) -> None:
    """Every job done, or timed out (a dropped result, counted in the report); else an error."""
    bad = [j for j in jobs if j["status"] not in {"done", "timeout"}]
    if bad:
        msg = f"{what}: {len(bad)} job(s) neither done nor timed out, e.g. {bad[0]}"
        raise RuntimeError(msg)


def _done(jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [j for j in jobs if j["status"] == "done"]


async def _run_stack(
    db_url: str,
    data_dir: Path,
    parsers: int,
    data: bytes,
    *,
    sequential: bool,
    cluster: NatsCluster | None = None,
) -> dict[str, Any]:
    env = {**ENV, "OPENBAO__DB__DB_URL": db_url}
    if cluster is not None:  # every node's URL; the stack starts no nats-server of its own
        env["OPENBAO__NATS__NATS_URL"] = cluster.url
    stack = LocalStack(
        data_dir=data_dir,
        extra_env=env,
        replicas={"tabular-parser": parsers},
        nats=cluster.nodes[0].server if cluster is not None else None,
    )
    await asyncio.to_thread(stack.__enter__)
    try:
        api = ApiClient(stack.core_url)
        try:
            # Warm-up: the worker pools start on their first file.
            warm = await _burst(api, data, 2 * parsers)
            _check_done(warm, "warm-up")
            await asyncio.sleep(1.0)
            at_rest = _memory(stack)
            seq: list[dict[str, Any]] = []
            if sequential:
                seq = await _sequential(api, data, SEQUENTIAL)
                _check_done(seq, "sequential")
            with _MemorySampler(stack) as sampler:
                burst = await _burst(api, data, JOBS)
            _check_done(burst, "burst")
        finally:
            await api.aclose()
    finally:
        await asyncio.to_thread(stack.stop)
    done = _done(burst)
    span = max(_ts(j["finished_at"]) for j in done) - min(_ts(j["created_at"]) for j in burst)
    return {
        "jobs_per_second": len(done) / span.total_seconds(),
        "burst": burst,
        "sequential": seq,
        "at_rest": at_rest,
        "peak": sampler.peak,
    }


def _mib(value: int) -> str:
    return f"{value / 1024 / 1024:7.1f} MiB"


async def _measure(data: bytes, root: Path, cluster: NatsCluster | None) -> list[str]:
    """The report's lines for one NATS topology (one server, or the cluster)."""
    await asyncio.to_thread(root.mkdir, parents=True, exist_ok=True)
    async with bench_database(root) as db_url:
        one = await _run_stack(db_url, root / "one", 1, data, sequential=True, cluster=cluster)
    async with bench_database(root) as db_url:
        two = await _run_stack(db_url, root / "two", 2, data, sequential=False, cluster=cluster)
    backend = "PostgreSQL" if db_url.startswith("postgresql") else "SQLite"
    nats = "a 3-node NATS cluster (services given all three URLs)" if cluster else "one nats-server"

    seq = _done(one["sequential"])
    timed_out = sum(
        1 for j in [*one["sequential"], *one["burst"], *two["burst"]] if j["status"] == "timeout"
    )
    total = [_ms(j["finished_at"], j["created_at"]) for j in seq]
    parse = [float(j["metrics"]["duration_ms"]) for j in seq]
    overhead = [t - p for t, p in zip(total, parse, strict=True)]
    share = [o / t for o, t in zip(overhead, total, strict=True)]
    ack_idle = _ack_latencies(seq)
    ack_load = _ack_latencies(_done(one["burst"]))
    ack_load_two = _ack_latencies(_done(two["burst"]))
    unacked = sum(1 for j in [*seq, *one["burst"], *two["burst"]] if j["started_at"] is None)

    lines = [
        f"NATS: {nats}",
        f"database: {backend}; file: small ОСВ XLSX ({len(data)} bytes); "
        f"burst: {JOBS} files, {UPLOAD_CONCURRENCY} uploads at a time; "
        f"one worker process per tabular-parser replica",
        "",
        "throughput (upload of the first → finish of the last):",
        f"  1 tabular-parser replica : {one['jobs_per_second']:6.2f} jobs/s",
        f"  2 tabular-parser replicas: {two['jobs_per_second']:6.2f} jobs/s",
        f"  ratio 2/1                : {two['jobs_per_second'] / one['jobs_per_second']:6.2f}",
        "",
        f"pipeline overhead, {SEQUENTIAL} files one at a time (median):",
        f"  upload → done            : {statistics.median(total):7.1f} ms",
        f"  service duration_ms      : {statistics.median(parse):7.1f} ms",
        f"  overhead (difference)    : {statistics.median(overhead):7.1f} ms",
        f"  overhead / (upload→done) : {statistics.median(share):7.2f}",
        "",
        "ack latency, publish → ack taken by the core:",
        f"  idle (sequential)        : p50 {_pct(ack_idle, 0.5):7.1f} ms   p99 {_pct(ack_idle, 0.99):7.1f} ms",
        f"  under load, 1 replica    : p50 {_pct(ack_load, 0.5):7.1f} ms   p99 {_pct(ack_load, 0.99):7.1f} ms",
        f"  under load, 2 replicas   : p50 {_pct(ack_load_two, 0.5):7.1f} ms   p99 {_pct(ack_load_two, 0.99):7.1f} ms",
        f"  p99 load(1) / idle       : {_pct(ack_load, 0.99) / max(_pct(ack_idle, 0.99), 0.001):7.2f}",
        f"  jobs whose result was taken before their ack (no ack time): {unacked}",
        "",
        f"jobs that ended in timeout instead of done (a result the core dropped): {timed_out} "
        f"of {len(one['sequential']) + len(one['burst']) + len(two['burst'])}",
        "",
        "memory, RSS of each service with its worker processes (1-replica stack):",
        f"  {'service':<16}{'at rest':>12}{'peak in burst':>16}",
    ]
    for name in SERVICES:
        if name in one["at_rest"]:
            lines.append(
                f"  {name:<16}{_mib(one['at_rest'][name]):>12}{_mib(one['peak'].get(name, 0)):>16}"
            )
    lines.append(
        f"  tabular-parser ×2: at rest {_mib(two['at_rest'].get('tabular-parser', 0))}, "
        f"peak {_mib(two['peak'].get('tabular-parser', 0))}"
    )
    return lines


async def _main() -> str:
    data = small_osv_xlsx()
    with tempfile.TemporaryDirectory(prefix="bench-system-") as tmp:
        root = Path(tmp)
        single = await _measure(data, root / "single", None)
        with NatsCluster() as cluster:
            clustered = await _measure(data, root / "cluster", cluster)
    return "\n".join([*single, "", *clustered])


def main() -> str:
    """Run the benchmark and return its report."""
    return asyncio.run(_main())


if __name__ == "__main__":
    print(main())
