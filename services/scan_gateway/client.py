"""The HTTP client of the scanning system (docs/scanning-system-protocol.md).

Submit the file (`POST /api/v1/jobs`, multipart), poll the job (`GET /api/v1/jobs/{id}`) until
it is done or failed, then fetch every item it names (`GET /api/v1/jobs/{id}/items/{name}`).
Each call has its own timeout; 5xx, 429 and connection errors are retried with exponential
backoff; the whole exchange is bounded by the deadline the caller gives (the job's
reply_deadline), and running past it raises `ScanDeadlineExceeded`. A missing item or one
that still fails after the retries is reported in `RawResultSet.missing` (a JSON_FAILED
warning later), not as a failure of the job.

httpx errors are translated here and nowhere else. The bearer token goes into the
Authorization header only: never into a log line, a repr or an exception text.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Self
from urllib.parse import quote

import httpx
from pydantic import SecretStr

from services.runtime.recognizer import Job
from services.scan_gateway.exceptions import (
    ScanDeadlineExceeded,
    ScanJobFailed,
    ScanRejected,
    ScanSystemError,
    ScanUnavailable,
)
from services.scan_gateway.resultset import RawResultSet

__all__ = ["ScanClient", "ScanClientSettings"]

log = logging.getLogger("services.scan_gateway.client")

_CONTENT_TYPES = {"PDF": "application/pdf", "PNG": "image/png", "JPG": "image/jpeg"}
_RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})
_MAX_ERROR_TEXT = 300


@dataclass(frozen=True, slots=True)
class ScanClientSettings:
    """Per-call timeout, retries and backoff, and the polling pace."""

    base_url: str
    token: SecretStr | None = None
    call_timeout_seconds: float = 10.0
    retries: int = 3
    backoff_seconds: float = 0.2
    backoff_max_seconds: float = 2.0
    poll_interval_seconds: float = 0.5

    def __repr__(self) -> str:
        return f"ScanClientSettings(base_url={self.base_url!r}, token=***)"


class _Retryable(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class ScanClient:
    """One connection pool to the scanning system; `async with ScanClient(settings) as c:`."""

    def __init__(
        self,
        settings: ScanClientSettings,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings
        self._transport = transport
        self._clock = clock
        self._http: httpx.AsyncClient | None = None

    def __repr__(self) -> str:
        return f"ScanClient(base_url={self.settings.base_url!r})"

    async def __aenter__(self) -> Self:
        headers = {"Accept": "application/json"}
        if self.settings.token is not None:
            headers["Authorization"] = f"Bearer {self.settings.token.get_secret_value()}"
        self._http = httpx.AsyncClient(
            base_url=self.settings.base_url.rstrip("/"),
            headers=headers,
            transport=self._transport,
            follow_redirects=False,
        )
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        http, self._http = self._http, None
        if http is not None:
            await http.aclose()

    # -- the exchange ------------------------------------------------------------------------

    async def fetch(self, data: bytes, job: Job, *, deadline: float) -> RawResultSet:
        """The result set for one file; `deadline` is a `clock()` instant the exchange must
        finish by (ScanDeadlineExceeded otherwise)."""
        remaining = deadline - self._clock()
        if remaining <= 0:
            msg = "the reply deadline passed before the file was sent to the scanning system"
            raise ScanDeadlineExceeded(msg)
        scan_job_id: str | None = None
        try:
            async with asyncio.timeout(remaining):
                scan_job_id = await self._submit(data, job, deadline)
                names = await self._wait(scan_job_id, deadline)
                return await self._items(scan_job_id, names, deadline)
        except TimeoutError:
            msg = (
                f"the scanning system did not finish within the reply deadline ({remaining:.1f} s)"
            )
            raise ScanDeadlineExceeded(msg, scan_job_id=scan_job_id) from None

    async def _submit(self, data: bytes, job: Job, deadline: float) -> str:
        files = {
            "file": (
                job.original_name or f"{job.file_id}.{job.file_type.lower()}",
                data,
                _CONTENT_TYPES.get(job.file_type, "application/octet-stream"),
            )
        }
        form = {"file_type": job.file_type, "external_id": f"{job.job_id}:{job.attempt}"}
        response = await self._call(
            "POST",
            "/api/v1/jobs",
            deadline,
            files=files,
            data=form,
            headers={"Idempotency-Key": f"{job.job_id}:{job.attempt}"},
        )
        body = _json(response, "the answer to the submission")
        scan_job_id = body.get("id")
        if not isinstance(scan_job_id, str) or not scan_job_id:
            msg = "the scanning system accepted the file but returned no job id"
            raise ScanUnavailable(msg)
        log.info("job %s: scanning-system job %s submitted", job.job_id, scan_job_id)
        return scan_job_id

    async def _wait(self, scan_job_id: str, deadline: float) -> list[str]:
        path = f"/api/v1/jobs/{quote(scan_job_id, safe='')}"
        while True:
            body = _json(await self._call("GET", path, deadline, scan_job_id=scan_job_id), path)
            status = body.get("status")
            if status == "done":
                names = body.get("items")
                if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                    msg = "the scanning system reported done without a list of item names"
                    raise ScanUnavailable(msg, scan_job_id=scan_job_id)
                return list(names)
            if status == "failed":
                reason = str(body.get("error") or "no reason given")[:_MAX_ERROR_TEXT]
                msg = f"the scanning system failed the job: {reason}"
                raise ScanJobFailed(msg, scan_job_id=scan_job_id)
            if status not in ("queued", "running"):
                msg = f"the scanning system reported an unknown job status {status!r}"
                raise ScanUnavailable(msg, scan_job_id=scan_job_id)
            await asyncio.sleep(self.settings.poll_interval_seconds)

    async def _items(self, scan_job_id: str, names: list[str], deadline: float) -> RawResultSet:
        result = RawResultSet(source_job_id=scan_job_id, source="scanning-system")
        base = f"/api/v1/jobs/{quote(scan_job_id, safe='')}/items/"
        for name in names:
            try:
                response = await self._call(
                    "GET", base + quote(name, safe=""), deadline, scan_job_id=scan_job_id
                )
            except ScanRejected as exc:
                log.warning("scanning-system item %r not fetched: HTTP %d", name, exc.status_code)
                result.missing.append(name)
                continue
            except ScanUnavailable as exc:
                log.warning("scanning-system item %r not fetched: %s", name, exc.message)
                result.missing.append(name)
                continue
            result.items[name] = response.content
        return result

    # -- one call, with retries --------------------------------------------------------------

    async def _call(
        self,
        method: str,
        path: str,
        deadline: float,
        *,
        scan_job_id: str | None = None,
        **kwargs: Any,
    ) -> httpx.Response:
        if self._http is None:
            msg = "ScanClient is used outside its `async with` block"
            raise RuntimeError(msg)
        attempts = self.settings.retries + 1
        last = ""
        for attempt in range(attempts):
            remaining = deadline - self._clock()
            if remaining <= 0:
                raise TimeoutError
            timeout = min(self.settings.call_timeout_seconds, remaining)
            try:
                return await self._once(self._http, method, path, timeout, scan_job_id, **kwargs)
            except _Retryable as exc:
                last = exc.reason
            if attempt + 1 < attempts:
                pause = min(
                    self.settings.backoff_max_seconds,
                    self.settings.backoff_seconds * (2**attempt),
                )
                pause *= 0.5 + random.random() / 2  # jitter: replicas do not retry in step
                log.info("%s %s: %s; retry %d in %.2f s", method, path, last, attempt + 1, pause)
                await asyncio.sleep(pause)
        msg = f"{method} {path} failed after {attempts} attempts: {last}"
        raise ScanUnavailable(msg, scan_job_id=scan_job_id)

    async def _once(
        self,
        http: httpx.AsyncClient,
        method: str,
        path: str,
        call_timeout: float,
        scan_job_id: str | None,
        **kwargs: Any,
    ) -> httpx.Response:
        try:
            response = await http.request(method, path, timeout=call_timeout, **kwargs)
        except httpx.TimeoutException as exc:
            raise _Retryable(
                f"timed out after {call_timeout:.1f} s ({type(exc).__name__})"
            ) from None
        except httpx.TransportError as exc:
            raise _Retryable(f"connection error ({type(exc).__name__})") from None
        except httpx.HTTPError as exc:  # anything else httpx raises is not worth a retry
            msg = f"{method} {path}: {type(exc).__name__}"
            raise ScanSystemError(msg, scan_job_id=scan_job_id) from None
        if response.status_code in _RETRYABLE_STATUS:
            raise _Retryable(f"HTTP {response.status_code}")
        if response.status_code >= 400:
            hint = (
                " (check OPENBAO__SCAN__SCAN_TOKEN)" if response.status_code in (401, 403) else ""
            )
            msg = f"{method} {path}: the scanning system answered HTTP {response.status_code}{hint}"
            raise ScanRejected(msg, status_code=response.status_code, scan_job_id=scan_job_id)
        return response


def _json(response: httpx.Response, what: str) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        msg = f"{what} is not a JSON object"
        raise ScanUnavailable(msg)
    return body
