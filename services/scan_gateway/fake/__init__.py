"""A fake scanning system for tests and the local stack: `FakeScanServer(FakeScanSystem())`."""

from __future__ import annotations

from services.scan_gateway.fake.server import (
    BROKEN_JSON,
    FakeScanServer,
    FakeScanSystem,
    Faults,
    ItemsEngine,
)

__all__ = ["BROKEN_JSON", "FakeScanServer", "FakeScanSystem", "Faults", "ItemsEngine"]
