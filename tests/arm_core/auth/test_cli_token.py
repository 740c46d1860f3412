"""`arm-ka recognize/job` against a core with an identity provider: the core (real S3 and
database of the harness, the fake provider) served by uvicorn on a free loopback port; the CLI
runs in a thread and talks to it over HTTP like any client."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from services.cli import main
from services.devstack.embedded import free_port
from tests.arm_core.web._doubtful import doubtful_income_xlsx

from ._provider import FakeProvider
from .conftest import CoreFactory

pytestmark = [pytest.mark.db, pytest.mark.wire]


@contextlib.asynccontextmanager
async def _served(core: CoreFactory, oidc: dict[str, Any]) -> AsyncIterator[str]:
    """The core on the provider, listening on loopback; its base URL."""
    app, _ = await core(oidc)
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app.api, host="127.0.0.1", port=port, lifespan="off", log_level="warning")
    )
    task = asyncio.create_task(server.serve())
    try:
        while not server.started:
            assert not task.done(), "uvicorn did not start"
            await asyncio.sleep(0.02)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


async def _arm_ka(*argv: str) -> int:
    return await asyncio.to_thread(main, list(argv))


async def test_without_a_token_the_cli_says_so_and_exits_65(
    core: CoreFactory,
    oidc: dict[str, Any],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The core's 401 is one clear line naming how to give a token, exit 65 (refused)."""
    monkeypatch.delenv("ARM_KA_TOKEN", raising=False)
    path = tmp_path / "ofr.xlsx"
    path.write_bytes(doubtful_income_xlsx())
    async with _served(core, oidc) as url:
        code = await _arm_ka("recognize", str(path), "--core", url)
    err = capsys.readouterr().err
    assert code == 65
    assert "arm-core отклонил POST /api/v1/files: 401" in err
    assert "этому arm-core нужен токен: --token или $ARM_KA_TOKEN" in err
    assert "Traceback" not in err


async def test_the_token_is_sent_from_the_option_or_the_environment_and_never_printed(
    core: CoreFactory,
    oidc: dict[str, Any],
    provider: FakeProvider,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`--token` uploads as the integrator (the job is then shown by `job` with the token of
    $ARM_KA_TOKEN); an expired token is a 401 saying it was not accepted; the token appears
    in no output."""
    path = tmp_path / "ofr.xlsx"
    path.write_bytes(doubtful_income_xlsx())
    integrator = provider.token(roles=["integrator"])
    monkeypatch.delenv("ARM_KA_TOKEN", raising=False)
    async with _served(core, oidc) as url:
        # No service answers here: the job stays queued, so recognize stops at its timeout.
        code = await _arm_ka(
            "recognize", str(path), "--core", url, "--token", integrator, "--timeout", "0.3"
        )
        out = capsys.readouterr()
        assert code == 75, out.err
        assert "загружен ofr.xlsx (XLSX)" in out.err
        job_id = out.err.split("задание ")[1].split(maxsplit=1)[0].rstrip(",")
        monkeypatch.setenv("ARM_KA_TOKEN", provider.token(roles=["analyst"]))
        assert await _arm_ka("job", job_id, "--core", url, "--json") == 0
        shown = capsys.readouterr()
        assert f'"job_id": "{job_id}"' in shown.out
        expired = provider.token(roles=["integrator"], expires_in=-60)
        monkeypatch.setenv("ARM_KA_TOKEN", expired)
        assert await _arm_ka("job", job_id, "--core", url) == 65
        refused = capsys.readouterr()
    assert "401" in refused.err
    assert "токен не принят" in refused.err
    for text in (out.out, out.err, shown.out, shown.err, refused.out, refused.err):
        assert integrator not in text
        assert expired not in text
