"""A fake scanning system: a real HTTP server on loopback speaking docs/scanning-system-protocol.md.

Tests script what it answers: a result set (item name → JSON) per uploaded file (by its
SHA-256) or as the default, and fault modes — slow jobs, 5xx answers before success, a broken
JSON item, an item that is listed but missing, a failed job, a required bearer token. Without a
script it can build the result set with the local recogniser (`engine=`), which is how the
local stack runs the HTTP path end to end.

    with FakeScanServer(FakeScanSystem(token="t")) as server:
        server.system.script({"page-1.json": item}, faults=Faults(status_5xx=2))
        ... ScanClient(ScanClientSettings(server.url, SecretStr("t"))) ...
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from services.runtime.threaded_server import ThreadedServer

__all__ = ["FakeScanServer", "FakeScanSystem", "Faults", "ItemsEngine"]

ItemsEngine = Callable[[bytes, str], dict[str, bytes]]
"""Builds a result set from a file and its type (e.g. the local recogniser)."""

BROKEN_JSON = b'{"format": "scan-result-item/1", "page": 1, "tables": [{"rows": ['


@dataclass(frozen=True, slots=True)
class Faults:
    """What goes wrong, per scripted result set.

    `processing_seconds`: the job stays `running` that long (slow). `submit_5xx`,
    `status_5xx`, `item_5xx`: that many 503 answers before each kind of call succeeds (item
    faults count per item). `broken_items`: served as invalid JSON. `missing_items`: listed in
    the job but 404. `fail_job`: the job ends `failed` with this reason.
    """

    processing_seconds: float = 0.0
    submit_5xx: int = 0
    status_5xx: int = 0
    item_5xx: int = 0
    broken_items: frozenset[str] = frozenset()
    missing_items: frozenset[str] = frozenset()
    fail_job: str | None = None


@dataclass(slots=True)
class _Script:
    items: dict[str, bytes]
    faults: Faults


@dataclass(slots=True)
class _Job:
    id: str
    script: _Script
    started: float
    file_type: str
    status_calls: int = 0
    item_calls: dict[str, int] = field(default_factory=dict)


class FakeScanSystem:
    """The fake's state and its Starlette app; thread-safe enough for one server thread."""

    def __init__(self, *, token: str | None = None, engine: ItemsEngine | None = None) -> None:
        self.token = token
        self.engine = engine
        self._scripts: dict[str | None, _Script] = {}
        self._jobs: dict[str, _Job] = {}
        self._submit_calls = 0
        self.requests: list[tuple[str, str]] = []
        """(method, path) of every request, in order."""
        self.authorizations: list[str | None] = []
        self.app = Starlette(
            routes=[
                Route("/api/v1/jobs", self._submit, methods=["POST"]),
                Route("/api/v1/jobs/{job_id}", self._status, methods=["GET"]),
                Route("/api/v1/jobs/{job_id}/items/{name}", self._item, methods=["GET"]),
            ]
        )

    def script(
        self,
        items: Mapping[str, bytes | Mapping[str, Any]],
        *,
        faults: Faults | None = None,
        for_file: bytes | None = None,
    ) -> None:
        """Answer `for_file` (or any file without its own script) with these items."""
        encoded = {
            name: value
            if isinstance(value, bytes)
            else json.dumps(value, ensure_ascii=False).encode("utf-8")
            for name, value in items.items()
        }
        key = hashlib.sha256(for_file).hexdigest() if for_file is not None else None
        self._scripts[key] = _Script(encoded, faults or Faults())

    def _authorized(self, request: Request) -> bool:
        header = request.headers.get("authorization")
        self.authorizations.append(header)
        return self.token is None or header == f"Bearer {self.token}"

    async def _submit(self, request: Request) -> Response:
        self.requests.append(("POST", request.url.path))
        if not self._authorized(request):
            return JSONResponse({"error": "unauthorized"}, status_code=401)
        form = await request.form()
        upload = form.get("file")
        if upload is None or isinstance(upload, str):
            return JSONResponse({"error": "no file part"}, status_code=400)
        data = await upload.read()
        file_type = str(form.get("file_type") or "PDF")
        script = self._scripts.get(hashlib.sha256(data).hexdigest()) or self._scripts.get(None)
        if script is None and self.engine is not None:
            items = await asyncio.to_thread(self.engine, data, file_type)
            script = _Script(items, Faults())
        if script is None:
            script = _Script({}, Faults(fail_job="no result set is scripted for this file"))
        self._submit_calls += 1
        if self._submit_calls <= script.faults.submit_5xx:
            return JSONResponse({"error": "try later"}, status_code=503)
        job = _Job(uuid.uuid4().hex, script, time.monotonic(), file_type)
        self._jobs[job.id] = job
        return JSONResponse({"id": job.id, "status": "queued"}, status_code=202)

    async def _status(self, request: Request) -> Response:
        self.requests.append(("GET", request.url.path))
        if not self._authorized(request):
            return JSONResponse({"error": "unauthorized"}, status_code=401)
        job = self._jobs.get(request.path_params["job_id"])
        if job is None:
            return JSONResponse({"error": "no such job"}, status_code=404)
        job.status_calls += 1
        faults = job.script.faults
        if job.status_calls <= faults.status_5xx:
            return JSONResponse({"error": "try later"}, status_code=503)
        if time.monotonic() - job.started < faults.processing_seconds:
            return JSONResponse({"id": job.id, "status": "running"})
        if faults.fail_job is not None:
            return JSONResponse({"id": job.id, "status": "failed", "error": faults.fail_job})
        names = sorted(set(job.script.items) | set(faults.missing_items))
        return JSONResponse({"id": job.id, "status": "done", "items": names})

    async def _item(self, request: Request) -> Response:
        self.requests.append(("GET", request.url.path))
        if not self._authorized(request):
            return JSONResponse({"error": "unauthorized"}, status_code=401)
        job = self._jobs.get(request.path_params["job_id"])
        name = request.path_params["name"]
        if job is None:
            return JSONResponse({"error": "no such job"}, status_code=404)
        faults = job.script.faults
        job.item_calls[name] = job.item_calls.get(name, 0) + 1
        if job.item_calls[name] <= faults.item_5xx:
            return JSONResponse({"error": "try later"}, status_code=503)
        if name in faults.missing_items or name not in job.script.items:
            return JSONResponse({"error": "no such item"}, status_code=404)
        body = BROKEN_JSON if name in faults.broken_items else job.script.items[name]
        return Response(body, media_type="application/json")


class FakeScanServer(ThreadedServer):
    """Runs a `FakeScanSystem` under uvicorn in a thread on a free loopback port."""

    def __init__(
        self, system: FakeScanSystem | None = None, *, host: str = "127.0.0.1", port: int = 0
    ) -> None:
        self.system = system or FakeScanSystem()
        super().__init__(self.system.app, host=host, port=port, name="the fake scanning system")
