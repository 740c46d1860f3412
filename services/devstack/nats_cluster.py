"""A 3-node core-NATS cluster on loopback, for the cluster fault tests and the system benchmark.

Each node is the same `nats-server` binary the embedded single server uses, with its client
port, a cluster (route) port and a monitoring port, all free loopback ports fixed for the
cluster's life: a node killed and started again comes back on the same addresses and rejoins
through its routes. `url` is the comma-separated list a service takes as
`OPENBAO__NATS__NATS_URL`; `node_at("host:port")` maps what /healthcheck reports
(`nats_server`) back to a node.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import httpx

from services.devstack.embedded import (
    EmbeddedServerError,
    NatsServer,
    find_executable,
    free_port,
)

__all__ = ["ClusterNode", "NatsCluster", "start_nats_cluster"]

LOOPBACK = "127.0.0.1"
CLUSTER_NAME = "arm-ka"


@dataclass
class ClusterNode:
    """One node: its server process and its route and monitoring ports."""

    name: str
    server: NatsServer
    route_port: int
    monitor_port: int

    @property
    def url(self) -> str:
        """The node's client URL."""
        return self.server.url

    @property
    def address(self) -> str:
        """`host:port` of the client port, as /healthcheck names a server."""
        return f"{self.server.host}:{self.server.port}"

    @property
    def is_running(self) -> bool:
        return self.server.is_running

    def routes(self) -> int:
        """How many other nodes this one has a route to now (0 when it is down).

        Counted by distinct remote server id: nats-server 2.10+ pools several routes per peer.
        """
        try:
            body = httpx.get(f"http://{LOOPBACK}:{self.monitor_port}/routez", timeout=1.0).json()
        except (httpx.HTTPError, ValueError):
            return 0
        return len({route.get("remote_id") for route in body.get("routes") or []})


@dataclass
class NatsCluster:
    """Three (or `size`) nodes routed to each other. Use as a context manager."""

    size: int = 3
    nodes: list[ClusterNode] = field(default_factory=list)
    startup_timeout: float = 20.0

    def __post_init__(self) -> None:
        if self.size < 2:
            msg = "a cluster needs at least two nodes"
            raise ValueError(msg)
        binary = find_executable("nats-server")
        route_ports = [free_port() for _ in range(self.size)]
        for i in range(self.size):
            name = f"nats-{i}"
            routes = ",".join(
                f"nats://{LOOPBACK}:{port}" for j, port in enumerate(route_ports) if j != i
            )
            monitor = free_port()
            argv = _argv(binary, name, route_ports[i], monitor, routes)
            server = NatsServer(name, argv)
            self.nodes.append(ClusterNode(name, server, route_ports[i], monitor))

    def __enter__(self) -> NatsCluster:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __iter__(self) -> Iterator[ClusterNode]:
        return iter(self.nodes)

    @property
    def url(self) -> str:
        """Every node's client URL, comma-separated (`OPENBAO__NATS__NATS_URL`)."""
        return ",".join(node.url for node in self.nodes)

    def start(self) -> None:
        """Start every node that is down and wait until the cluster is fully routed."""
        for node in self.nodes:
            node.server.start()
        self.wait_routed()

    def stop(self) -> None:
        for node in self.nodes:
            node.server.stop()

    def kill(self, node: ClusterNode) -> None:
        """SIGKILL one node: its clients lose the connection without goodbye."""
        node.server.kill()

    def restart(self, node: ClusterNode, *, graceful: bool = True) -> None:
        """Stop (SIGTERM, or SIGKILL when not graceful) and start one node on its ports, then
        wait until it is routed to the others again."""
        if graceful:
            node.server.stop()
        else:
            node.server.kill()
        node.server.start()
        self.wait_routed()

    def node_at(self, address: str | None) -> ClusterNode | None:
        """The node whose client port is `address` (`host:port`), if any."""
        return next((node for node in self.nodes if node.address == address), None)

    def wait_routed(self) -> None:
        """Until every running node has a route to every other running node."""
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            running = [node for node in self.nodes if node.is_running]
            if all(node.routes() >= len(running) - 1 for node in running):
                return
            time.sleep(0.1)
        state = {node.name: node.routes() for node in self.nodes}
        msg = (
            f"the NATS cluster did not form its routes within {self.startup_timeout:.0f} s: {state}"
        )
        raise EmbeddedServerError(msg)


def _argv(
    binary: str, name: str, route_port: int, monitor_port: int, routes: str
) -> Callable[[int], list[str]]:
    def argv(port: int) -> list[str]:
        return [
            binary,
            "-a",
            LOOPBACK,
            "-p",
            str(port),
            "-n",
            name,
            "-m",
            str(monitor_port),
            "--cluster_name",
            CLUSTER_NAME,
            "--cluster",
            f"nats://{LOOPBACK}:{route_port}",
            "--routes",
            routes,
        ]

    return argv


def start_nats_cluster(size: int = 3) -> NatsCluster:
    """A started cluster of `size` nodes on free loopback ports."""
    cluster = NatsCluster(size)
    cluster.__enter__()
    return cluster
