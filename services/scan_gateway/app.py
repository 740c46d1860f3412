"""The scan-gateway service: `faststream run services.scan_gateway.app:create_app --factory`.

Subscribes to NATS_IMAGE_REQUEST_SUBJECT in queue group `scan-gateway`, answers on
NATS_RESULT_SUBJECT through the shared request protocol (services.runtime.protocol) with the
scan-gateway side of OQ-71 (a request off the contract without an attempt is answered with
attempt 1), and serves /healthcheck with the subjects {image_request, result}.

Files (PDF | PNG | JPG) go to the scanning system when OPENBAO__SCAN__SCAN_URL is set, else to
the built-in local recogniser (in worker processes). A reply_deadline already passed before the
file is sent ends the job in TIMEOUT (a pre-check of the protocol); an exchange that does not
finish by it ends in TIMEOUT too. The raw result set is stored under raw/{file_id}/{job_id}/ and
named by raw_s3_key.
"""

from __future__ import annotations

import logging
from contextlib import AsyncExitStack
from importlib.metadata import PackageNotFoundError, version
from typing import Annotated, Any, Protocol

from faststream.asgi import AsgiFastStream
from faststream.nats import NatsMessage
from faststream.specification import AsyncAPI
from pydantic import WithJsonSchema

from services.contract.models.request_v1 import RecognitionRequest
from services.contract.models.result_message_v2 import RecognitionResultMessage
from services.runtime.asyncapi import inlined_schema, raw_body
from services.runtime.health import healthcheck_route, log_subjects
from services.runtime.messaging import build_broker
from services.runtime.protocol import (
    ProtocolConfig,
    RequestProtocol,
    ServiceInfo,
    attempt_from_body_or_one,
)
from services.runtime.recognizer import Recognizer
from services.runtime.sandbox import Sandbox, SandboxSettings
from services.runtime.settings import SubjectRole, load_settings
from services.runtime.storage import S3Storage
from services.scan_gateway.client import ScanClient, ScanClientSettings
from services.scan_gateway.raw import RawArchive
from services.scan_gateway.recognizer import (
    HttpSource,
    LocalSource,
    ResultSetSource,
    ScanGatewayRecognizer,
    deadline_not_passed,
)
from services.scan_gateway.settings import ScanGatewaySettings

__all__ = ["FILE_TYPES", "QUEUE_GROUP", "SERVICE_NAME", "GatewayStore", "create_app"]

SERVICE_NAME = "scan-gateway"
QUEUE_GROUP = "scan-gateway"
FILE_TYPES = frozenset({"PDF", "PNG", "JPG"})
ROLES: tuple[SubjectRole, ...] = ("image_request", "result")

log = logging.getLogger("services.scan_gateway")

_REQUEST_SCHEMA = inlined_schema(RecognitionRequest.model_json_schema())


class GatewayStore(Protocol):
    """What the gateway needs of S3: the protocol's reads and writes and the raw archive's."""

    async def get_bytes(self, bucket: str, key: str, max_bytes: int) -> bytes: ...

    async def put_json(self, bucket: str, key: str, document: Any) -> None: ...

    async def put_bytes(
        self, bucket: str, key: str, data: bytes, *, content_type: str = ...
    ) -> None: ...


def service_version() -> str:
    """The installed package version (what `service.version` reports)."""
    try:
        return version("arm-ka-recognition")
    except PackageNotFoundError:
        return "0.0.0"


def create_app(
    settings: ScanGatewaySettings | None = None,
    recognizer: Recognizer | None = None,
    *,
    storage: GatewayStore | None = None,
) -> AsgiFastStream:
    """Build the service. Tests pass `settings`, may pass a `recognizer` and an opened
    `storage`; by default the scanning system (SCAN_URL set) or the local recogniser is used."""
    settings = settings if settings is not None else load_settings(ScanGatewaySettings)
    service = ServiceInfo(SERVICE_NAME, service_version())
    request_subject = settings.nats.subject("image_request")
    result_subject = settings.nats.subject("result")

    broker = build_broker(
        settings, client_name=SERVICE_NAME, graceful_timeout=settings.graceful_timeout_seconds
    )
    publisher = broker.publisher(
        result_subject,
        title="image-result",
        description=(
            "Ack (status processing, Nats-Msg-Id ack:<job_id>:<attempt>) and result envelope "
            "(Nats-Msg-Id result:<job_id>:<attempt>, raw_s3_key names the raw result set), "
            "recognition-result-message v2.0."
        ),
        schema=RecognitionResultMessage,
    )

    resources = AsyncExitStack()
    owned_storage = storage is None
    store: GatewayStore = storage if storage is not None else S3Storage(settings.s3)
    sandbox: Sandbox | None = None
    client: ScanClient | None = None
    if recognizer is None:
        source: ResultSetSource
        if settings.scan.scan_url:
            client = ScanClient(
                ScanClientSettings(
                    base_url=settings.scan.scan_url,
                    token=settings.scan.scan_token,
                    call_timeout_seconds=settings.scan_call_timeout_seconds,
                    retries=settings.scan_retries,
                    backoff_seconds=settings.scan_backoff_seconds,
                    poll_interval_seconds=settings.scan_poll_interval_seconds,
                )
            )
            source = HttpSource(client)
        else:
            sandbox = Sandbox(
                SandboxSettings(
                    workers=min(settings.ocr_workers, settings.jobs_in_flight),
                    memory_limit_bytes=settings.ocr_memory_mb * 1024 * 1024,
                    timeout_seconds=settings.ocr_timeout_seconds,
                    max_tasks_per_child=settings.ocr_max_tasks_per_child,
                )
            )
            source = LocalSource(
                sandbox, tesseract_cmd=settings.tesseract_cmd, dpi=settings.ocr_dpi
            )
        recognizer = ScanGatewayRecognizer(
            source,
            archive=RawArchive(store, settings.s3.s3_results_bucket),
            max_seconds=settings.scan_max_seconds,
        )

    async def publish(body: dict[str, Any], msg_id: str) -> None:
        await publisher.publish(body, headers={"Nats-Msg-Id": msg_id})

    protocol = RequestProtocol(
        ProtocolConfig(
            service=service,
            pipeline="image",
            file_types=FILE_TYPES,
            attempt_policy=attempt_from_body_or_one,
            max_object_bytes=settings.max_object_bytes,
            results_bucket=settings.s3.s3_results_bucket,
            seen_jobs_max=settings.seen_jobs_max,
            seen_jobs_max_age_seconds=settings.seen_jobs_max_age_seconds,
            pre_checks=(deadline_not_passed,),
        ),
        recognizer=recognizer,
        storage=store,
        publish=publish,
        logger=log,
    )

    @broker.subscriber(
        request_subject,
        queue=QUEUE_GROUP,
        max_workers=settings.jobs_in_flight,
        decoder=raw_body,
        title="image-request",
        description=(
            "Recognition request v1.0 for PDF/PNG/JPG files (Nats-Msg-Id <job_id>:<attempt>). "
            "Any body is accepted; the answer follows the contract's table."
        ),
    )
    async def on_request(
        body: Annotated[bytes, WithJsonSchema(_REQUEST_SCHEMA)],
        msg: NatsMessage,
    ) -> None:
        await protocol.handle(body, msg.headers)

    app = AsgiFastStream(
        broker,
        asgi_routes=[
            healthcheck_route(
                service=SERVICE_NAME,
                version=service.version,
                nats=settings.nats,
                roles=ROLES,
                broker=broker,
            )
        ],
        specification=AsyncAPI(
            title=SERVICE_NAME,
            version=service.version,
            description="Scans and PDFs of financial statements over NATS + S3",
            schema_version="3.0.0",
        ),
        logger=log,
    )

    @app.on_startup
    async def _open() -> None:
        log_subjects(SERVICE_NAME, settings.nats, ROLES, logger=log)
        log.info(
            "recognition by %s",
            "the scanning system"
            if client is not None
            else "the local recogniser"
            if sandbox is not None
            else "an injected recogniser",
        )
        if owned_storage and isinstance(store, S3Storage):
            await resources.enter_async_context(store)
        if client is not None:
            await resources.enter_async_context(client)
        if sandbox is not None:
            await resources.enter_async_context(sandbox)

    @app.after_shutdown
    async def _close() -> None:
        for job_id, attempt in protocol.jobs_in_work():
            log.error(
                "job %s attempt %d abandoned at shutdown: not finished within %.1f s",
                job_id,
                attempt,
                settings.graceful_timeout_seconds,
            )
        await resources.aclose()

    return app
