"""The scan-gateway service: `faststream run services.scan_gateway.app:create_app --factory`.

Subscribes to NATS_IMAGE_REQUEST_SUBJECT in queue group `scan-gateway`, answers on
NATS_RESULT_SUBJECT through the shared request protocol (services.runtime.protocol) with the
scan-gateway side of OQ-71 (a request off the contract without an attempt is answered with
attempt 1), and serves /healthcheck with the subjects {image_request, result}.

Files (PDF | PNG | JPG) go to the scanning system when OPENBAO__SCAN__SCAN_URL is set, else to
the built-in local recogniser (in worker processes). A reply_deadline already passed before the
file is sent ends the job in TIMEOUT (the shared protocol's rule); an exchange that does not
finish by it ends in TIMEOUT too. The raw result set is stored under raw/{file_id}/{job_id}/ and
named by raw_s3_key.
"""

from __future__ import annotations

import logging
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from faststream.asgi import AsgiFastStream

from services.runtime.logging import configure_logging
from services.runtime.protocol import attempt_from_body_or_one
from services.runtime.recognizer import Recognizer
from services.runtime.service import ServiceSpec, build_service_app, package_version
from services.runtime.settings import load_settings
from services.runtime.storage import S3Storage
from services.scan_gateway.recognizer import build_recognizer
from services.scan_gateway.settings import ScanGatewaySettings

__all__ = [
    "FILE_TYPES",
    "SERVICE_NAME",
    "SPEC",
    "GatewayStore",
    "create_app",
    "service_version",
]

SERVICE_NAME = "scan-gateway"
FILE_TYPES = frozenset({"PDF", "PNG", "JPG"})

SPEC = ServiceSpec(
    name=SERVICE_NAME,
    pipeline="image",
    request_role="image_request",
    file_types=FILE_TYPES,
    attempt_policy=attempt_from_body_or_one,
    description="Scans and PDFs of financial statements over NATS + S3",
    request_description=(
        "Recognition request v1.0 for PDF/PNG/JPG files (Nats-Msg-Id <job_id>:<attempt>). "
        "Any body is accepted; the answer follows the contract's table."
    ),
    result_description=(
        "Ack (status processing, Nats-Msg-Id ack:<job_id>:<attempt>) and result envelope "
        "(Nats-Msg-Id result:<job_id>:<attempt>, raw_s3_key names the raw result set), "
        "recognition-result-message v2.0."
    ),
)
service_version = package_version

log = logging.getLogger("services.scan_gateway")


class GatewayStore(Protocol):
    """What the gateway needs of S3: the protocol's reads and writes and the raw archive's."""

    async def get_bytes(self, bucket: str, key: str, max_bytes: int) -> bytes: ...

    async def put_json(self, bucket: str, key: str, document: Any) -> None: ...

    async def put_bytes(
        self, bucket: str, key: str, data: bytes, *, content_type: str = ...
    ) -> None: ...


def create_app(
    settings: ScanGatewaySettings | None = None,
    recognizer: Recognizer | None = None,
    *,
    storage: GatewayStore | None = None,
) -> AsgiFastStream:
    """Build the service. Tests pass `settings`, may pass a `recognizer` and an opened
    `storage`; by default the scanning system (SCAN_URL set) or the local recogniser is used."""
    if settings is None:  # a real run: logs go to stderr, secrets redacted
        configure_logging()
        settings = load_settings(ScanGatewaySettings)
    resources: list[AbstractAsyncContextManager[Any]] = []
    if storage is None:
        s3 = S3Storage(settings.s3)
        resources.append(s3)
        storage = s3
    note = "recognition by an injected recogniser"
    if recognizer is None:
        recognizer, pool = build_recognizer(settings, archive_store=storage)
        resources.extend(pool)
        note = (
            "recognition by the scanning system"
            if settings.scan.scan_url
            else "recognition by the local recogniser"
        )
    return build_service_app(
        SPEC,
        settings,
        recognizer=recognizer,
        storage=storage,
        resources=resources,
        logger=log,
        startup_note=note,
    )
