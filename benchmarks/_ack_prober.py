"""The client side of the ack benchmark, in a process of its own.

A client of the recognition services is another process (arm-core): it reads an ack from its
own socket on its own event loop. Probing from the service's process put the service's work
after each ack (the job's S3 read, the worker's pipe, the result's upload) on the loop that
had to read the ack, and counted it as ack latency. So `bench_ack_latency` runs this module
for each round of probes: it publishes the probes one at a time, each followed by one round
trip of a bare nats-py echo answered in this process on a second connection (the floor: the
same server, client and moment, without FastStream, validation or a confirm), and prints the
two lists of milliseconds as JSON.

`python -m benchmarks._ack_prober URL SUBJECT RESULT_SUBJECT BUCKET KEY PROBES INTERVAL`
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
import uuid
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import nats
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg

__all__ = ["WAIT_SECONDS", "AckClock", "probe", "publish_request", "request_body"]

MSG_ID = "Nats-Msg-Id"
WAIT_SECONDS = 300.0  # a bound on any wait, so a broken run ends by itself


def request_body(bucket: str, key: str, deadline: str = "2099-01-01T00:00:00Z") -> dict[str, Any]:
    """A tabular recognition request 1.0 for the object `key`."""
    return {
        "schema_version": "1.0",
        "job_id": str(uuid.uuid4()),
        "file_id": str(uuid.uuid4()),
        "pipeline": "tabular",
        "file_type": "XLSX",
        "original_name": key.rsplit("/", 1)[-1],
        "s3": {"bucket": bucket, "key": key},
        "reply_deadline": deadline,
        "attempt": 1,
    }


class AckClock:
    """Publish time of each request and arrival time of its ack / result."""

    def __init__(self) -> None:
        self.sent: dict[str, float] = {}
        self.acked: dict[str, float] = {}
        self.results: dict[str, float] = {}
        self.timeouts: set[str] = set()
        self.changed = asyncio.Event()

    async def on_message(self, msg: Msg) -> None:
        now = time.perf_counter()
        mid = (msg.headers or {}).get(MSG_ID, "")
        kind, _, rest = mid.partition(":")
        job = rest.rpartition(":")[0]
        (self.acked if kind == "ack" else self.results)[job] = now
        if kind == "result" and msg.data.find(b'"TIMEOUT"') >= 0:
            self.timeouts.add(job)
        self.changed.set()

    async def wait(self, jobs: list[str], table: dict[str, float]) -> None:
        async with asyncio.timeout(WAIT_SECONDS):
            while not all(job in table for job in jobs):
                self.changed.clear()
                await self.changed.wait()


async def publish_request(
    nc: NatsClient, subject: str, clock: AckClock, body: dict[str, Any]
) -> None:
    """Publish `body` with its Nats-Msg-Id, noting the moment it was handed to the client."""
    clock.sent[body["job_id"]] = time.perf_counter()
    headers = {MSG_ID: f"{body['job_id']}:1"}
    await nc.publish(subject, json.dumps(body).encode(), headers=headers)
    await nc.flush()


class _Echo:
    """A bare nats-py subscriber answering each message at once on a subject of its own."""

    def __init__(self, subject: str) -> None:
        self.subject = subject
        self._waiting: dict[bytes, asyncio.Future[float]] = {}

    async def start(self, answering: NatsClient, asking: NatsClient) -> None:
        async def answer(msg: Msg) -> None:
            await answering.publish(f"{self.subject}.ack", msg.data)

        async def arrived(msg: Msg) -> None:
            waiting = self._waiting.pop(msg.data, None)
            if waiting is not None and not waiting.done():
                waiting.set_result(time.perf_counter())

        await answering.subscribe(self.subject, cb=answer)
        await asking.subscribe(f"{self.subject}.ack", cb=arrived)
        await answering.flush()
        await asking.flush()

    async def round_trip(self, nc: NatsClient) -> float:
        """One message published as a probe is (publish + flush) to its echo, in ms."""
        token = uuid.uuid4().hex.encode()
        arrived: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self._waiting[token] = arrived
        sent = time.perf_counter()
        await nc.publish(self.subject, token)
        await nc.flush()
        async with asyncio.timeout(WAIT_SECONDS):
            return (await arrived - sent) * 1000


async def probe(
    url: str,
    subject: str,
    result_subject: str,
    bucket: str,
    key: str,
    *,
    probes: int,
    interval: float,
) -> tuple[list[float], list[float]]:
    """Ack latencies and the echo floor (ms) of `probes` requests published one at a time,
    each after the previous one's ack, `interval` seconds apart."""
    nc = await nats.connect(url)
    echo_nc = await nats.connect(url)
    try:
        clock = AckClock()
        echo = _Echo(f"{result_subject}.echo.{uuid.uuid4().hex}")
        await echo.start(echo_nc, nc)
        await nc.subscribe(result_subject, cb=clock.on_message)
        await nc.flush()
        acks: list[float] = []
        floor: list[float] = []
        for _ in range(probes):
            body = request_body(bucket, key)
            await publish_request(nc, subject, clock, body)
            await clock.wait([body["job_id"]], clock.acked)
            acks.append((clock.acked[body["job_id"]] - clock.sent[body["job_id"]]) * 1000)
            floor.append(await echo.round_trip(nc))
            await asyncio.sleep(interval)
        return acks, floor
    finally:
        await nc.drain()
        await echo_nc.drain()


def _main(argv: list[str]) -> None:
    url, subject, result_subject, bucket, key, probes, interval = argv
    acks, floor = asyncio.run(
        probe(
            url,
            subject,
            result_subject,
            bucket,
            key,
            probes=int(probes),
            interval=float(interval),
        )
    )
    print(json.dumps({"acks": acks, "floor": floor}))


if __name__ == "__main__":
    _main(sys.argv[1:])
