"""The local stack: `make run` starts the whole system on loopback with embedded defaults;
`NatsCluster` is a 3-node NATS cluster on loopback for the cluster tests and benchmark."""

from __future__ import annotations

from services.devstack._stack import (
    SQLITE_NAME,
    LocalStack,
    ServiceSpec,
    StackError,
    reset_local_state,
)
from services.devstack.nats_cluster import ClusterNode, NatsCluster, start_nats_cluster

__all__ = [
    "SQLITE_NAME",
    "ClusterNode",
    "LocalStack",
    "NatsCluster",
    "ServiceSpec",
    "StackError",
    "reset_local_state",
    "start_nats_cluster",
]
