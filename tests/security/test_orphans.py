"""An upload whose row never committed is found and removed (issue 27, item 6): a core
SIGKILLed between the S3 put and the row's commit left an object nobody could reach."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

import pytest

from services.arm_core.jobs.orphans import OrphanSweeper
from tests.arm_core.auth._flow import bearer
from tests.arm_core.auth._provider import FakeProvider
from tests.arm_core.auth.conftest import CoreFactory
from tests.arm_core.web._doubtful import doubtful_income_xlsx

pytestmark = [pytest.mark.db, pytest.mark.wire]


async def test_an_upload_without_a_row_is_swept(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """The orphan (objects under uploads/<id>/ with no row) is deleted; a stored upload and
    a fresh orphan (younger than the grace: an upload in flight) are kept."""
    app, client = await core(oidc, orphan_sweep_interval_seconds=120, orphan_grace_seconds=60)
    assert app.core.orphans_task.name == "arm-core-orphans"
    stored = await client.post(
        "/api/v1/files",
        files={"file": ("ofr.xlsx", doubtful_income_xlsx())},
        headers=bearer(provider, "integrator"),
    )
    assert stored.status_code == 201, stored.text
    storage, bucket = app.core.storage, app.core.settings.s3.s3_bucket
    orphan = f"uploads/{uuid.uuid4()}"
    for name in ("source.pdf", "original.tiff"):
        await storage.put_bytes(bucket, f"{orphan}/{name}", b"%PDF-", content_type="x/y")

    young = OrphanSweeper(app.core.sessions, storage, bucket=bucket, grace=dt.timedelta(seconds=60))
    assert await young.run_pass() == 0  # within the grace: maybe a row about to commit
    sweeper = OrphanSweeper(app.core.sessions, storage, bucket=bucket, grace=dt.timedelta(0))
    assert await sweeper.run_pass() == 2
    assert await sweeper.run_pass() == 0
    file_id = stored.json()["file_id"]
    kept = await client.get(
        f"/api/v1/files/{file_id}/content", headers=bearer(provider, "integrator")
    )
    assert kept.status_code == 200
