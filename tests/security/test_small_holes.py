"""Small holes closed (issue 27, item 6): credentials in URLs out of the access log,
overflowing paging and date parameters answered 422 (never 500), file names with bidi
controls or line separators refused."""

from __future__ import annotations

import logging
from typing import Any

import httpx
import pytest
from uvicorn.logging import AccessFormatter

from services.arm_core.auth.redact import AccessLogRedaction, install_access_log_redaction
from tests.arm_core.auth._flow import bearer
from tests.arm_core.auth._provider import FakeProvider
from tests.arm_core.auth.conftest import CoreFactory
from tests.arm_core.web._doubtful import doubtful_income_xlsx
from tests.security._uvicorn import served

pytestmark = [pytest.mark.db, pytest.mark.wire]


def _access_record(path: str) -> logging.LogRecord:
    """A record as uvicorn's access logger makes it (its path argument holds the query)."""
    return logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        __file__,
        1,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5000", "GET", path, "1.1", 200),
        None,
    )


@pytest.mark.parametrize(
    ("path", "secret"),
    [
        ("/auth/callback?code=SECRETCODE&state=SECRETSTATE", "SECRET"),
        ("/api/v1/files?limit=5&access_token=eyJSECRET.x.y", "SECRET"),
        ("/ui/files?TOKEN=SECRET#x", "SECRET"),
        ("/x?a=1;token=SECRET", "SECRET"),
    ],
)
async def test_credentials_in_the_query_stay_out_of_the_access_log(
    core: CoreFactory, oidc: dict[str, Any], path: str, secret: str
) -> None:
    """The core installs the filter on uvicorn's access logger; what it lets through names
    the parameters but not their values."""
    await core(oidc)
    logger = logging.getLogger("uvicorn.access")
    [installed] = [f for f in logger.filters if isinstance(f, AccessLogRedaction)]
    install_access_log_redaction()  # idempotent
    assert len([f for f in logger.filters if isinstance(f, AccessLogRedaction)]) == 1
    record = _access_record(path)
    assert installed.filter(record)
    line = record.getMessage()
    assert secret not in line
    assert "=***" in line
    assert line.startswith('127.0.0.1:5000 - "GET /')


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/files?offset=9223372036854775808",
        "/api/v1/files?offset=2147483648",
        "/api/v1/jobs?offset=99999999999999999999",
        "/api/v1/files?uploaded_from=0001-01-01T00:00%2B14:00",
        "/api/v1/files?uploaded_to=9999-12-31T23:59-14:00",
        "/api/v1/jobs?created_from=0001-01-01T00:00%2B14:00",
        "/api/v1/documents/00000000-0000-0000-0000-000000000000/rows?offset=9223372036854775808",
    ],
)
async def test_overflowing_parameters_are_422(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider, path: str
) -> None:
    """They were a 500 and a reset connection."""
    _, client = await core(oidc)
    answer = await client.get(path, headers=bearer(provider, "analyst"))
    assert answer.status_code == 422, (path, answer.status_code, answer.text[:200])


@pytest.mark.parametrize("query", ["offset=1e20", "offset=9223372036854775808"])
async def test_overflowing_page_offsets_are_refused(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider, query: str
) -> None:
    """The pages' offsets too (`/ui/files?offset=1e20` was a 500)."""
    _, client = await core(oidc)
    answer = await client.get(f"/ui/files?{query}", headers=bearer(provider, "analyst"))
    assert answer.status_code == 422, answer.text[:200]


@pytest.mark.parametrize("name", ["\u202eslx.exe", "отчёт\u2028строка.xlsx", "a\u2066b.xlsx"])
async def test_bidi_and_line_separators_in_file_names_are_refused(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider, name: str
) -> None:
    """U+202E shows `‮slx.exe` as `exe.xls`; a separator breaks the analysts' lists."""
    _, client = await core(oidc)
    answer = await client.post(
        "/api/v1/files",
        files={"file": (name, doubtful_income_xlsx())},
        headers=bearer(provider, "integrator"),
    )
    assert answer.status_code == 400, answer.text
    assert answer.json()["type"] == "urn:arm-ka:problem:invalid-file-name"
    assert "bidirectional" in answer.json()["detail"]


async def test_overflowing_line_numbers_in_corrections_are_422(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """The JSON correction's line and column are bounded like the query parameters."""
    _, client = await core(oidc)
    url = "/api/v1/documents/00000000-0000-0000-0000-000000000000/corrections"
    for field in ("line", "column_index"):
        body = {"kind": "value", "line": 0, "column_index": 0, field: 2**63, "value": "1"}
        answer = await client.post(url, json=body, headers=bearer(provider, "analyst"))
        assert answer.status_code == 422, answer.text


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


async def test_uvicorn_itself_logs_the_callback_without_its_code(
    core: CoreFactory, oidc: dict[str, Any]
) -> None:
    """The core served by uvicorn (its logging configured as `serve` does): the access line
    of a login callback and of a token in the URL keeps the path and hides the values."""
    app, _ = await core(oidc)
    lines = _Lines()
    lines.setFormatter(AccessFormatter('%(client_addr)s - "%(request_line)s" %(status_code)s'))
    async with served(app, access=lines) as url, httpx.AsyncClient(base_url=url) as http:
        await http.get("/auth/callback?code=SECRETCODE&state=SECRETSTATE")
        await http.get("/healthcheck?access_token=SECRETTOKEN")
    assert any("/auth/callback?code=***&state=***" in line for line in lines.lines), lines.lines
    assert any("/healthcheck?access_token=***" in line for line in lines.lines), lines.lines
    assert not any("SECRET" in line for line in lines.lines)
