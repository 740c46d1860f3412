"""Fixtures of the tests that hold a dossier against the official filing: a fake ГИР БО API on
loopback (`girbo`) and the REST API's settings pointing at it (`api_settings`, overriding the
default one in the modules that import it)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from services.arm_core.settings import CoreSettings
from services.girbo import FakeGirbo, FakeGirboServer
from services.runtime.settings import S3Settings


@pytest.fixture(name="girbo")
def girbo_fixture() -> Iterator[FakeGirboServer]:
    """A fake ГИР БО serving nothing until the test says what (`girbo.fake.serve`)."""
    with FakeGirboServer(FakeGirbo()) as server:
        yield server


@pytest.fixture(name="api_settings")
def girbo_api_settings(
    core_settings: Callable[..., CoreSettings],
    s3_settings: S3Settings,
    bucket: str,
    girbo: FakeGirboServer,
) -> CoreSettings:
    """The REST API's settings with the fake ГИР БО as the official source."""
    return core_settings(
        s3={**s3_settings.model_dump(), "s3_bucket": bucket}, girbo={"girbo_url": girbo.url}
    )
