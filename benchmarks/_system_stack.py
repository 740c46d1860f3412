"""What the system benchmark needs around the local stack: a database, the API, process memory.

- `bench_database()`: a fresh PostgreSQL database (ARM_BENCH_DATABASE_URL, else
  ARM_TEST_DATABASE_URL, else the local server at 127.0.0.1:5432), migrated, dropped after;
  SQLite when no PostgreSQL answers (the report says which).
- `ApiClient`: uploads and bounded waits on the core's REST API.
- `rss_of_session(pid)`: resident memory of a service process and every process it started
  (the services run in their own sessions, so the session id groups a service's workers).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx

from services.arm_core.db import migrate
from tests.support.databases import scratch_database

__all__ = ["ApiClient", "bench_database", "rss_of_session"]

FINAL = frozenset({"done", "needs_check", "error", "timeout", "dlq"})
_LOCAL_PG = "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"


@contextlib.asynccontextmanager
async def bench_database(tmp_dir: Path) -> AsyncIterator[str]:
    """A migrated database of the benchmark's own."""
    base = os.environ.get("ARM_BENCH_DATABASE_URL") or os.environ.get("ARM_TEST_DATABASE_URL")
    base = base or _LOCAL_PG
    async with contextlib.AsyncExitStack() as stack:
        try:
            db_url = await stack.enter_async_context(
                scratch_database(base, "arm_ka_bench", connect_timeout=5)
            )
        except Exception:  # no PostgreSQL reachable: a SQLite file
            sqlite = f"sqlite+aiosqlite:///{tmp_dir / 'bench.sqlite3'}"
            await migrate(sqlite)
            yield sqlite
            return
        await migrate(db_url)
        yield db_url


class ApiClient:
    """The core's REST API."""

    def __init__(self, base_url: str) -> None:
        self.http = httpx.AsyncClient(base_url=base_url, timeout=60.0)

    async def aclose(self) -> None:
        await self.http.aclose()

    async def upload(self, name: str, data: bytes) -> dict[str, Any]:
        response = await self.http.post("/api/v1/files", files={"file": (name, data)})
        response.raise_for_status()
        body: dict[str, Any] = response.json()
        return body

    async def job(self, job_id: str) -> dict[str, Any]:
        response = await self.http.get(f"/api/v1/jobs/{job_id}")
        response.raise_for_status()
        body: dict[str, Any] = response.json()
        return body

    async def wait_final(self, job_ids: list[str], within: float) -> list[dict[str, Any]]:
        """Every job in a final state; RuntimeError when the bound runs out."""
        deadline = time.monotonic() + within
        done: dict[str, dict[str, Any]] = {}
        while time.monotonic() < deadline:
            for job_id in job_ids:
                if job_id not in done:
                    job = await self.job(job_id)
                    if job["status"] in FINAL:
                        done[job_id] = job
            if len(done) == len(job_ids):
                return [done[j] for j in job_ids]
            await asyncio.sleep(0.05)
        left = [j for j in job_ids if j not in done]
        last = await self.job(left[0])
        msg = f"{len(left)} job(s) not final within {within:.0f} s, e.g. {last}"
        raise RuntimeError(msg)


def _stat(pid: int) -> tuple[int, int] | None:
    """(session id, RSS in KiB) of a process, or None when it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    # Fields after the parenthesised command: state ppid pgrp session ...
    session = int(stat.rsplit(")", 1)[1].split()[3])
    rss = next(
        (int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0
    )
    return session, rss


def rss_of_session(pid: int) -> int:
    """RSS (bytes) of every process in the session led by `pid` (a service and its workers)."""
    total = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            found = _stat(int(entry))
            if found is not None and found[0] == pid:
                total += found[1]
    return total * 1024
