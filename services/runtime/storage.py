"""Async S3 access for the services (aiobotocore), with errors translated at one boundary.

Exceptions::

    StorageError                 any S3 failure not listed below (access denied, bad request...)
    ├── ObjectNotFound           no such bucket or key
    ├── ObjectTooLarge           the object is bigger than the caller's cap
    └── StorageUnavailable       endpoint down, connection refused or cut, timeouts

Each carries `bucket` and `key`; none quotes a credential. Reads enforce a size cap without
downloading past it, so a hostile upload cannot exhaust memory.

A large body (a result file of a big workbook) is uploaded by a plain botocore client in a
worker thread: over http botocore hashes the whole payload (SigV4) synchronously, and that
must not hold the event loop that sends acks. Checksums are computed only when S3 requires
them (no CRC32 over every body).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Self

import aiohttp
import botocore.exceptions as bce
import botocore.session
from aiobotocore.config import AioConfig
from aiobotocore.session import get_session
from botocore.config import Config

from services.runtime.exceptions import (
    ObjectNotFound,
    ObjectTooLarge,
    StorageError,
    StorageUnavailable,
)
from services.runtime.logging import redact
from services.runtime.settings import S3Settings

__all__ = [
    "ObjectInfo",
    "ObjectNotFound",
    "ObjectTooLarge",
    "S3Storage",
    "StorageError",
    "StorageUnavailable",
]

_CHUNK = 64 * 1024
_THREAD_PUT_BYTES = 1024 * 1024  # bodies from this size are signed and sent off the loop
_SYNC_SESSION_LOCK = threading.Lock()
_sync_session: botocore.session.Session | None = None


def _shared_sync_session() -> botocore.session.Session:
    """One botocore session per process, so the S3 model is loaded once for every client."""
    global _sync_session  # a lazily built process-wide cache
    with _SYNC_SESSION_LOCK:
        if _sync_session is None:
            _sync_session = botocore.session.get_session()
        return _sync_session


_NOT_FOUND_CODES = frozenset({"NoSuchKey", "NoSuchBucket", "404", "NotFound"})


@dataclass(frozen=True, slots=True)
class ObjectInfo:
    """What a HEAD tells about an object."""

    bucket: str
    key: str
    size: int
    content_type: str | None
    etag: str | None


_UNAVAILABLE: tuple[type[BaseException], ...] = (
    bce.EndpointConnectionError,
    bce.ConnectTimeoutError,
    bce.ReadTimeoutError,
    bce.ConnectionClosedError,
    bce.HTTPClientError,
    aiohttp.ClientError,
    asyncio.TimeoutError,
    OSError,
)


@asynccontextmanager
async def _translated(bucket: str | None, key: str | None) -> AsyncIterator[None]:
    """The one boundary where botocore / aiohttp errors become StorageError."""
    where = f"s3://{bucket}/{key}" if key else f"s3://{bucket}"
    try:
        yield
    except StorageError:
        raise
    except bce.ClientError as exc:
        error = exc.response.get("Error", {})
        code = str(error.get("Code", "Unknown"))
        status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        if code in _NOT_FOUND_CODES or status == 404:
            raise ObjectNotFound(f"{where} not found ({code})", bucket=bucket, key=key) from exc
        detail = redact(str(error.get("Message", "")))
        msg = f"{where}: S3 error {code}" + (f": {detail}" if detail else "")
        raise StorageError(msg, bucket=bucket, key=key) from exc
    except _UNAVAILABLE as exc:
        msg = f"{where}: S3 unavailable ({type(exc).__name__})"
        raise StorageUnavailable(msg, bucket=bucket, key=key) from exc
    except bce.BotoCoreError as exc:
        msg = f"{where}: S3 client error ({type(exc).__name__})"
        raise StorageError(msg, bucket=bucket, key=key) from exc


class S3Storage:
    """An S3 client for one endpoint; use as `async with S3Storage(settings.s3) as s3: ...`.

    Timeouts are short and botocore retries limited, so an S3 outage surfaces as
    `StorageUnavailable` within seconds instead of hanging a job.
    """

    def __init__(
        self,
        settings: S3Settings,
        *,
        connect_timeout: float = 3.0,
        read_timeout: float = 30.0,
        max_attempts: int = 2,
    ) -> None:
        self._settings = settings
        options: dict[str, Any] = {
            "connect_timeout": connect_timeout,
            "read_timeout": read_timeout,
            "retries": {"max_attempts": max_attempts, "mode": "standard"},
            "signature_version": "s3v4",
            "request_checksum_calculation": "when_required",
            "response_checksum_validation": "when_required",
            "s3": {"addressing_style": "path"},
        }
        self._config = AioConfig(**options)
        self._sync_config = Config(**options)
        self._stack: AsyncExitStack | None = None
        self._client: Any = None
        self._sync_client: Any = None
        self._sync_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"S3Storage(endpoint_url={self._settings.s3_endpoint_url!r})"

    def _client_args(self) -> dict[str, Any]:
        s = self._settings
        return {
            "endpoint_url": s.s3_endpoint_url,
            "region_name": s.s3_region,
            "aws_access_key_id": s.s3_access_key.get_secret_value() if s.s3_access_key else None,
            "aws_secret_access_key": (
                s.s3_secret_key.get_secret_value() if s.s3_secret_key else None
            ),
        }

    async def __aenter__(self) -> Self:
        stack = AsyncExitStack()
        session = get_session()
        self._client = await stack.enter_async_context(
            session.create_client("s3", config=self._config, **self._client_args())
        )
        self._stack = stack
        try:
            # Built now, off the loop: built later it would hold the GIL while a job's result
            # waits (botocore loads the S3 model).
            await asyncio.to_thread(self._thread_client)
        except BaseException:
            await self.__aexit__(None, None, None)
            raise
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        stack, self._stack, self._client = self._stack, None, None
        if stack is not None:
            await stack.aclose()
        with self._sync_lock:
            sync, self._sync_client = self._sync_client, None
        if sync is not None:
            await asyncio.to_thread(sync.close)

    @property
    def client(self) -> Any:
        """The underlying aiobotocore client (inside the `async with` only)."""
        if self._client is None:
            msg = "S3Storage is used outside its `async with` block"
            raise RuntimeError(msg)
        return self._client

    async def head(self, bucket: str, key: str) -> ObjectInfo:
        """Size and type of an object; ObjectNotFound when absent."""
        async with _translated(bucket, key):
            resp = await self.client.head_object(Bucket=bucket, Key=key)
        return ObjectInfo(
            bucket=bucket,
            key=key,
            size=int(resp.get("ContentLength", 0)),
            content_type=resp.get("ContentType"),
            etag=resp.get("ETag"),
        )

    async def get_bytes(self, bucket: str, key: str, max_bytes: int) -> bytes:
        """The object's bytes; ObjectTooLarge as soon as it is known to exceed `max_bytes`.

        The declared length is checked before reading, and the stream is read in chunks and
        abandoned past the cap, in case the length was missing or wrong.
        """
        async with _translated(bucket, key):
            resp = await self.client.get_object(Bucket=bucket, Key=key)
            body = resp["Body"]
            try:
                declared = resp.get("ContentLength")
                if declared is not None and int(declared) > max_bytes:
                    raise ObjectTooLarge(
                        bucket=bucket, key=key, size=int(declared), max_bytes=max_bytes
                    )
                chunks: list[bytes] = []
                total = 0
                while True:
                    chunk = await body.read(_CHUNK)
                    if not chunk:
                        break
                    total += len(chunk)
                    if total > max_bytes:
                        raise ObjectTooLarge(bucket=bucket, key=key, size=None, max_bytes=max_bytes)
                    chunks.append(chunk)
                return b"".join(chunks)
            finally:
                body.close()

    async def put_bytes(
        self,
        bucket: str,
        key: str,
        data: bytes,
        *,
        content_type: str = "application/octet-stream",
    ) -> None:
        """Write an object (overwrites); a large body is hashed and sent in a worker thread."""
        client = self.client  # inside `async with` only
        async with _translated(bucket, key):
            if len(data) < _THREAD_PUT_BYTES:
                await client.put_object(Bucket=bucket, Key=key, Body=data, ContentType=content_type)
            else:
                await asyncio.to_thread(self._put_in_thread, bucket, key, data, content_type)

    def _put_in_thread(self, bucket: str, key: str, data: bytes, content_type: str) -> None:
        """The blocking upload: SHA-256 of the body (which releases the GIL) and the send."""
        self._thread_client().put_object(
            Bucket=bucket, Key=key, Body=data, ContentType=content_type
        )

    def _thread_client(self) -> Any:
        """A plain botocore S3 client with the same endpoint and config, made on first use."""
        with self._sync_lock:
            if self._sync_client is None:
                session = _shared_sync_session()
                with _SYNC_SESSION_LOCK:  # a botocore session is not thread-safe
                    self._sync_client = session.create_client(
                        "s3", config=self._sync_config, **self._client_args()
                    )
            return self._sync_client

    async def delete(self, bucket: str, key: str) -> None:
        """Remove an object; removing an absent key is not an error (S3 semantics)."""
        async with _translated(bucket, key):
            await self.client.delete_object(Bucket=bucket, Key=key)

    async def put_json(self, bucket: str, key: str, document: Any) -> None:
        """Write a JSON document as UTF-8, Cyrillic kept readable (ensure_ascii off)."""
        data = json.dumps(document, ensure_ascii=False).encode("utf-8")
        await self.put_bytes(bucket, key, data, content_type="application/json; charset=utf-8")

    async def ensure_bucket(self, bucket: str) -> None:
        """Create `bucket` unless it exists (for the local stack and tests)."""
        async with _translated(bucket, None):
            try:
                await self.client.head_bucket(Bucket=bucket)
                return
            except bce.ClientError as exc:
                status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
                if status != 404:
                    raise
            kwargs: dict[str, Any] = {"Bucket": bucket}
            region = self._settings.s3_region
            if region and region != "us-east-1":
                kwargs["CreateBucketConfiguration"] = {"LocationConstraint": region}
            try:
                await self.client.create_bucket(**kwargs)
            except bce.ClientError as exc:
                code = exc.response.get("Error", {}).get("Code")
                if code not in {"BucketAlreadyOwnedByYou", "BucketAlreadyExists"}:
                    raise
