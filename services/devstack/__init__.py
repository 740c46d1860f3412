"""The local stack: `make run` starts the whole system on loopback with embedded defaults;
`NatsCluster` is a 3-node NATS cluster on loopback for the cluster tests and benchmark."""

from __future__ import annotations

from services.devstack._stack import LocalStack, ServiceSpec, StackError
from services.devstack.nats_cluster import NatsCluster

__all__ = ["LocalStack", "NatsCluster", "ServiceSpec", "StackError"]
