"""The arm-core application: FastAPI (REST, /healthcheck, OpenAPI) sharing one NATS broker.

`uvicorn services.arm_core.app:create_app --factory --host 127.0.0.1 --port 8000`

Started with the app and stopped with it: the migrations (at start for the embedded SQLite
default), the S3 client, the outbox relay and the deadline sweeper. The result subject is
consumed in queue group `arm-core`, so core replicas share the answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from fastapi import FastAPI
from faststream.nats import NatsBroker
from faststream.specification import AsyncAPI
from faststream_fastapi import FastStreamAPI
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from services.arm_core.auth import announce, auth_state, check_bind, install_auth, uvicorn_bind
from services.arm_core.db.engine import create_engine, create_session_factory, is_sqlite
from services.arm_core.db.migrate import migrate
from services.arm_core.exceptions import PublishFailed
from services.arm_core.jobs.evidence import EvidenceService
from services.arm_core.jobs.file_reads import FileReads
from services.arm_core.jobs.intake import FinalResultHandler, Intake, StagedFinalHandler
from services.arm_core.jobs.orphans import OrphanSweeper
from services.arm_core.jobs.periodic import PeriodicTask
from services.arm_core.jobs.progress import ProgressReader
from services.arm_core.jobs.relay import OutboxRelay, RequestPublisher
from services.arm_core.jobs.results import ResultFileHandler, S3ResultReader
from services.arm_core.jobs.retention import FileRetention
from services.arm_core.jobs.sweeper import DeadlineSweeper
from services.arm_core.jobs.uploads import UploadService
from services.arm_core.rest import ApiDeps, error_response, install_rest
from services.arm_core.rest.bodies import BodyLimit
from services.arm_core.settings import CoreSettings
from services.arm_core.web import install_web
from services.arm_core.web.render import UI_PREFIX
from services.contract import Registry
from services.contract.models.request_v1 import RecognitionRequest
from services.girbo import GirboClient
from services.runtime.asyncapi import raw_body
from services.runtime.exceptions import MessagingError, StorageError
from services.runtime.health import HEALTHCHECK_PATH, health_payload, log_subjects, nats_state
from services.runtime.ids import MSG_ID_HEADER
from services.runtime.messaging import RETRYABLE_PUBLISH_ERRORS, build_broker
from services.runtime.settings import load_settings
from services.runtime.storage import S3Storage
from services.runtime.version import package_version

__all__ = ["SERVICE_NAME", "CoreApp", "CoreRuntime", "create_app"]

SERVICE_NAME = "arm-core"
_QUEUE_GROUP = SERVICE_NAME  # core replicas share the answers (CONTRACT.md)

log = logging.getLogger("services.arm_core")

_PUBLISH_ERRORS: tuple[type[BaseException], ...] = (MessagingError, *RETRYABLE_PUBLISH_ERRORS)


@dataclass(slots=True)
class CoreRuntime:
    """The parts of a running core, for the lifespan and for tests."""

    settings: CoreSettings
    engine: AsyncEngine
    sessions: async_sessionmaker[AsyncSession]
    broker: NatsBroker
    storage: S3Storage
    uploads: UploadService
    intake: Intake
    relay: OutboxRelay
    sweeper: DeadlineSweeper
    relay_task: PeriodicTask
    sweeper_task: PeriodicTask
    orphans: OrphanSweeper
    orphans_task: PeriodicTask
    connect_task: asyncio.Task[None] | None = None


class CoreApp(FastStreamAPI):
    """The ASGI app uvicorn runs; `.api` is the FastAPI app, `.core` its running parts."""

    def __init__(self, *brokers: NatsBroker, application: FastAPI, core: CoreRuntime, **kw: Any):
        super().__init__(*brokers, application=application, **kw)
        self.api = application
        self.core = core


def _request_publisher(broker: NatsBroker) -> RequestPublisher:
    async def publish(body: dict[str, Any], subject: str, msg_id: str) -> None:
        # `running` comes after the result subscription exists: an ack to a request sent
        # earlier would be lost (core NATS keeps nothing for absent subscribers).
        if not broker.running or nats_state(broker) != "connected":
            raise PublishFailed(body.get("job_id"), subject)
        try:
            # Confirmed by the retry middleware's flush; raises PublishGaveUp when it gave up.
            await broker.publish(body, subject, headers={MSG_ID_HEADER: msg_id})
        except _PUBLISH_ERRORS as exc:
            raise PublishFailed(body.get("job_id"), subject) from exc

    return publish


def create_app(
    settings: CoreSettings | None = None,
    *,
    on_final: FinalResultHandler | StagedFinalHandler | None = None,
    run_background: bool = True,
    registry: Registry | None = None,
    bind_host: str | None = None,
) -> CoreApp:
    """Build the core from settings (the environment by default).

    `on_final` closes a job with a done / needs_check result; by default the result file is
    read from S3 (before the intake's transaction), validated by its MAJOR, mapped and stored
    (`ResultFileHandler`).
    `registry` is the contract registry (the process-wide one by default).
    `run_background=False` leaves the relay and the sweeper stopped (tests drive them).
    `bind_host` is where the server will listen (default: the uvicorn CLI's `--host`, when that
    CLI runs the process); without an identity provider anything but loopback is refused
    with a `SettingsError` before anything starts.
    """
    settings = settings or load_settings(CoreSettings)
    host = bind_host if bind_host is not None else uvicorn_bind()
    if host is not None:
        check_bind(settings.auth, host)
    engine = create_engine(settings.db.url)
    sessions = create_session_factory(engine)
    broker = build_broker(settings, client_name=SERVICE_NAME, logger=log)
    storage = S3Storage(settings.s3)

    relay = OutboxRelay(sessions, settings, _request_publisher(broker))
    relay_task = PeriodicTask(
        "arm-core-relay", relay.run_pass, settings.relay_poll_interval_seconds, logger=log
    )
    sweeper = DeadlineSweeper(
        sessions, new_attempt=settings.timeout_new_attempt, on_queued=relay_task.wake
    )
    sweeper_task = PeriodicTask(
        "arm-core-sweeper", sweeper.run_pass, settings.relay_poll_interval_seconds, logger=log
    )
    orphans = OrphanSweeper(
        sessions,
        storage,
        bucket=settings.s3.s3_bucket,
        grace=dt.timedelta(seconds=settings.orphan_grace_seconds),
    )
    orphans_task = PeriodicTask(
        "arm-core-orphans", orphans.run_pass, settings.orphan_sweep_interval_seconds, logger=log
    )
    uploads = UploadService(
        sessions,
        storage,
        bucket=settings.s3.s3_bucket,
        max_bytes=settings.upload_max_bytes,
        on_queued=relay_task.wake,
        file_reads=FileReads(
            settings.file_worker_limits(), max_page_pixels=settings.page_max_pixels
        ),
    )
    if on_final is None:
        reader = S3ResultReader(storage, max_bytes=settings.result_max_bytes)
        on_final = ResultFileHandler(reader, registry=registry)
    intake = Intake(
        sessions, on_final=on_final, registry=registry, reply_budget=settings.reply_budget
    )
    core = CoreRuntime(
        settings=settings,
        engine=engine,
        sessions=sessions,
        broker=broker,
        storage=storage,
        uploads=uploads,
        intake=intake,
        relay=relay,
        sweeper=sweeper,
        relay_task=relay_task,
        sweeper_task=sweeper_task,
        orphans=orphans,
        orphans_task=orphans_task,
    )

    @broker.subscriber(
        settings.nats.nats_result_subject,
        queue=_QUEUE_GROUP,
        decoder=raw_body,  # the intake validates the bytes itself
        max_workers=4,
        title="recognition-result",
        description="Acks (processing) and results of the recognition services",
    )
    async def on_result() -> None:
        message = broker.context.get_local("message")
        await intake.handle(message.body, message.headers)

    # Declared for the AsyncAPI document; the relay publishes through the broker itself.
    for pipeline in ("tabular", "image"):
        broker.publisher(
            settings.request_subject(pipeline),
            title=f"{pipeline}-request",
            description=f"Recognition requests of the {pipeline} pipeline (Nats-Msg-Id <job_id>:<attempt>)",
            schema=RecognitionRequest,
        )

    api = FastAPI(
        title="АРМ КА arm-core",
        version=package_version(),
        description=(
            "Uploads, recognition jobs and their results. Errors are RFC 9457 problems "
            "(`application/problem+json`) whose `type` names the kind; see docs/api.md. "
            "Every /api/v1 route needs an access token of the bank's OpenID Connect provider "
            "(`Authorization: Bearer`, or the page's login cookie) with the role it names: "
            "integrator (upload, re-run, read), analyst (read), admin (delete, everything)."
        ),
        docs_url=None,
        redoc_url=None,
        # The multipart / form parser's own limits: UPLOAD_MAX_FILES files (the page's several
        # at once), a few fields, small text parts; the whole body is bounded by BodyLimit.
        form_limits={
            "max_files": settings.upload_max_files,
            "max_fields": 32,
            "max_part_size": 64 * 1024,
        },
        lifespan=_lifespan(core, run_background=run_background),
    )
    retention = FileRetention(
        sessions,
        storage,
        buckets=(settings.s3.s3_bucket, settings.s3.s3_results_bucket or settings.s3.s3_bucket),
    )
    install_auth(api, settings.auth, respond=error_response)
    girbo = settings.girbo
    official = (
        GirboClient(
            girbo.girbo_url,
            timeout_seconds=girbo.girbo_timeout_seconds,
            cache_seconds=girbo.girbo_cache_seconds,
            retry_seconds=girbo.girbo_retry_seconds,
        )
        if girbo.girbo_url is not None
        else None
    )
    evidence = EvidenceService(storage, uploads, results_bucket=settings.s3.s3_results_bucket)
    progress = ProgressReader(storage, results_bucket=settings.s3.s3_results_bucket)
    install_rest(api, ApiDeps(sessions, uploads, retention, official, evidence, progress))
    # Outside the auth guards: a body over its limit is refused before anything reads it.
    api.add_middleware(
        BodyLimit,
        upload_max=settings.upload_max_bytes,
        body_max=settings.body_max_bytes,
        request_max=settings.upload_request_max_bytes,
        several_files_at={f"{UI_PREFIX}/files"},  # the page's upload (web/files.py)
    )
    install_web(api)

    subjects = settings.nats.subjects("tabular_request", "image_request", "result")
    auth = auth_state(settings.auth)

    @api.get(HEALTHCHECK_PATH, tags=["health"])
    async def healthcheck() -> dict[str, Any]:
        """Liveness, the subjects in use and how requests are authenticated (open to all);
        answered whatever the state of NATS."""
        payload = health_payload(
            service=SERVICE_NAME, version=package_version(), subjects=subjects, broker=broker
        )
        return {**payload, "auth": auth}

    return CoreApp(
        broker,
        application=api,
        core=core,
        connection_hook=_connect_in_background(core),
        specification=AsyncAPI(
            title="arm-core",
            version=package_version(),
            description=(
                "The analysts' side of recognition: stores each upload in S3, sends one "
                "recognition request per job to the pipeline of its file type, and reads the "
                "acks and result envelopes of every recognition service (2.0 and, during the "
                "migration, 1.x). Its HTTP API is described by openapi/arm-core.json."
            ),
            schema_version="3.0.0",
        ),
    )


def _connect_in_background(core: CoreRuntime) -> Callable[[Any], Awaitable[None]]:
    """Start the broker without waiting for NATS: the API and /healthcheck serve meanwhile,
    the relay holds its rows until the connection is up, nats-py keeps reconnecting."""

    async def hook(broker: Any) -> None:
        async def connect() -> None:
            try:
                await broker.start()
            except Exception:
                log.exception("could not start the NATS broker")

        core.connect_task = asyncio.create_task(connect(), name="arm-core-nats-connect")

    return hook


def _lifespan(core: CoreRuntime, *, run_background: bool) -> Any:
    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        settings = core.settings
        migrate_now = settings.db_migrate_on_start
        if migrate_now is None:
            migrate_now = is_sqlite(settings.db.url)
        if migrate_now:
            await migrate(settings.db.url)
        log_subjects(
            SERVICE_NAME, settings.nats, ("tabular_request", "image_request", "result"), log
        )
        announce(settings.auth, log)
        girbo_host = urlsplit(settings.girbo.girbo_url or "").hostname
        log.info(
            "official filing (ГИР БО): %s",
            f"dossiers are held against {girbo_host}" if girbo_host else "off",
        )
        try:
            async with core.storage:
                try:
                    await core.storage.ensure_bucket(settings.s3.s3_bucket)
                except StorageError as exc:
                    log.warning("could not check the uploads bucket at start: %s", exc)
                if run_background:
                    core.relay_task.start()
                    core.sweeper_task.start()
                    core.orphans_task.start()
                try:
                    yield
                finally:
                    await core.relay_task.stop()
                    await core.sweeper_task.stop()
                    await core.orphans_task.stop()
                    if core.connect_task is not None and not core.connect_task.done():
                        core.connect_task.cancel()
                        with contextlib.suppress(asyncio.CancelledError):
                            await core.connect_task
        finally:
            await core.uploads.file_reads.close()
            await core.engine.dispose()

    return lifespan
