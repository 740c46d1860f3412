"""Fixtures of the tabular-parser tests: `s3`, an open S3 client on the harness server (shared
with the scan-gateway tests)."""

from __future__ import annotations

from tests.support.recognition_service import s3  # noqa: F401  (a fixture)
