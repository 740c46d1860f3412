"""Fixtures of the arm-core tests: a migrated database, a clock, files built in code, and the
REST API in memory (`app` on `api_settings`, `client`).

The session's database (`database_url`: SQLite, or PostgreSQL with ARM_TEST_DATABASE_URL) is
migrated once; each test that takes `sessions` starts from empty tables, because the relay
works on every queued row it can see.
"""

from __future__ import annotations

import datetime as dt
import io
import uuid
import zipfile
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from sqlalchemy import delete
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from services.arm_core.app import CoreApp, create_app
from services.arm_core.db import (
    JobStatus,
    RecognitionJob,
    StoredFile,
    create_engine,
    create_session_factory,
    migrate,
)
from services.arm_core.jobs.intake import Intake
from services.arm_core.jobs.results import ResultFileHandler, S3ResultReader
from services.arm_core.settings import CoreSettings
from services.runtime.settings import S3Settings, load_settings
from services.runtime.storage import S3Storage
from tests.support.core import T0, FakeClock, RecordingPublisher, ResultPublisher, build_envelope


@pytest.fixture(scope="session")
async def core_db_url(database_url: str) -> str:
    """The session database with the core's migrations applied."""
    await migrate(database_url)
    return database_url


@pytest.fixture
def is_postgres(core_db_url: str) -> bool:
    """True when the session runs on PostgreSQL."""
    return core_db_url.startswith("postgresql")


@pytest.fixture
async def engine(core_db_url: str) -> AsyncIterator[AsyncEngine]:
    """An engine on the migrated database, with the core's tables emptied first."""
    eng = create_engine(core_db_url)
    async with eng.begin() as conn:
        await conn.execute(delete(RecognitionJob))
        await conn.execute(delete(StoredFile))
    try:
        yield eng
    finally:
        await eng.dispose()


@pytest.fixture
def sessions(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """A session factory on the emptied database."""
    return create_session_factory(engine)


@pytest.fixture
def subjects() -> dict[str, str]:
    """Unique request/result subjects for one test."""
    tag = uuid.uuid4().hex[:12]
    return {
        "nats_tabular_request_subject": f"test.{tag}.tabular",
        "nats_image_request_subject": f"test.{tag}.image",
        "nats_result_subject": f"test.{tag}.result",
    }


@pytest.fixture
def core_settings(core_db_url: str, subjects: dict[str, str]) -> Callable[..., CoreSettings]:
    """CoreSettings on the test database and unique subjects; keyword overrides by field."""
    return core_settings_on({"db": {"db_url": core_db_url}, "nats": dict(subjects)})


def core_settings_on(base: dict[str, Any]) -> Callable[..., CoreSettings]:
    """A maker of CoreSettings from `base` values; keyword overrides by field, a group's
    (a dict) merged into its base values."""

    def make(**overrides: Any) -> CoreSettings:
        values = {k: dict(v) if isinstance(v, dict) else v for k, v in base.items()}
        for key, value in overrides.items():
            if isinstance(value, dict) and isinstance(values.get(key), dict):
                values[key] = {**values[key], **value}
            else:
                values[key] = value
        return load_settings(CoreSettings, **values)

    return make


@pytest.fixture
def api_settings(
    core_settings: Callable[..., CoreSettings], s3_settings: S3Settings, bucket: str
) -> CoreSettings:
    """CoreSettings of the REST API tests: the test's own bucket (a module may override it)."""
    return core_settings(s3={**s3_settings.model_dump(), "s3_bucket": bucket})


@pytest.fixture
async def app(
    api_settings: CoreSettings, sessions: async_sessionmaker[AsyncSession]
) -> AsyncIterator[CoreApp]:
    """The core with its FastAPI lifespan running (S3 open); relay and NATS left out."""
    core_app = create_app(api_settings, run_background=False)
    async with core_app.api.router.lifespan_context(core_app.api):
        yield core_app


@pytest.fixture
async def client(app: CoreApp) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client on `app`, in memory (httpx ASGITransport)."""
    transport = httpx.ASGITransport(app=app)
    # A loopback host name: the unauthenticated core answers no other (DNS rebinding).
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        yield http


@pytest.fixture
def clock() -> FakeClock:
    """A hand-driven clock starting at T0."""
    return FakeClock()


@pytest.fixture
def publisher() -> RecordingPublisher:
    """A fresh recording publisher."""
    return RecordingPublisher()


async def add_job(
    sessions: async_sessionmaker[AsyncSession],
    *,
    pipeline: str = "tabular",
    file_type: str = "XLSX",
    status: JobStatus = JobStatus.QUEUED,
    created_at: dt.datetime = T0,
    **job_values: Any,
) -> RecognitionJob:
    """Insert a stored file and one job in `status` (for state-machine tests)."""
    file = StoredFile(
        id=uuid.uuid4(),
        original_name=f"отчёт.{file_type.lower()}",
        file_type=file_type,
        size=10,
        sha256="0" * 64,
        content_type="application/octet-stream",
        s3_bucket="arm-ka",
        s3_key="uploads/x/source.bin",
        created_at=created_at,
    )
    job = RecognitionJob(
        id=uuid.uuid4(),
        file_id=file.id,
        pipeline=pipeline,
        attempt=job_values.pop("attempt", 1),
        status=status.value,
        republish_count=job_values.pop("republish_count", 0),
        created_at=created_at,
        updated_at=created_at,
        **job_values,
    )
    file.s3_key = f"uploads/{file.id}/source.{file_type.lower()}"
    async with sessions() as session, session.begin():
        session.add_all([file, job])
    return job


@pytest.fixture
def make_job(sessions: async_sessionmaker[AsyncSession]) -> Callable[..., Any]:
    """`await make_job(status=..., **columns)` → a committed job with its file."""

    async def make(**kwargs: Any) -> RecognitionJob:
        return await add_job(sessions, **kwargs)

    return make


async def load_job(sessions: async_sessionmaker[AsyncSession], job_id: uuid.UUID) -> RecognitionJob:
    """The job row as committed now."""
    async with sessions() as session:
        job = await session.get(RecognitionJob, job_id)
    assert job is not None
    return job


@pytest.fixture
def reload(sessions: async_sessionmaker[AsyncSession]) -> Callable[..., Any]:
    """`await reload(job_id)` → the committed row."""

    async def get(job_id: uuid.UUID) -> RecognitionJob:
        return await load_job(sessions, job_id)

    return get


def _xlsx() -> bytes:
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = "Баланс"
    ws.append(["Код", "Сумма"])
    ws.append(["1600", 1234])
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


def _xls() -> bytes:
    import xlwt  # type: ignore[import-untyped]

    wb = xlwt.Workbook()
    ws = wb.add_sheet("Баланс")
    ws.write(0, 0, "Код")
    ws.write(0, 1, 1600)
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


def _xlsb() -> bytes:
    # The structure that tells XLSB from XLSX: a ZIP whose workbook part is binary.
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("xl/workbook.bin", b"\x83\x01\x00")
    return out.getvalue()


def _pdf() -> bytes:
    from reportlab.pdfgen import canvas

    out = io.BytesIO()
    page = canvas.Canvas(out)
    page.drawString(72, 720, "Balance sheet")
    page.save()
    return out.getvalue()


def _image(fmt: str) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (8, 8), "white").save(out, format=fmt)
    return out.getvalue()


@pytest.fixture(scope="session")
def sample_files() -> dict[str, bytes]:
    """Real files of every supported type, written in code: {"XLSX": b"...", ...}."""
    return {
        "XLSX": _xlsx(),
        "XLS": _xls(),
        "XLSB": _xlsb(),
        "PDF": _pdf(),
        "PNG": _image("PNG"),
        "JPG": _image("JPEG"),
    }


@pytest.fixture
def envelope() -> Callable[..., dict[str, Any]]:
    """`envelope(job, "processing" | "done" | "needs_check" | "error", **fields)`."""
    return build_envelope


@pytest.fixture
async def storage(s3_settings: S3Settings) -> AsyncIterator[S3Storage]:
    """An open S3 client on the harness server."""
    async with S3Storage(s3_settings) as s3:
        yield s3


@pytest.fixture
def result_intake(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, storage: S3Storage
) -> Intake:
    """The intake with the real result-file handler reading the harness S3."""
    return Intake(sessions, on_final=ResultFileHandler(S3ResultReader(storage)), clock=clock)


@pytest.fixture
def results(result_intake: Intake, storage: S3Storage, bucket: str) -> ResultPublisher:
    """Deliver result files through the real handler: `await results.deliver(job, body)`."""
    return ResultPublisher(result_intake, storage, bucket)
