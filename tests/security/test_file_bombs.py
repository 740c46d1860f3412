"""Borrowers' files are not parsed in the core's own process (issue 27, item 2), probed on
the secured stack: the 331-byte page bomb is drawn capped in a sandboxed worker while the
core's memory stays flat and token-checked API requests stay fast. The TIFF and workbook
bombs, and the limits of the workers, are tests/arm_core/web/test_file_bombs.py and
tests/documents_io/; workers dying with their service, tests/runtime/test_lifeline.py."""

from __future__ import annotations

import asyncio
import io
import resource
import time
from typing import Any

import pytest
from PIL import Image

from services.documents_io.pages import MAX_PAGE_PIXELS
from tests.arm_core.auth._flow import bearer
from tests.arm_core.auth._provider import FakeProvider
from tests.arm_core.auth.conftest import CoreFactory
from tests.arm_core.web.test_file_bombs import PAGE_BOMB

pytestmark = [pytest.mark.db, pytest.mark.wire]

_MB = 1024 * 1024


async def test_the_page_bomb_is_drawn_capped_while_authenticated_requests_stay_fast(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """Three page bombs drawn at once for an analyst: PNGs of at most PAGE_MAX_PIXELS (it
    was +891 MB a page, 2.9 GB for three, never answered), the core's peak memory grows by
    far less than one such bitmap, and `GET /api/v1/files` with a bearer token (verified
    each time) answers within 2 s meanwhile."""
    _, client = await core(oidc)
    integrator, analyst = bearer(provider, "integrator"), bearer(provider, "analyst")
    ids = []
    for n in range(3):
        up = await client.post(
            "/api/v1/files", files={"file": (f"bomb{n}.pdf", PAGE_BOMB)}, headers=integrator
        )
        assert up.status_code == 201, up.text
        ids.append(up.json()["file_id"])
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    pages = asyncio.ensure_future(
        asyncio.gather(*(client.get(f"/ui/files/{i}/pages/1.png", headers=analyst) for i in ids))
    )
    times = []
    while not pages.done():
        started = time.monotonic()
        listed = await client.get("/api/v1/files", headers=analyst)
        assert listed.status_code == 200, listed.text
        times.append(time.monotonic() - started)
        await asyncio.sleep(0.1)
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
    answers = await pages
    assert [a.status_code for a in answers] == [200] * 3, answers[0].text
    ((width, height),) = {Image.open(io.BytesIO(a.content)).size for a in answers}
    assert width * height <= MAX_PAGE_PIXELS
    assert width == height > 3000  # the whole page, downscaled to the cap
    assert grown < 150 * _MB, f"the core grew by {grown / _MB:.0f} MB"
    assert times and max(times) < 2.0, times
