"""The tabular-parser service: `faststream run services.tabular_parser.app:create_app --factory`.

Subscribes to NATS_TABULAR_REQUEST_SUBJECT in queue group `tabular-parser` and answers on
NATS_RESULT_SUBJECT through the shared request protocol (services.runtime.service). What is its
own: XLS / XLSX / XLSB, the tabular side of OQ-71 (a request off the contract without an attempt
in its body takes the attempt from its Nats-Msg-Id, else gets no answer), and the recogniser.

A request is acked on arrival and waits in the service's backlog (services.runtime.backlog);
up to JOBS_IN_FLIGHT jobs are worked on at once; recognition runs in a pool of PARSE_WORKERS
processes at a lower CPU priority (PARSE_NICE), so the event loop only does I/O and acks go out
while every worker process is busy.
"""

from __future__ import annotations

import logging
from contextlib import AbstractAsyncContextManager
from typing import Any

from faststream.asgi import AsgiFastStream

from services.runtime.logging import configure_logging
from services.runtime.protocol import ObjectStore, attempt_from_body_or_header
from services.runtime.recognizer import Recognizer
from services.runtime.service import ServiceSpec, build_service_app, package_version
from services.runtime.settings import load_settings
from services.runtime.storage import S3Storage
from services.tabular_parser.recognizer import build_recognizer
from services.tabular_parser.settings import TabularParserSettings

__all__ = ["FILE_TYPES", "SERVICE_NAME", "SPEC", "create_app", "service_version"]

SERVICE_NAME = "tabular-parser"
FILE_TYPES = frozenset({"XLS", "XLSX", "XLSB"})

SPEC = ServiceSpec(
    name=SERVICE_NAME,
    pipeline="tabular",
    request_role="tabular_request",
    file_types=FILE_TYPES,
    attempt_policy=attempt_from_body_or_header,
    description="Excel recognition (trial balances, financial statements) over NATS + S3",
    request_description=(
        "Recognition request v1.0 for XLS/XLSX/XLSB files (Nats-Msg-Id <job_id>:<attempt>). "
        "Any body is accepted; the answer follows the contract's table."
    ),
    result_description=(
        "Ack (status processing, Nats-Msg-Id ack:<job_id>:<attempt>) and result envelope "
        "(Nats-Msg-Id result:<job_id>:<attempt>), recognition-result-message v2.0."
    ),
)
service_version = package_version

log = logging.getLogger("services.tabular_parser")


def create_app(
    settings: TabularParserSettings | None = None,
    recognizer: Recognizer | None = None,
    *,
    storage: ObjectStore | None = None,
) -> AsgiFastStream:
    """Build the service. Tests pass `settings`, a `recognizer` (e.g. `NullParser`) and may
    pass an already opened `storage`; by default the real recogniser and S3 are used."""
    if settings is None:  # a real run: logs go to stderr, secrets redacted
        configure_logging()
        settings = load_settings(TabularParserSettings)
    resources: list[AbstractAsyncContextManager[Any]] = []
    if recognizer is None:
        recognizer, pool = build_recognizer(settings)
        resources.extend(pool)
    if storage is None:
        storage = S3Storage(settings.s3)
        resources.insert(0, storage)
    return build_service_app(
        SPEC,
        settings,
        recognizer=recognizer,
        storage=storage,
        resources=resources,
        logger=log,
    )
