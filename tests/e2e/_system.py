"""What the end-to-end tests share: a fresh database, the local stack, the core's API, the wire.

Everything is real: nats-server, moto S3, the database of the session (PostgreSQL in CI) and
the three services as processes started by `services.devstack.LocalStack`. Every wait is
bounded; a wait that runs out fails the test with what the system showed last.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import nats
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg

from services.arm_core.db import migrate
from services.devstack import LocalStack
from tests.support.databases import scratch_database
from tests.support.nats_wire import round_trip

FINAL = frozenset({"done", "needs_check", "error", "timeout", "dlq"})
ACTIVE = frozenset({"queued", "published", "processing"})
MSG_ID = "Nats-Msg-Id"

# Short clocks so that faults resolve within seconds; one worker process per service on the
# two-core machine. Each stack may override any of them.
FAST_ENV: dict[str, str] = {
    "ACK_TIMEOUT_SECONDS": "1",
    "OUTBOX_MAX_REPUBLISH": "2",
    "RELAY_POLL_INTERVAL_SECONDS": "0.2",
    "TABULAR_REPLY_BUDGET_SECONDS": "60",
    "IMAGE_REPLY_BUDGET_SECONDS": "60",
    "DB_MIGRATE_ON_START": "false",
    "PARSE_WORKERS": "1",
    "OCR_WORKERS": "1",
    "JOBS_IN_FLIGHT": "4",
    "PUBLISH_RETRY_PAUSE_SECONDS": "0.1",
    "PUBLISH_CONFIRM_TIMEOUT_SECONDS": "1",
    "NATS_RECONNECT_WAIT_SECONDS": "0.2",
    "GRACEFUL_TIMEOUT_SECONDS": "2",
}


def is_postgres(url: str) -> bool:
    """Whether a SQLAlchemy URL names PostgreSQL."""
    return url.startswith("postgresql")


@contextlib.asynccontextmanager
async def fresh_database(base_url: str, tmp_dir: Path) -> AsyncIterator[str]:
    """A new, migrated database beside `base_url` (the session's), dropped afterwards.

    Each stack gets its own, so the core's relay never sees another test's queued rows and a
    stack's counts are its own. PostgreSQL: a database on the same server; SQLite: a file.
    """
    if not is_postgres(base_url):
        url = f"sqlite+aiosqlite:///{tmp_dir / f'e2e-{uuid.uuid4().hex[:8]}.sqlite3'}"
        await migrate(url)
        yield url
        return

    async with scratch_database(base_url, "arm_ka_e2e") as url:
        await migrate(url)
        yield url


def stack_env(db_url: str, **overrides: str) -> dict[str, str]:
    """FAST_ENV on `db_url`, with overrides by plain name."""
    return {**FAST_ENV, "OPENBAO__DB__DB_URL": db_url, **overrides}


async def start_stack(stack: LocalStack) -> LocalStack:
    """Start a stack off the event loop (its start blocks while the services come up)."""
    await asyncio.to_thread(stack.__enter__)
    return stack


async def stop_stack(stack: LocalStack) -> None:
    """Stop a stack off the event loop."""
    await asyncio.to_thread(stack.stop)


def service_log(stack: LocalStack, name: str, replica: int = 0, size: int = 4000) -> str:
    """The tail of one service's log, for failure messages."""
    path = stack.process(name, replica).log_path
    try:
        return path.read_text(errors="replace")[-size:]
    except OSError:
        return "(no log)"


class WaitTimeout(AssertionError):
    """A bounded wait ran out; the message says what was seen last."""


class Core:
    """The core's REST API (one replica), with bounded waits on jobs."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.http = httpx.AsyncClient(base_url=base_url, timeout=30.0)

    async def aclose(self) -> None:
        await self.http.aclose()

    async def upload(self, name: str, data: bytes) -> dict[str, Any]:
        """POST /api/v1/files; asserts 201 and returns the answer."""
        response = await self.http.post("/api/v1/files", files={"file": (name, data)})
        assert response.status_code == 201, response.text
        body: dict[str, Any] = response.json()
        return body

    async def upload_response(self, name: str, data: bytes) -> httpx.Response:
        """POST /api/v1/files, whatever the answer."""
        return await self.http.post("/api/v1/files", files={"file": (name, data)})

    async def recognize_again(self, file_id: str) -> dict[str, Any]:
        """POST /api/v1/files/{id}/recognitions; asserts 201."""
        response = await self.http.post(f"/api/v1/files/{file_id}/recognitions")
        assert response.status_code == 201, response.text
        body: dict[str, Any] = response.json()
        return body

    async def job(self, job_id: str) -> dict[str, Any]:
        response = await self.http.get(f"/api/v1/jobs/{job_id}")
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    async def file(self, file_id: str) -> dict[str, Any]:
        response = await self.http.get(f"/api/v1/files/{file_id}")
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    async def get(self, path: str) -> Any:
        response = await self.http.get(path)
        assert response.status_code == 200, response.text
        return response.json()

    async def documents(self, file_id: str, job_id: str | None = None) -> list[dict[str, Any]]:
        """The full documents of a file's latest result (or of one job)."""
        params = {"job_id": job_id} if job_id else None
        response = await self.http.get(f"/api/v1/files/{file_id}/documents", params=params)
        assert response.status_code == 200, response.text
        items = response.json()["items"]
        return [await self.get(item["url"]) for item in items]

    async def wait_status(
        self, job_id: str, statuses: Iterable[str], within: float = 60.0
    ) -> dict[str, Any]:
        """Poll a job until its status is one of `statuses`."""
        wanted = frozenset(statuses)
        deadline = time.monotonic() + within
        job: dict[str, Any] = {}
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.TransportError):
                job = await self.job(job_id)
                if job["status"] in wanted:
                    return job
            await asyncio.sleep(0.1)
        msg = f"job {job_id} not in {sorted(wanted)} within {within:.0f} s; last seen {job}"
        raise WaitTimeout(msg)

    async def wait_final(self, job_id: str, within: float = 60.0) -> dict[str, Any]:
        """Poll a job until it is in a final state."""
        return await self.wait_status(job_id, FINAL, within)

    async def wait_all_final(
        self, job_ids: Iterable[str], within: float = 90.0
    ) -> dict[str, dict[str, Any]]:
        """Every job in a final state, within one shared bound."""
        deadline = time.monotonic() + within
        done: dict[str, dict[str, Any]] = {}
        for job_id in job_ids:
            left = max(0.5, deadline - time.monotonic())
            done[job_id] = await self.wait_final(job_id, left)
        return done


@dataclass
class Wire:
    """A plain nats-py subscriber recording every message on some subjects (the wire truth)."""

    client: NatsClient
    messages: list[tuple[str, str | None, dict[str, Any] | None]] = field(default_factory=list)

    @classmethod
    async def listen(cls, url: str, subjects: Iterable[str]) -> Wire:
        client = await nats.connect(url, max_reconnect_attempts=-1, reconnect_time_wait=0.2)
        wire = cls(client)
        for subject in subjects:
            await client.subscribe(subject, cb=wire._record)
        await round_trip(client)
        return wire

    async def _record(self, msg: Msg) -> None:
        body: dict[str, Any] | None
        try:
            loaded = json.loads(msg.data)
            body = loaded if isinstance(loaded, dict) else None
        except ValueError:
            body = None
        self.messages.append((msg.subject, (msg.headers or {}).get(MSG_ID), body))

    def msg_ids(self, subject: str) -> Counter[str]:
        """How many times each Nats-Msg-Id went out on `subject`."""
        return Counter(mid or "" for subj, mid, _ in self.messages if subj == subject)

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.client.drain()


async def publish_raw(
    url: str, subject: str, body: Mapping[str, Any] | bytes, msg_id: str | None
) -> None:
    """Publish one message with a plain nats-py client (a crafted envelope or request)."""
    client = await nats.connect(url)
    try:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        headers = {MSG_ID: msg_id} if msg_id is not None else None
        await client.publish(subject, data, headers=headers)
        await round_trip(client)
    finally:
        await client.close()


def final_statuses(jobs: Mapping[str, Mapping[str, Any]]) -> Counter[str]:
    """How many jobs ended in each status."""
    return Counter(str(job["status"]) for job in jobs.values())
