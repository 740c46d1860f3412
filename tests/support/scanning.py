"""The scanning-system side of the scan-gateway tests: the fake system's bearer token."""

from __future__ import annotations

__all__ = ["TOKEN"]

TOKEN = "scan-token-s3cr3t-value"
