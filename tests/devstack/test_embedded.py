"""Embedded servers: real processes on loopback that fault tests can kill and bring back."""

from __future__ import annotations

import socket
import uuid

import nats
import pytest
from pydantic import SecretStr

from services.devstack.embedded import (
    EmbeddedServerError,
    find_executable,
    start_nats_server,
    start_s3_server,
)
from services.runtime.settings import S3Settings
from services.runtime.storage import S3Storage, StorageUnavailable

pytestmark = pytest.mark.wire


def test_missing_binary_is_an_error_not_a_skip() -> None:
    """A server binary that is not installed raises EmbeddedServerError naming it."""
    name = f"no-such-server-{uuid.uuid4().hex[:8]}"
    with pytest.raises(EmbeddedServerError, match=name):
        find_executable(name)


async def test_nats_server_restarts_on_the_same_port() -> None:
    """Killed, the server refuses clients; restarted, it serves on the very same URL."""
    server = start_nats_server()
    try:
        url = server.url
        client = await nats.connect(url)
        await client.close()

        server.kill()
        assert not server.is_running
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection((server.host, server.port), timeout=1).close()

        server.restart()
        assert server.is_running and server.url == url
        client = await nats.connect(url)
        assert client.is_connected
        await client.close()
    finally:
        server.stop()
    assert not server.is_running


async def test_s3_server_stop_makes_storage_unavailable_and_restart_recovers() -> None:
    """Stopping moto turns reads into StorageUnavailable; after restart S3 answers again."""
    server = start_s3_server()
    settings = S3Settings(
        s3_endpoint_url=server.endpoint_url,
        s3_access_key=SecretStr("k-test"),
        s3_secret_key=SecretStr("s-test"),
    )
    try:
        async with S3Storage(settings, connect_timeout=0.5, max_attempts=1) as s3:
            await s3.ensure_bucket("bkt-embedded")
            await s3.put_bytes("bkt-embedded", "k", b"v")
            server.stop()
            with pytest.raises(StorageUnavailable):
                await s3.get_bytes("bkt-embedded", "k", max_bytes=10)
            server.restart()
            await s3.ensure_bucket("bkt-embedded")  # moto keeps no state across restarts
            await s3.put_bytes("bkt-embedded", "k", b"w")
            assert await s3.get_bytes("bkt-embedded", "k", max_bytes=10) == b"w"
    finally:
        server.stop()
