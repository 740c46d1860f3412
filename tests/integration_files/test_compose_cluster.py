"""compose.cluster.yaml, the 3-node NATS cluster over compose.yaml, agrees with itself and the
code: no Docker engine runs here, so the file is parsed and cross-checked (the same flags
form a real cluster in `services.devstack.nats_cluster`, which tests/e2e/test_cluster.py uses)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from services.runtime.settings import NatsSettings

ROOT = Path(__file__).resolve().parents[2]
APP_SERVICES = ("arm-core", "tabular-parser", "scan-gateway")


def _load(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / name).read_text(encoding="utf-8"))
    return loaded


def _flag(command: list[str], name: str) -> str:
    return command[command.index(name) + 1]


def test_three_nodes_one_cluster_each_routed_to_all() -> None:
    """nats (compose.yaml's node, overridden), nats-2 and nats-3: one cluster name, distinct
    server names, routes on 6222 naming all three nodes, a /healthz healthcheck each."""
    services = _load("compose.cluster.yaml")["services"]
    nodes = ["nats", "nats-2", "nats-3"]
    expected_routes = {f"nats://{node}:6222" for node in nodes}
    names = set()
    for node in nodes:
        command = services[node]["command"]
        assert command[0] == "nats-server"
        assert "-js" not in command and "--jetstream" not in command
        assert _flag(command, "--cluster_name") == "arm-ka"
        assert _flag(command, "--cluster") == "nats://0.0.0.0:6222"
        assert set(_flag(command, "--routes").split(",")) == expected_routes
        assert "/healthz" in " ".join(services[node]["healthcheck"]["test"])
        names.add(_flag(command, "--name"))
    assert len(names) == 3


def test_every_service_gets_all_three_nodes_and_waits_for_them() -> None:
    """Each app service of compose.yaml is overridden with the three client URLs (parsed by
    the settings into three servers) and depends on the two extra nodes being healthy."""
    base = _load("compose.yaml")["services"]
    cluster = _load("compose.cluster.yaml")["services"]
    for name in APP_SERVICES:
        assert name in base
        url = cluster[name]["environment"]["OPENBAO__NATS__NATS_URL"]
        servers = NatsSettings(nats_url=url).servers
        assert servers == [f"nats://{node}:4222" for node in ("nats", "nats-2", "nats-3")]
        assert {dep: c["condition"] for dep, c in cluster[name]["depends_on"].items()} == {
            "nats-2": "service_healthy",
            "nats-3": "service_healthy",
        }
