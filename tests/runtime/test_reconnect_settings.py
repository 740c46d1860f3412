"""The reconnect settings reach the NATS client as chosen (docs/configuration.md says why)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import pytest

from services.devstack.nats_cluster import NatsCluster
from services.runtime.messaging import build_broker
from services.runtime.settings import Settings, SettingsError, load_settings


def test_reconnect_defaults_are_the_documented_ones() -> None:
    """Never give up, 0.5 s before a server is retried, 2 MiB buffer, PING every 20 s."""
    settings = load_settings()
    assert settings.nats_max_reconnect_attempts == -1
    assert settings.nats_reconnect_wait_seconds == 0.5
    assert settings.nats_reconnect_buffer_bytes == 2 * 1024 * 1024
    assert settings.nats_ping_interval_seconds == 20


def test_reconnect_settings_come_from_their_plain_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plain environment names, like the other knobs; a bad value names its key."""
    monkeypatch.setenv("NATS_MAX_RECONNECT_ATTEMPTS", "5")
    monkeypatch.setenv("NATS_RECONNECT_BUFFER_BYTES", "65536")
    monkeypatch.setenv("NATS_PING_INTERVAL_SECONDS", "3")
    settings = load_settings()
    assert (
        settings.nats_max_reconnect_attempts,
        settings.nats_reconnect_buffer_bytes,
        settings.nats_ping_interval_seconds,
    ) == (5, 65536, 3)
    for bad in ("-2", "0"):
        monkeypatch.setenv("NATS_MAX_RECONNECT_ATTEMPTS", bad)
        with pytest.raises(SettingsError) as caught:
            load_settings()
        assert caught.value.keys == ["NATS_MAX_RECONNECT_ATTEMPTS"]


@pytest.mark.wire
async def test_the_client_gets_the_settings_and_every_server_of_a_cluster(
    make_settings: Callable[..., Settings],
) -> None:
    """Three comma-separated URLs of a real cluster: the client connects to one of them, in
    shuffled order (dont_randomize off), with the configured reconnect values."""
    with NatsCluster() as cluster:
        settings = make_settings(
            nats={"nats_url": cluster.url.replace(",", ", ")},
            nats_max_reconnect_attempts=7,
            nats_reconnect_buffer_bytes=123_456,
            nats_ping_interval_seconds=4,
            nats_reconnect_wait_seconds=0.3,
        )
        broker = build_broker(settings, client_name="reconnect-settings")
        try:
            await broker.connect()
            client = broker.connection
            assert client.is_connected
            assert client.options["dont_randomize"] is False
            assert client.options["max_reconnect_attempts"] == 7
            assert client.options["reconnect_time_wait"] == 0.3
            assert client.options["ping_interval"] == 4
            assert client._max_pending_size == 123_456
            url = client.connected_url
            assert url is not None
            assert f"{url.hostname}:{url.port}" in {node.address for node in cluster}
            assert len(client.servers) >= 3
        finally:
            with contextlib.suppress(Exception):
                await broker.stop()
