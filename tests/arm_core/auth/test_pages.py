"""The review pages under the provider: each page's role, the login redirect, the readable
403 page, and authentication before an upload's body is read.

The core trusts the fake provider on a loopback port; the document is a real upload
recognised by the tabular parser (tests/arm_core/web/_recognition.py).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.auth import LOGIN_PATH, TOKEN_COOKIE
from tests.arm_core.web._doubtful import RIGHT_AMOUNT, doubtful_income_xlsx

from ._flow import bearer, recognised
from ._provider import FakeProvider
from .conftest import CoreFactory

pytestmark = [pytest.mark.db, pytest.mark.wire]

DOUBTFUL_LINE = 1  # 2120, the unreadable amount of the ОФР
COLUMN = 3


def _next_of(location: str) -> str:
    parts = urlsplit(location)
    assert parts.path == LOGIN_PATH, location
    [target] = parse_qs(parts.query)["next"]
    return target


async def test_an_integrator_opens_the_files_pages_but_gets_a_russian_403_on_a_document(
    core: CoreFactory,
    oidc: dict[str, Any],
    provider: FakeProvider,
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    """The files list, its table and the file page take an integrator or an analyst; the
    document, its panels, corrections, export and the page image take an analyst: an
    integrator gets a readable Russian 403 page there (HTML, never a problem document)."""
    client, doc = await recognised(core, oidc, provider, sessions)
    integrator = bearer(provider, "integrator")
    for url in ("/ui/files", "/ui/files/table", f"/ui/files/{doc.file_id}"):
        response = await client.get(url, headers=integrator)
        assert response.status_code == 200, (url, response.text)
        assert "ofr.xlsx" in response.text
    refused = [
        ("GET", doc.page),
        ("GET", f"{doc.page}/cell?line={DOUBTFUL_LINE}&column={COLUMN}"),
        ("GET", f"{doc.page}/field?field=inn"),
        ("GET", f"{doc.page}/export.xlsx"),
        ("GET", f"/ui/files/{doc.file_id}/pages/1.png"),
        ("POST", f"{doc.page}/corrections"),
    ]
    for method, url in refused:
        response = await client.request(method, url, headers=integrator, data={"kind": "reviewed"})
        assert response.status_code == 403, (url, response.text)
        assert response.headers["content-type"].startswith("text/html"), url
    page = (await client.get(doc.page, headers=integrator)).text
    assert "Нет доступа" in page
    assert "Здесь нужна роль «аналитик»" in page
    assert "у вас роли: «интегратор»" in page
    # htmx asked for a fragment: it gets the refusal as one, to swap in place.
    fragment = await client.get(
        f"{doc.page}/field?field=inn", headers={**integrator, "HX-Request": "true"}
    )
    assert fragment.status_code == 403
    assert fragment.text.startswith('<p class="message error"')
    assert "«аналитик»" in fragment.text


async def test_an_analyst_reads_and_corrects_but_may_not_upload_or_re_run(
    core: CoreFactory,
    oidc: dict[str, Any],
    provider: FakeProvider,
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    """An analyst opens the files and the document pages and corrects a value, recorded as
    the token's subject; upload and re-run are an integrator's (403)."""
    client, doc = await recognised(core, oidc, provider, sessions)
    analyst = bearer(provider, "analyst", sub="analyst-7")
    for url in ("/ui/files", f"/ui/files/{doc.file_id}", doc.page):
        assert (await client.get(url, headers=analyst)).status_code == 200, url
    saved = await client.post(
        f"{doc.page}/corrections",
        headers=analyst,
        data={"kind": "auto", "line": DOUBTFUL_LINE, "column": COLUMN, "value": RIGHT_AMOUNT},
    )
    assert saved.status_code == 200, saved.text
    assert "Сохранено" in saved.text
    body = (
        await client.get(f"/api/v1/documents/{doc.document_id}/corrected", headers=analyst)
    ).json()
    [correction] = body["corrections"]
    assert (correction["kind"], correction["author"]) == ("value", "analyst-7")
    upload = await client.post(
        "/ui/files", headers=analyst, files={"file": ("x.xlsx", doubtful_income_xlsx())}
    )
    assert upload.status_code == 403
    assert "«интегратор»" in upload.text
    rerun = await client.post(f"/ui/files/{doc.file_id}/recognitions", headers=analyst)
    assert rerun.status_code == 403


async def test_a_page_without_a_valid_token_is_sent_to_the_login_and_the_api_gets_401(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """No token, or an expired cookie: a page is a redirect to the login with `next` back
    to it; an htmx request is a 401 with `HX-Redirect` to the login back to the page the
    browser shows; the JSON API keeps its 401 problem."""
    _, client = await core(oidc)
    response = await client.get("/ui/files?status=done")
    assert response.status_code == 303
    assert _next_of(response.headers["location"]) == "/ui/files?status=done"
    file_page = f"/ui/files/{uuid.uuid4()}"
    expired = provider.token(roles=["analyst"], expires_in=-60)
    client.cookies.set(TOKEN_COOKIE, expired)
    response = await client.get(file_page)
    client.cookies.clear()
    assert response.status_code == 303
    assert _next_of(response.headers["location"]) == file_page
    htmx = await client.get(
        "/ui/files/table?status=",
        headers={"HX-Request": "true", "HX-Current-URL": "http://core/ui/files?offset=20"},
    )
    assert htmx.status_code == 401
    assert _next_of(htmx.headers["HX-Redirect"]) == "/ui/files?offset=20"
    # A current URL of another site is not followed back.
    htmx = await client.post(
        f"{file_page}/recognitions",
        headers={"HX-Request": "true", "HX-Current-URL": "http://evil.example/ui/x"},
    )
    assert htmx.status_code == 401
    assert _next_of(htmx.headers["HX-Redirect"]) == "/ui/files"
    api = await client.get("/api/v1/files")
    assert api.status_code == 401
    assert api.headers["content-type"] == "application/problem+json"
    assert api.headers["WWW-Authenticate"].startswith("Bearer")


class _Body:
    """A multipart upload of `size` bytes, streamed in chunks; counts what was sent."""

    BOUNDARY = "arm-ka-test-boundary"

    def __init__(self, size: int, chunk: int = 64 * 1024) -> None:
        self.size, self.chunk, self.sent = size, chunk, 0

    @property
    def headers(self) -> dict[str, str]:
        return {"Content-Type": f"multipart/form-data; boundary={self.BOUNDARY}"}

    async def __aiter__(self) -> AsyncIterator[bytes]:
        head = (
            f'--{self.BOUNDARY}\r\nContent-Disposition: form-data; name="file"; '
            f'filename="big.pdf"\r\nContent-Type: application/pdf\r\n\r\n'
        ).encode()
        for part in (head, *self._filler(), f"\r\n--{self.BOUNDARY}--\r\n".encode()):
            self.sent += len(part)
            yield part

    def _filler(self) -> list[bytes]:
        full, rest = divmod(self.size, self.chunk)
        return [b"\0" * self.chunk] * full + ([b"\0" * rest] if rest else [])


@pytest.mark.parametrize("path", ["/api/v1/files", "/ui/files"])
async def test_an_upload_is_refused_before_its_body_is_read(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider, path: str
) -> None:
    """Without a token (401) or without the integrator role (403) an upload of 8 MiB is
    refused without one byte of its body taken from the client; with the role the same
    stream is read to its end (so the count does see a read)."""
    _, client = await core(oidc)
    unauthenticated = _Body(8 * 1024 * 1024)
    response = await client.post(path, content=unauthenticated, headers=unauthenticated.headers)
    assert unauthenticated.sent == 0
    if path.startswith("/api"):
        assert response.status_code == 401
        assert response.headers["content-type"] == "application/problem+json"
    else:
        assert response.status_code == 303
        assert _next_of(response.headers["location"]) == "/ui/files"
    analyst = _Body(8 * 1024 * 1024)
    response = await client.post(
        path, content=analyst, headers={**analyst.headers, **bearer(provider, "analyst")}
    )
    assert response.status_code == 403
    assert analyst.sent == 0
    integrator = _Body(64 * 1024)
    response = await client.post(
        path, content=integrator, headers={**integrator.headers, **bearer(provider, "integrator")}
    )
    assert integrator.sent > integrator.size
    assert response.status_code in (201, 415, 422), response.text  # zeros are no PDF
