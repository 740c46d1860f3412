"""S3 storage against moto's real HTTP server: round trips, the size cap, errors as ours."""

from __future__ import annotations

import json
import uuid

import pytest

from services.devstack.embedded import free_port
from services.runtime.settings import S3Settings
from services.runtime.storage import (
    ObjectNotFound,
    ObjectTooLarge,
    S3Storage,
    StorageError,
    StorageUnavailable,
)

pytestmark = pytest.mark.wire


async def test_put_and_get_bytes_round_trip(s3_settings: S3Settings, bucket: str) -> None:
    """Bytes written come back identical; HEAD reports their size and type."""
    data = bytes(range(256)) * 10
    async with S3Storage(s3_settings) as s3:
        await s3.put_bytes(bucket, "uploads/a.bin", data, content_type="application/x-test")
        assert await s3.get_bytes(bucket, "uploads/a.bin", max_bytes=len(data)) == data
        info = await s3.head(bucket, "uploads/a.bin")
    assert (info.size, info.content_type) == (len(data), "application/x-test")


async def test_put_json_is_utf8_with_cyrillic_kept(s3_settings: S3Settings, bucket: str) -> None:
    """JSON is stored as UTF-8 text with Cyrillic as is (no \\u escapes)."""
    document = {"name": "Бухгалтерский баланс", "sum": "-29390"}
    async with S3Storage(s3_settings) as s3:
        await s3.put_json(bucket, "results/r.json", document)
        raw = await s3.get_bytes(bucket, "results/r.json", max_bytes=10_000)
        info = await s3.head(bucket, "results/r.json")
    assert "Бухгалтерский".encode() in raw
    assert json.loads(raw.decode("utf-8")) == document
    assert info.content_type is not None and info.content_type.startswith("application/json")


async def test_object_over_the_cap_is_refused(s3_settings: S3Settings, bucket: str) -> None:
    """An object one byte over max_bytes raises ObjectTooLarge carrying sizes; at the cap it reads."""
    async with S3Storage(s3_settings) as s3:
        await s3.put_bytes(bucket, "big", b"x" * 1001)
        with pytest.raises(ObjectTooLarge) as info:
            await s3.get_bytes(bucket, "big", max_bytes=1000)
        assert await s3.get_bytes(bucket, "big", max_bytes=1001) == b"x" * 1001
    assert (info.value.size, info.value.max_bytes) == (1001, 1000)
    assert (info.value.bucket, info.value.key) == (bucket, "big")


@pytest.mark.parametrize("missing", ["key", "bucket"])
async def test_missing_object_or_bucket_is_object_not_found(
    s3_settings: S3Settings, bucket: str, missing: str
) -> None:
    """A missing key or bucket is ObjectNotFound on GET and on HEAD."""
    where = bucket if missing == "key" else f"nope-{uuid.uuid4().hex[:12]}"
    async with S3Storage(s3_settings) as s3:
        with pytest.raises(ObjectNotFound) as info:
            await s3.get_bytes(where, "absent", max_bytes=10)
        with pytest.raises(ObjectNotFound):
            await s3.head(where, "absent")
    assert (info.value.bucket, info.value.key) == (where, "absent")


async def test_delete_removes_the_object_and_tolerates_absence(
    s3_settings: S3Settings, bucket: str
) -> None:
    """After delete the key is ObjectNotFound; deleting it again raises nothing."""
    async with S3Storage(s3_settings) as s3:
        await s3.put_bytes(bucket, "gone", b"v")
        await s3.delete(bucket, "gone")
        with pytest.raises(ObjectNotFound):
            await s3.head(bucket, "gone")
        await s3.delete(bucket, "gone")


async def test_ensure_bucket_is_idempotent(s3_settings: S3Settings) -> None:
    """Creating a bucket twice is fine, and the bucket is usable."""
    name = f"ensure-{uuid.uuid4().hex[:12]}"
    async with S3Storage(s3_settings) as s3:
        await s3.ensure_bucket(name)
        await s3.ensure_bucket(name)
        await s3.put_bytes(name, "k", b"v")
        assert await s3.get_bytes(name, "k", max_bytes=1) == b"v"


async def test_endpoint_down_is_storage_unavailable_without_credentials(
    s3_settings: S3Settings,
) -> None:
    """Nothing listens on the endpoint: StorageUnavailable, and no key in the text."""
    down = s3_settings.model_copy(update={"s3_endpoint_url": f"http://127.0.0.1:{free_port()}"})
    async with S3Storage(down, connect_timeout=0.5, max_attempts=1) as s3:
        with pytest.raises(StorageUnavailable) as info:
            await s3.get_bytes("any", "key", max_bytes=10)
    text = f"{info.value} {info.value!r}"
    assert isinstance(info.value, StorageError)
    assert s3_settings.s3_secret_key is not None and s3_settings.s3_access_key is not None
    assert s3_settings.s3_secret_key.get_secret_value() not in text
    assert s3_settings.s3_access_key.get_secret_value() not in text


async def test_a_large_body_round_trips_through_the_threaded_upload(
    s3_settings: S3Settings, bucket: str
) -> None:
    """A body over the thread threshold (sent by the blocking client off the loop) is intact."""
    data = bytes(range(256)) * (5 * 1024)  # 1.25 MiB
    async with S3Storage(s3_settings) as s3:
        await s3.put_bytes(bucket, "results/big.json", data, content_type="application/json")
        assert await s3.get_bytes(bucket, "results/big.json", max_bytes=len(data)) == data
        info = await s3.head(bucket, "results/big.json")
    assert (info.size, info.content_type) == (len(data), "application/json")


async def test_a_large_put_to_a_down_endpoint_is_storage_unavailable_without_credentials(
    s3_settings: S3Settings,
) -> None:
    """The threaded upload maps its errors like the async client and quotes no key."""
    down = s3_settings.model_copy(update={"s3_endpoint_url": f"http://127.0.0.1:{free_port()}"})
    async with S3Storage(down, connect_timeout=0.5, max_attempts=1) as s3:
        with pytest.raises(StorageUnavailable) as info:
            await s3.put_bytes("any", "key", b"x" * (2 * 1024 * 1024))
    text = f"{info.value} {info.value!r}"
    assert (info.value.bucket, info.value.key) == ("any", "key")
    assert s3_settings.s3_secret_key is not None and s3_settings.s3_access_key is not None
    assert s3_settings.s3_secret_key.get_secret_value() not in text
    assert s3_settings.s3_access_key.get_secret_value() not in text
