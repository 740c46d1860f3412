"""The embedded default: without an issuer arm-core listens on loopback only, says so loudly,
and every loopback request is `Principal("local", all roles)`; any other address refuses to
start with a settings error."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from services.arm_core.__main__ import main
from services.arm_core.app import create_app
from services.arm_core.auth import UNAUTHENTICATED_WARNING, check_bind, uvicorn_bind
from services.arm_core.settings import AuthSettings, CoreSettings
from services.devstack.embedded import free_port
from services.runtime.settings import S3Settings, SettingsError

from ._provider import CLIENT_ID
from .conftest import CoreFactory

ROOT = Path(__file__).resolve().parents[3]
ISSUER_KEY = "OPENBAO__AUTH__AUTH_ISSUER"


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost"])
def test_loopback_hosts_need_no_issuer(host: str) -> None:
    """Loopback addresses pass the rule unauthenticated."""
    check_bind(AuthSettings(), host)


@pytest.mark.parametrize(
    "host", ["0.0.0.0", "::", "10.1.2.3", "192.168.0.10", "core.bank", "unix:/run/core.sock"]
)
def test_other_hosts_without_an_issuer_are_a_settings_error(host: str) -> None:
    """Any other address (every interface, a LAN address, a name, a UNIX socket) is refused with a
    SettingsError naming OPENBAO__AUTH__AUTH_ISSUER; with an issuer it is allowed."""
    with pytest.raises(SettingsError) as caught:
        check_bind(AuthSettings(), host)
    assert caught.value.keys == [ISSUER_KEY]
    assert host in str(caught.value)
    check_bind(AuthSettings(auth_issuer="https://idp.bank/realms/x", auth_client_id="c"), host)


@pytest.mark.parametrize(
    ("argv", "env", "host"),
    [
        (["/usr/local/bin/uvicorn", "m:f", "--factory", "--host", "0.0.0.0"], {}, "0.0.0.0"),
        (["/x/site-packages/uvicorn/__main__.py", "m:f", "--host=10.0.0.1"], {}, "10.0.0.1"),
        (["/usr/local/bin/uvicorn", "m:f", "--factory"], {}, "127.0.0.1"),
        (["/usr/local/bin/uvicorn", "m:f"], {"UVICORN_HOST": "0.0.0.0"}, "0.0.0.0"),
        (["/usr/local/bin/uvicorn", "m:f", "--uds", "/run/core.sock"], {}, "unix:/run/core.sock"),
        (["/usr/local/bin/uvicorn", "m:f", "--fd", "3"], {}, None),
        (["/usr/bin/pytest", "--host", "0.0.0.0"], {}, None),
    ],
)
def test_the_uvicorn_cli_bind_address_is_read(
    argv: list[str], env: dict[str, str], host: str | None
) -> None:
    """Where the uvicorn CLI will listen: --host (uvicorn's default 127.0.0.1), UVICORN_HOST,
    a UNIX socket (no loopback address); unknown (None) for --fd or another program."""
    assert uvicorn_bind(argv, env) == host


def test_create_app_refuses_a_public_bind_without_an_issuer(
    core_settings: Callable[..., CoreSettings],
) -> None:
    """create_app told it will listen on 0.0.0.0 raises the SettingsError before building
    anything; with an issuer it builds."""
    with pytest.raises(SettingsError) as caught:
        create_app(core_settings(), bind_host="0.0.0.0")
    assert caught.value.keys == [ISSUER_KEY]
    auth = {"auth_issuer": "https://idp.bank/realms/x", "auth_client_id": CLIENT_ID}
    create_app(core_settings(auth=auth), bind_host="0.0.0.0")


def test_serve_refuses_to_start_on_a_public_address(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`python -m services.arm_core serve --host 0.0.0.0` without an issuer exits 2 with the
    settings error before opening a socket."""
    for key in list(os.environ):
        if key.startswith("OPENBAO__AUTH__"):
            monkeypatch.delenv(key)
    assert main(["serve", "--host", "0.0.0.0", "--port", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("invalid settings: OPENBAO__AUTH__AUTH_ISSUER: is required to listen on")


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENBAO__", "UVICORN_"))}
    env.update({"OPENBAO__DB__DB_URL": f"sqlite+aiosqlite:///{tmp_path / 'core.sqlite3'}", **extra})
    return env


@pytest.mark.wire
def test_uvicorn_on_all_interfaces_without_an_issuer_does_not_start(tmp_path: Path) -> None:
    """As compose runs it (`uvicorn … --factory --host 0.0.0.0`), but with no issuer: the
    process exits non-zero with the settings error and never listens."""
    port = free_port()
    run = subprocess.run(
        [
            *(sys.executable, "-m", "uvicorn", "services.arm_core.app:create_app", "--factory"),
            *("--host", "0.0.0.0", "--port", str(port)),
        ],
        cwd=ROOT,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode != 0
    assert ISSUER_KEY in run.stderr
    assert "is required to listen on 0.0.0.0" in run.stderr


@pytest.mark.wire
def test_serve_on_loopback_warns_and_serves_everyone_local(
    tmp_path: Path, s3_settings: S3Settings
) -> None:
    """`serve` on 127.0.0.1 without an issuer starts, logs the WARNING, says
    `unauthenticated` in /healthcheck, and answers the API without a token."""
    port = free_port()
    log_path = tmp_path / "core.log"
    env = _env(
        tmp_path,
        OPENBAO__S3__S3_ENDPOINT_URL=str(s3_settings.s3_endpoint_url),
        OPENBAO__S3__S3_ACCESS_KEY="harness-access-key",
        OPENBAO__S3__S3_SECRET_KEY="harness-secret-key",
        OPENBAO__NATS__NATS_URL=f"nats://127.0.0.1:{free_port()}",
    )
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "services.arm_core", "serve", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        health: dict[str, Any] = {}
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/healthcheck", timeout=2).json()
                break
            except httpx.HTTPError:
                time.sleep(0.2)
        assert health, log_path.read_text(errors="replace")[-2000:]
        assert health["auth"] == {"mode": "unauthenticated", "warning": UNAUTHENTICATED_WARNING}
        files = httpx.get(f"http://127.0.0.1:{port}/api/v1/files", timeout=5)
        assert files.status_code == 200, files.text
    finally:
        proc.terminate()
        proc.wait(30)
    assert f"WARNING services.arm_core: {UNAUTHENTICATED_WARNING}" in log_path.read_text()


@pytest.mark.db
@pytest.mark.wire
async def test_the_unauthenticated_default_serves_loopback_clients_only(
    core: CoreFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """Without an issuer a loopback client may do everything, even delete (404 for an unknown
    id: past the role check); a client from another address is refused 403 and logged."""
    _, local = await core()
    assert (await local.get("/api/v1/files")).status_code == 200
    gone = await local.delete("/api/v1/files/00000000-0000-0000-0000-000000000000")
    assert gone.status_code == 404
    _, remote = await core(client=("10.0.0.7", 40000))
    with caplog.at_level(logging.ERROR, logger="services.arm_core.auth"):
        resp = await remote.get("/api/v1/files")
    assert resp.status_code == 403
    assert resp.json()["detail"] == (
        "this arm-core has no identity provider configured and serves loopback clients only"
    )
    assert any("non-loopback client" in r.getMessage() for r in caplog.records)
