"""Bodies bounded before they are read (issue 27, item 3): a big upload or JSON body is
refused 413 from its Content-Length without a byte read, and a chunked one is cut just past
the limit, never spooled whole."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.arm_core.auth._flow import bearer
from tests.arm_core.auth._provider import FakeProvider
from tests.arm_core.auth.conftest import CoreFactory

pytestmark = [pytest.mark.db, pytest.mark.wire]

_MIB = 1024 * 1024
_BOUNDARY = "sec-boundary"


class _Body:
    """A body of `size` bytes sent in 1 MiB chunks, counting what the server pulled."""

    def __init__(self, size: int, head: bytes = b"") -> None:
        self.size = size
        self.head = head
        self.sent = 0

    async def chunks(self) -> AsyncIterator[bytes]:
        yield self.head
        self.sent += len(self.head)
        while self.sent < self.size:
            chunk = b"x" * min(_MIB, self.size - self.sent)
            self.sent += len(chunk)
            yield chunk


def _multipart_head() -> bytes:
    return (
        f'--{_BOUNDARY}\r\nContent-Disposition: form-data; name="file"; '
        'filename="big.xlsx"\r\nContent-Type: application/octet-stream\r\n\r\n'
    ).encode()


async def test_a_big_upload_is_refused_from_its_content_length(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """300 MB announced with an integrator token: 413 before the body is read (it was read
    and spooled to /tmp whole)."""
    _, client = await core(oidc, upload_max_bytes=10 * _MIB)
    body = _Body(300 * _MIB, _multipart_head())
    headers = {
        **bearer(provider, "integrator"),
        "Content-Type": f"multipart/form-data; boundary={_BOUNDARY}",
        "Content-Length": str(body.size),
    }
    answer = await client.post("/api/v1/files", content=body.chunks(), headers=headers)
    assert answer.status_code == 413, answer.text
    assert answer.json()["type"] == "urn:arm-ka:problem:file-too-large"
    assert body.sent <= _MIB


async def test_a_chunked_upload_is_cut_past_the_limit(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """The same body without a Content-Length: read up to the limit + 1 MiB, then cut."""
    _, client = await core(oidc, upload_max_bytes=10 * _MIB)
    body = _Body(300 * _MIB, _multipart_head())
    headers = {
        **bearer(provider, "integrator"),
        "Content-Type": f"multipart/form-data; boundary={_BOUNDARY}",
    }
    answer = await client.post("/api/v1/files", content=body.chunks(), headers=headers)
    assert answer.status_code == 413, answer.text
    assert body.sent <= 10 * _MIB + 2 * _MIB


async def test_a_big_json_body_is_refused_before_parsing(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """200 MB of JSON to the corrections: 413 at once (it was read whole, RSS +750 MB,
    before its 422); chunked, it is cut past 64 KiB."""
    _, client = await core(oidc)
    url = "/api/v1/documents/00000000-0000-0000-0000-000000000000/corrections"
    auth = {**bearer(provider, "analyst"), "Content-Type": "application/json"}
    announced = _Body(200 * _MIB, b'{"kind": "value", "value": "')
    answer = await client.post(
        url,
        content=announced.chunks(),
        headers={**auth, "Content-Length": str(announced.size)},
    )
    assert answer.status_code == 413
    assert announced.sent <= _MIB
    chunked = _Body(200 * _MIB, b'{"kind": "value", "value": "')
    answer = await client.post(url, content=chunked.chunks(), headers=auth)
    assert answer.status_code == 413
    assert chunked.sent <= 2 * _MIB


async def test_the_form_parser_has_its_own_limits(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """A multipart upload with a thousand parts (under the byte limit) is refused by the
    parser, not spooled part by part: 50 files (the page takes several), 32 fields."""
    _, client = await core(oidc)
    files = [("file", (f"f{n}.xlsx", b"x")) for n in range(51)]
    answer = await client.post("/api/v1/files", files=files, headers=bearer(provider, "integrator"))
    assert answer.status_code == 400, answer.text
    assert answer.json()["detail"].startswith("Too many files")
    fields = {f"field{n}": "v" for n in range(1000)}
    answer = await client.post(
        "/api/v1/files",
        data=fields,
        files={"file": ("ofr.xlsx", b"x")},
        headers=bearer(provider, "integrator"),
    )
    assert answer.status_code == 400, answer.text
    assert answer.json()["detail"].startswith("Too many fields")
