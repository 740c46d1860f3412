"""Fixtures of the scan-gateway tests: the fake scanning system on loopback, and `s3` (an open
S3 client on the harness server, shared with the tabular-parser tests)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from services.scan_gateway.fake import FakeScanServer, FakeScanSystem
from tests.support.recognition_service import s3  # noqa: F401  (a fixture)
from tests.support.scanning import TOKEN


@pytest.fixture
def fake_scan() -> Iterator[FakeScanServer]:
    """A fresh fake scanning system (bearer token required) on a free loopback port."""
    with FakeScanServer(FakeScanSystem(token=TOKEN)) as server:
        yield server
