"""The local stack: `make run` starts the whole system on loopback with embedded defaults."""

from __future__ import annotations

from services.devstack._stack import LocalStack, ServiceSpec, StackError

__all__ = ["LocalStack", "ServiceSpec", "StackError"]
