"""The 3-node cluster starter: routed nodes that carry messages between them, a node killed
and started again on its addresses rejoins."""

from __future__ import annotations

import asyncio

import nats
import pytest

from services.devstack.nats_cluster import NatsCluster
from tests.support.nats_wire import round_trip

pytestmark = pytest.mark.wire


async def _crosses(from_url: str, to_url: str) -> bytes:
    """Publish on one node, receive on another (interest travels over the routes)."""
    sub_client = await nats.connect(to_url, allow_reconnect=False)
    pub_client = await nats.connect(from_url, allow_reconnect=False)
    try:
        sub = await sub_client.subscribe("cluster.test")
        await round_trip(sub_client)
        for _ in range(50):  # the subscription's interest reaches the other node shortly
            await pub_client.publish("cluster.test", b"over the route")
            await round_trip(pub_client)
            try:
                return (await sub.next_msg(timeout=0.1)).data
            except nats.errors.TimeoutError:
                continue
        return b""
    finally:
        await pub_client.close()
        await sub_client.close()


async def test_three_nodes_route_messages_and_a_killed_node_rejoins() -> None:
    """Each node routed to the two others; a message crosses from node 0 to node 2; after a
    SIGKILL of node 1 and a start on the same ports it is routed again and carries messages."""
    with NatsCluster() as cluster:
        first, middle, last = cluster.nodes
        assert [node.routes() for node in cluster] == [2, 2, 2]
        assert cluster.url.split(",") == [node.url for node in cluster]
        assert cluster.node_at(middle.address) is middle
        assert cluster.node_at("127.0.0.1:1") is None
        assert await _crosses(first.url, last.url) == b"over the route"

        await asyncio.to_thread(cluster.kill, middle)
        assert not middle.is_running
        assert middle.routes() == 0
        await asyncio.to_thread(cluster.restart, middle)
        assert [node.routes() for node in cluster] == [2, 2, 2]
        assert await _crosses(middle.url, first.url) == b"over the route"
