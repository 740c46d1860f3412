"""The tabular-parser service: `faststream run services.tabular_parser.app:create_app --factory`.

Subscribes to NATS_TABULAR_REQUEST_SUBJECT in queue group `tabular-parser`, answers on
NATS_RESULT_SUBJECT through the shared request protocol (services.runtime.protocol), and serves
/healthcheck. Requests are taken raw (bytes + headers) so that a bad request gets the answer the
contract defines instead of FastStream's validation error; AsyncAPI still shows the real
payload schemas.

Up to JOBS_IN_FLIGHT requests are handled at once (the subscriber's max_workers); recognition
runs in a pool of PARSE_WORKERS processes, fewer than that, so the event loop only does I/O and
the ack of a new request goes out while every worker process is busy: a job waits for a worker
only after its ack and its S3 read. On SIGTERM the jobs in flight get
GRACEFUL_TIMEOUT_SECONDS to finish; each one still running then is abandoned with a log line.
"""

from __future__ import annotations

import logging
from contextlib import AsyncExitStack
from importlib.metadata import PackageNotFoundError, version
from typing import Annotated, Any

from faststream.asgi import AsgiFastStream
from faststream.nats import NatsMessage
from faststream.specification import AsyncAPI
from pydantic import WithJsonSchema

from services.contract.models.request_v1 import RecognitionRequest
from services.contract.models.result_message_v2 import RecognitionResultMessage
from services.runtime.health import healthcheck_route, log_subjects
from services.runtime.logging import configure_logging
from services.runtime.messaging import build_broker
from services.runtime.protocol import (
    ObjectStore,
    ProtocolConfig,
    RequestProtocol,
    ServiceInfo,
    attempt_from_body_or_header,
)
from services.runtime.recognizer import Recognizer
from services.runtime.sandbox import Sandbox, SandboxSettings
from services.runtime.settings import SubjectRole, load_settings
from services.runtime.storage import S3Storage
from services.tabular_parser.recognizer import TabularRecognizer
from services.tabular_parser.settings import TabularParserSettings

__all__ = ["FILE_TYPES", "QUEUE_GROUP", "SERVICE_NAME", "create_app", "service_version"]

SERVICE_NAME = "tabular-parser"
QUEUE_GROUP = "tabular-parser"
FILE_TYPES = frozenset({"XLS", "XLSX", "XLSB"})
ROLES: tuple[SubjectRole, ...] = ("tabular_request", "result")

log = logging.getLogger("services.tabular_parser")


def service_version() -> str:
    """The installed package version (what `service.version` reports)."""
    try:
        return version("arm-ka-recognition")
    except PackageNotFoundError:
        return "0.0.0"


async def _raw_body(msg: NatsMessage) -> bytes:
    """Decoder that hands the handler the bytes as received: the protocol parses them."""
    return bytes(msg.body)


def _inlined(schema: dict[str, Any]) -> dict[str, Any]:
    """A model's JSON Schema with its local `$defs` inlined (the contract has no recursion).

    `WithJsonSchema` takes a self-contained schema: refs into `$defs` would dangle in AsyncAPI.
    """
    defs = schema.pop("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                return walk(dict(defs[ref.removeprefix("#/$defs/")]))
            return {key: walk(value) for key, value in node.items()}
        if isinstance(node, list):
            return [walk(item) for item in node]
        return node

    result: dict[str, Any] = walk(schema)
    return result


# The request as AsyncAPI shows it; the handler itself takes the raw bytes (see module doc).
_REQUEST_SCHEMA = _inlined(RecognitionRequest.model_json_schema())


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
    service = ServiceInfo(SERVICE_NAME, service_version())
    request_subject = settings.nats.subject("tabular_request")
    result_subject = settings.nats.subject("result")

    broker = build_broker(
        settings,
        client_name=SERVICE_NAME,
        graceful_timeout=settings.graceful_timeout_seconds,
    )
    publisher = broker.publisher(
        result_subject,
        title="tabular-result",
        description=(
            "Ack (status processing, Nats-Msg-Id ack:<job_id>:<attempt>) and result envelope "
            "(Nats-Msg-Id result:<job_id>:<attempt>), recognition-result-message v2.0."
        ),
        schema=RecognitionResultMessage,
    )

    resources = AsyncExitStack()
    sandbox: Sandbox | None = None
    if recognizer is None:
        sandbox = Sandbox(
            SandboxSettings(
                workers=min(settings.parse_workers, settings.jobs_in_flight),
                memory_limit_bytes=settings.parse_memory_mb * 1024 * 1024,
                timeout_seconds=settings.parse_timeout_seconds,
                max_tasks_per_child=settings.parse_max_tasks_per_child,
                niceness=settings.parse_nice,
            )
        )
        recognizer = TabularRecognizer(sandbox)
    store: ObjectStore = storage if storage is not None else S3Storage(settings.s3)

    async def publish(body: dict[str, Any], msg_id: str) -> None:
        await publisher.publish(body, headers={"Nats-Msg-Id": msg_id})

    protocol = RequestProtocol(
        ProtocolConfig(
            service=service,
            pipeline="tabular",
            file_types=FILE_TYPES,
            attempt_policy=attempt_from_body_or_header,
            max_object_bytes=settings.max_object_bytes,
            results_bucket=settings.s3.s3_results_bucket,
            seen_jobs_max=settings.seen_jobs_max,
            seen_jobs_max_age_seconds=settings.seen_jobs_max_age_seconds,
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
        decoder=_raw_body,
        title="tabular-request",
        description=(
            "Recognition request v1.0 for XLS/XLSX/XLSB files (Nats-Msg-Id <job_id>:<attempt>). "
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
            description="Excel recognition (trial balances, financial statements) over NATS + S3",
            schema_version="3.0.0",
        ),
        logger=log,
    )

    @app.on_startup
    async def _open() -> None:
        log_subjects(SERVICE_NAME, settings.nats, ROLES, logger=log)
        if storage is None:
            await resources.enter_async_context(store)  # type: ignore[arg-type]
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
