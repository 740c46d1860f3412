"""scan-gateway: scans and PDFs of financial statements over NATS and S3.

Run: `faststream run services.scan_gateway.app:create_app --factory`. The names below are lazy
(PEP 562, `services._lazy`) so that a worker process importing `local` does not pull in the
broker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from services._lazy import lazy_exports

if TYPE_CHECKING:  # what mypy sees: the same names, typed; `X as X` marks them exported
    from services.scan_gateway.amounts import OcrAmount as OcrAmount
    from services.scan_gateway.amounts import read_amount as read_amount
    from services.scan_gateway.app import FILE_TYPES as FILE_TYPES
    from services.scan_gateway.app import SERVICE_NAME as SERVICE_NAME
    from services.scan_gateway.app import SPEC as SPEC
    from services.scan_gateway.app import GatewayStore as GatewayStore
    from services.scan_gateway.app import create_app as create_app
    from services.scan_gateway.app import service_version as service_version
    from services.scan_gateway.client import ScanClient as ScanClient
    from services.scan_gateway.client import ScanClientSettings as ScanClientSettings
    from services.scan_gateway.exceptions import FileUnreadable as FileUnreadable
    from services.scan_gateway.exceptions import ItemInvalid as ItemInvalid
    from services.scan_gateway.exceptions import OcrUnavailable as OcrUnavailable
    from services.scan_gateway.exceptions import ScanDeadlineExceeded as ScanDeadlineExceeded
    from services.scan_gateway.exceptions import ScanGatewayError as ScanGatewayError
    from services.scan_gateway.exceptions import ScanJobFailed as ScanJobFailed
    from services.scan_gateway.exceptions import ScanRejected as ScanRejected
    from services.scan_gateway.exceptions import ScanSystemError as ScanSystemError
    from services.scan_gateway.exceptions import ScanUnavailable as ScanUnavailable
    from services.scan_gateway.mapper import FileWarning as FileWarning
    from services.scan_gateway.mapper import map_items as map_items
    from services.scan_gateway.mapper import warning_json_failed as warning_json_failed
    from services.scan_gateway.raw import MANIFEST as MANIFEST
    from services.scan_gateway.raw import RawArchive as RawArchive
    from services.scan_gateway.raw import RawStore as RawStore
    from services.scan_gateway.raw import raw_prefix as raw_prefix
    from services.scan_gateway.recognizer import HttpSource as HttpSource
    from services.scan_gateway.recognizer import LocalSource as LocalSource
    from services.scan_gateway.recognizer import ResultSetSource as ResultSetSource
    from services.scan_gateway.recognizer import ScanGatewayRecognizer as ScanGatewayRecognizer
    from services.scan_gateway.recognizer import build_recognizer as build_recognizer
    from services.scan_gateway.recognizer import seconds_left as seconds_left
    from services.scan_gateway.resultset import ITEM_FORMAT as ITEM_FORMAT
    from services.scan_gateway.resultset import Box as Box
    from services.scan_gateway.resultset import Cell as Cell
    from services.scan_gateway.resultset import Column as Column
    from services.scan_gateway.resultset import Item as Item
    from services.scan_gateway.resultset import RawResultSet as RawResultSet
    from services.scan_gateway.resultset import Row as Row
    from services.scan_gateway.resultset import Table as Table
    from services.scan_gateway.resultset import TextLine as TextLine
    from services.scan_gateway.resultset import Word as Word
    from services.scan_gateway.resultset import item_to_json as item_to_json
    from services.scan_gateway.resultset import parse_item as parse_item
    from services.scan_gateway.settings import OcrPool as OcrPool
    from services.scan_gateway.settings import ScanGatewaySettings as ScanGatewaySettings

_LAZY: dict[str, str] = {
    "OcrAmount": "services.scan_gateway.amounts",
    "read_amount": "services.scan_gateway.amounts",
    "FILE_TYPES": "services.scan_gateway.app",
    "GatewayStore": "services.scan_gateway.app",
    "SERVICE_NAME": "services.scan_gateway.app",
    "SPEC": "services.scan_gateway.app",
    "create_app": "services.scan_gateway.app",
    "service_version": "services.scan_gateway.app",
    "ScanClient": "services.scan_gateway.client",
    "ScanClientSettings": "services.scan_gateway.client",
    "FileUnreadable": "services.scan_gateway.exceptions",
    "ItemInvalid": "services.scan_gateway.exceptions",
    "OcrUnavailable": "services.scan_gateway.exceptions",
    "ScanDeadlineExceeded": "services.scan_gateway.exceptions",
    "ScanGatewayError": "services.scan_gateway.exceptions",
    "ScanJobFailed": "services.scan_gateway.exceptions",
    "ScanRejected": "services.scan_gateway.exceptions",
    "ScanSystemError": "services.scan_gateway.exceptions",
    "ScanUnavailable": "services.scan_gateway.exceptions",
    "FileWarning": "services.scan_gateway.mapper",
    "map_items": "services.scan_gateway.mapper",
    "warning_json_failed": "services.scan_gateway.mapper",
    "MANIFEST": "services.scan_gateway.raw",
    "RawArchive": "services.scan_gateway.raw",
    "RawStore": "services.scan_gateway.raw",
    "raw_prefix": "services.scan_gateway.raw",
    "HttpSource": "services.scan_gateway.recognizer",
    "LocalSource": "services.scan_gateway.recognizer",
    "ResultSetSource": "services.scan_gateway.recognizer",
    "ScanGatewayRecognizer": "services.scan_gateway.recognizer",
    "build_recognizer": "services.scan_gateway.recognizer",
    "seconds_left": "services.scan_gateway.recognizer",
    "Box": "services.scan_gateway.resultset",
    "Cell": "services.scan_gateway.resultset",
    "Column": "services.scan_gateway.resultset",
    "ITEM_FORMAT": "services.scan_gateway.resultset",
    "Item": "services.scan_gateway.resultset",
    "RawResultSet": "services.scan_gateway.resultset",
    "Row": "services.scan_gateway.resultset",
    "Table": "services.scan_gateway.resultset",
    "TextLine": "services.scan_gateway.resultset",
    "Word": "services.scan_gateway.resultset",
    "item_to_json": "services.scan_gateway.resultset",
    "parse_item": "services.scan_gateway.resultset",
    "OcrPool": "services.scan_gateway.settings",
    "ScanGatewaySettings": "services.scan_gateway.settings",
}
"""Each name the package shows → the module that defines it, imported on first use."""

__all__ = sorted(_LAZY)

if not TYPE_CHECKING:  # mypy resolves the names above, and flags any other
    __getattr__, __dir__ = lazy_exports(globals(), _LAZY)
