"""A recognition service as a FastStream app, written once for tabular-parser and scan-gateway.

Both services are the shared request protocol (services.runtime.protocol) on a queue-group
subscriber, a publisher of acks and results, /healthcheck, and AsyncAPI docs; they differ only
in what `ServiceSpec` says and in the recogniser they plug in. The subscriber takes the raw
bytes so a bad request gets the answer the contract defines instead of FastStream's validation
error, while AsyncAPI still shows the real payload schemas.

The subscriber only admits: it acks a valid request on arrival and queues the job in the
service's `JobBacklog` (JOBS_IN_FLIGHT workers, at most BACKLOG_MAX waiting), so the ack never
waits for a free worker (spec 001 «немедленно»).

On SIGTERM the service unsubscribes first (new requests go to other replicas, or wait for the
core's republish), then the backlog gets GRACEFUL_TIMEOUT_SECONDS to finish its jobs; each job
still running or waiting then is abandoned with a log line of its own.
"""

from __future__ import annotations

import gc
import logging
import weakref
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from dataclasses import dataclass
from typing import Annotated, Any

from faststream.asgi import AsgiFastStream
from faststream.nats import NatsMessage
from faststream.specification import AsyncAPI
from pydantic import WithJsonSchema

from services.contract.models.request_v1 import RecognitionRequest
from services.contract.models.result_message_v2 import RecognitionResultMessage
from services.runtime.asyncapi import inlined_schema, raw_body
from services.runtime.backlog import JobBacklog
from services.runtime.health import healthcheck_route, log_subjects
from services.runtime.messaging import MSG_ID_HEADER, build_broker
from services.runtime.protocol import (
    Admitted,
    ObjectStore,
    ProtocolConfig,
    ProtocolRules,
    RequestProtocol,
)
from services.runtime.recognizer import Recognizer
from services.runtime.settings import RecognitionServiceSettings, SubjectRole
from services.runtime.version import package_version

__all__ = [
    "ServiceSpec",
    "build_service_app",
    "package_version",
    "service_backlog",
    "service_protocol",
]

# The request as AsyncAPI shows it; the handler itself takes the raw bytes (see module doc).
_REQUEST_SCHEMA = inlined_schema(RecognitionRequest.model_json_schema())

_RUNNING: weakref.WeakKeyDictionary[
    AsgiFastStream, tuple[RequestProtocol, JobBacklog[Admitted]]
] = weakref.WeakKeyDictionary()


def service_backlog(app: AsgiFastStream) -> JobBacklog[Admitted]:
    """The backlog of a service app: what waits and what runs (tests and benchmarks read it)."""
    return _RUNNING[app][1]


def service_protocol(app: AsgiFastStream) -> RequestProtocol:
    """The request protocol of a service app (tests wait on its acks)."""
    return _RUNNING[app][0]


@dataclass(frozen=True, slots=True, kw_only=True)
class ServiceSpec(ProtocolRules):
    """One service: the protocol's rules (name, pipeline, file types, attempt policy,
    pre-checks) plus the subject it takes requests on and its AsyncAPI texts."""

    request_role: SubjectRole
    description: str
    request_description: str
    result_description: str

    @property
    def queue_group(self) -> str:
        """The queue group is the service's name (CONTRACT.md)."""
        return self.name

    @property
    def roles(self) -> tuple[SubjectRole, ...]:
        """The subjects this service uses, for the start-up log and /healthcheck."""
        return (self.request_role, "result")


def build_service_app(
    spec: ServiceSpec,
    settings: RecognitionServiceSettings,
    *,
    recognizer: Recognizer,
    storage: ObjectStore,
    resources: Sequence[AbstractAsyncContextManager[Any]] = (),
    logger: logging.Logger,
    startup_note: str | None = None,
) -> AsgiFastStream:
    """The service's app: `resources` (the S3 client, worker pools, HTTP clients) are entered at
    start-up in order and closed at shutdown after the jobs in flight."""
    config = ProtocolConfig(
        spec,
        package_version(),
        max_object_bytes=settings.max_object_bytes,
        results_bucket=settings.s3.s3_results_bucket,
        seen_jobs_max=settings.seen_jobs_max,
        seen_jobs_max_age_seconds=settings.seen_jobs_max_age_seconds,
    )
    service = config.service
    broker = build_broker(
        settings, client_name=spec.name, graceful_timeout=settings.graceful_timeout_seconds
    )
    publisher = broker.publisher(
        settings.nats.subject("result"),
        title=f"{spec.pipeline}-result",
        description=spec.result_description,
        schema=RecognitionResultMessage,
    )

    async def publish(body: dict[str, Any], msg_id: str) -> None:
        await publisher.publish(body, headers={MSG_ID_HEADER: msg_id})

    protocol = RequestProtocol(
        config,
        recognizer=recognizer,
        storage=storage,
        publish=publish,
        logger=logger,
    )
    backlog: JobBacklog[Admitted] = JobBacklog(
        protocol.run,
        workers=settings.jobs_in_flight,
        limit=settings.backlog_max,
        logger=logger,
    )

    # One message at a time: admitting is an ack publish (one round trip), and the jobs
    # reach the backlog in their arrival order.
    subscriber = broker.subscriber(
        settings.nats.subject(spec.request_role),
        queue=spec.queue_group,
        decoder=raw_body,
        title=f"{spec.pipeline}-request",
        description=spec.request_description,
    )

    @subscriber
    async def on_request(body: Annotated[bytes, WithJsonSchema(_REQUEST_SCHEMA)]) -> None:
        # The headers are read from the message in the broker's context rather than through
        # a `msg: NatsMessage` parameter: FastStream resolves such a parameter by a synchronous
        # context lookup that fast_depends runs on a worker thread, a thread hop (milliseconds
        # on a busy machine) before every ack. (The app sets the broker's context when it is
        # built, after this function: it is looked up here, per message.)
        msg: NatsMessage | None = broker.context.get_local("message")
        full = backlog.limit if backlog.full() else None
        admitted = await protocol.admit(
            body, msg.headers if msg is not None else None, backlog_full=full
        )
        if admitted is not None:
            backlog.submit(admitted)

    app = AsgiFastStream(
        broker,
        asgi_routes=[
            healthcheck_route(
                service=spec.name,
                version=service.version,
                nats=settings.nats,
                roles=spec.roles,
                broker=broker,
            )
        ],
        specification=AsyncAPI(
            title=spec.name,
            version=service.version,
            description=spec.description,
            schema_version="3.0.0",
        ),
        logger=logger,
    )
    opened = AsyncExitStack()

    @app.on_startup
    async def _open() -> None:
        log_subjects(spec.name, settings.nats, spec.roles, logger=logger)
        if startup_note:
            logger.info("%s", startup_note)
        for resource in resources:
            await opened.enter_async_context(resource)
        backlog.start()
        # Every object of the start-up (the imported modules, pydantic's and FastStream's
        # tables, the clients: about 100,000) is frozen out of the cyclic collector: its full
        # passes would otherwise walk them all, tens of milliseconds on the event loop, at
        # an ack's moment (issue 29). Garbage made while serving is collected as before.
        gc.collect()
        gc.freeze()

    @app.on_shutdown
    async def _drain() -> None:
        await subscriber.stop()  # nothing new is admitted while the backlog drains
        for admitted in await backlog.close(settings.graceful_timeout_seconds):
            logger.error(
                "job %s attempt %d abandoned at shutdown: not finished within %.1f s",
                admitted.job.job_id,
                admitted.job.attempt,
                settings.graceful_timeout_seconds,
            )
        await protocol.acks_sent()  # before the broker closes

    @app.after_shutdown
    async def _close() -> None:
        await opened.aclose()

    _RUNNING[app] = (protocol, backlog)
    return app
