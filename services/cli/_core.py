"""The core's REST API as the CLI uses it: upload, follow a job, read its documents.

httpx errors are translated here, once: an unreachable core or a 5xx is `CoreUnavailable`, a
4xx is `CoreRejected` with the problem detail the core sent (a 401 also says how to give a
token). A core with an identity provider takes the bearer `token`; it is sent as the
Authorization header only and never appears in a message or a repr.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx

from services.cli._words import seconds
from services.cli.exceptions import CoreRejected, CoreUnavailable, JobTimedOut
from services.contract.words import STATUS_NAMES

__all__ = ["ACTIVE_STATUSES", "API_PREFIX", "FINAL_STATUSES", "TOKEN_ENV", "CoreClient"]

API_PREFIX = "/api/v1"
TOKEN_ENV = "ARM_KA_TOKEN"
ACTIVE_STATUSES = frozenset({"queued", "published", "processing"})
FINAL_STATUSES = frozenset({"done", "needs_check", "error", "timeout", "dlq"})


class CoreClient:
    """A small synchronous client of arm-core (a CLI does one thing at a time)."""

    def __init__(
        self, base_url: str, *, token: str | None = None, request_timeout: float = 30.0
    ) -> None:
        self.base_url = base_url.rstrip("/")
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._http = httpx.Client(base_url=self.base_url, timeout=request_timeout, headers=headers)
        self._has_token = bool(token)

    def __repr__(self) -> str:
        return f"CoreClient({self.base_url!r}, token={'set' if self._has_token else None})"

    def __enter__(self) -> CoreClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    # -- calls -------------------------------------------------------------------------------

    def upload(self, name: str, data: bytes) -> dict[str, Any]:
        """POST /files: store the file and queue its job; the core's UploadOut."""
        return self._json("POST", f"{API_PREFIX}/files", files={"file": (name, data)})

    def upload_path(self, path: Path) -> dict[str, Any]:
        return self.upload(path.name, path.read_bytes())

    def job(self, job_id: str) -> dict[str, Any]:
        return self._json("GET", f"{API_PREFIX}/jobs/{job_id}")

    def follow(
        self,
        job_id: str,
        *,
        timeout: float,
        on_status: Callable[[str, dict[str, Any]], None] | None = None,
        poll_interval: float = 0.2,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> dict[str, Any]:
        """Poll the job until its status is final; `on_status` sees every new status and,
        while a scan is processed, every new count of its pages done (`progress`)."""
        deadline = clock() + timeout
        seen: tuple[str, Any] | None = None
        while True:
            job = self.job(job_id)
            status = str(job.get("status"))
            if (status, job.get("progress")) != seen:
                seen = (status, job.get("progress"))
                if on_status is not None:
                    on_status(status, job)
            if status in FINAL_STATUSES:
                return job
            if clock() >= deadline:
                msg = f"задание {job_id} через {seconds(timeout)} всё ещё «{STATUS_NAMES.get(status, status)}»"
                raise JobTimedOut(msg, job_id=job_id, last_status=status)
            sleep(poll_interval)

    def documents(self, file_id: str, job_id: str) -> list[dict[str, Any]] | None:
        """The job's documents in full (`GET /documents/{id}` for each listed one), or None
        when this core has no documents read API (404 on the list)."""
        try:
            listing = self._json(
                "GET", f"{API_PREFIX}/files/{file_id}/documents", params={"job_id": job_id}
            )
        except CoreRejected as exc:
            if exc.status_code == 404:
                return None
            raise
        documents: list[dict[str, Any]] = []
        for item in listing.get("items") or []:
            url = item.get("url") or f"{API_PREFIX}/documents/{item['document_id']}"
            try:
                documents.append(self._json("GET", str(url)))
            except CoreRejected as exc:
                if exc.status_code != 404:
                    raise
                documents.append(dict(item))  # the listing still says type, variant, status
        return documents

    # -- transport ---------------------------------------------------------------------------

    def _json(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.TimeoutException:
            msg = f"arm-core ({self.base_url}) не ответил вовремя"
            raise CoreUnavailable(msg, url=self.base_url) from None
        except httpx.HTTPError as exc:
            msg = f"нет связи с arm-core по адресу {self.base_url}: {_reason(exc)}"
            raise CoreUnavailable(msg, url=self.base_url) from None
        if response.status_code >= 500:
            msg = f"arm-core ({self.base_url}) ответил ошибкой: {_problem(response)}"
            raise CoreUnavailable(msg, url=self.base_url)
        if response.status_code >= 400:
            msg = f"arm-core отклонил {method} {path}: {_problem(response)}"
            if response.status_code == 401:
                msg += (
                    "; токен не принят (истёк срок?)"
                    if self._has_token
                    else f"; этому arm-core нужен токен: --token или ${TOKEN_ENV}"
                )
            raise CoreRejected(msg, status_code=response.status_code)
        try:
            body = response.json()
        except ValueError:
            msg = f"arm-core ({self.base_url}) ответил на {method} {path} не JSON"
            raise CoreUnavailable(msg, url=self.base_url) from None
        if not isinstance(body, dict):
            msg = f"arm-core ({self.base_url}) ответил на {method} {path} не JSON-объектом"
            raise CoreUnavailable(msg, url=self.base_url)
        return body


def _reason(exc: httpx.HTTPError) -> str:
    if isinstance(exc, httpx.ConnectError):
        return "соединение отклонено или адрес не найден"
    return type(exc).__name__


def _problem(response: httpx.Response) -> str:
    """«422 File type mismatch: the file is named as XLSX, but …» from a problem detail."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict):
        title = body.get("title") or response.reason_phrase
        detail = body.get("detail")
        if isinstance(detail, str) and detail:
            return f"{response.status_code} {title}: {detail}"
        return f"{response.status_code} {title}"
    return f"{response.status_code} {response.reason_phrase}"
