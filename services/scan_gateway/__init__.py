"""scan-gateway: scans and PDFs of financial statements over NATS and S3.

Run: `faststream run services.scan_gateway.app:create_app --factory`. Names are re-exported
lazily so that a worker process importing `local` does not pull in the broker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from services.scan_gateway.amounts import OcrAmount, read_amount
    from services.scan_gateway.app import create_app
    from services.scan_gateway.client import ScanClient, ScanClientSettings
    from services.scan_gateway.errors import (
        ItemInvalid,
        OcrUnavailable,
        ScanDeadlineExceeded,
        ScanGatewayError,
        ScanJobFailed,
        ScanRejected,
        ScanSystemError,
        ScanUnavailable,
    )
    from services.scan_gateway.mapper import map_items
    from services.scan_gateway.raw import RawArchive
    from services.scan_gateway.recognizer import (
        HttpSource,
        LocalSource,
        ScanGatewayRecognizer,
    )
    from services.scan_gateway.resultset import RawResultSet, parse_item
    from services.scan_gateway.settings import ScanGatewaySettings

__all__ = [
    "HttpSource",
    "ItemInvalid",
    "LocalSource",
    "OcrAmount",
    "OcrUnavailable",
    "RawArchive",
    "RawResultSet",
    "ScanClient",
    "ScanClientSettings",
    "ScanDeadlineExceeded",
    "ScanGatewayError",
    "ScanGatewayRecognizer",
    "ScanGatewaySettings",
    "ScanJobFailed",
    "ScanRejected",
    "ScanSystemError",
    "ScanUnavailable",
    "create_app",
    "map_items",
    "parse_item",
    "read_amount",
]

_SOURCES = {
    "OcrAmount": "services.scan_gateway.amounts",
    "read_amount": "services.scan_gateway.amounts",
    "create_app": "services.scan_gateway.app",
    "ScanClient": "services.scan_gateway.client",
    "ScanClientSettings": "services.scan_gateway.client",
    "ItemInvalid": "services.scan_gateway.errors",
    "OcrUnavailable": "services.scan_gateway.errors",
    "ScanDeadlineExceeded": "services.scan_gateway.errors",
    "ScanGatewayError": "services.scan_gateway.errors",
    "ScanJobFailed": "services.scan_gateway.errors",
    "ScanRejected": "services.scan_gateway.errors",
    "ScanSystemError": "services.scan_gateway.errors",
    "ScanUnavailable": "services.scan_gateway.errors",
    "map_items": "services.scan_gateway.mapper",
    "RawArchive": "services.scan_gateway.raw",
    "HttpSource": "services.scan_gateway.recognizer",
    "LocalSource": "services.scan_gateway.recognizer",
    "ScanGatewayRecognizer": "services.scan_gateway.recognizer",
    "RawResultSet": "services.scan_gateway.resultset",
    "parse_item": "services.scan_gateway.resultset",
    "ScanGatewaySettings": "services.scan_gateway.settings",
}


def __getattr__(name: str) -> Any:
    import importlib

    source = _SOURCES.get(name)
    if source is None:
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)
    return getattr(importlib.import_module(source), name)
