"""Bodies bounded before they are read (issue 27, item 3): a big upload or JSON body is
refused 413 from its Content-Length without a byte read, and a chunked one is cut just past
the limit, never spooled whole. The page's upload of several files is bounded per file
(UPLOAD_MAX_BYTES) and as a request (UPLOAD_MAX_FILES, UPLOAD_REQUEST_MAX_BYTES; decision
0038); the API's one-file upload keeps the one-file bound."""

from __future__ import annotations

import io
import os
from collections.abc import AsyncIterator
from typing import Any

import pytest
from PIL import Image

from services.arm_core.settings import CoreSettings
from services.runtime.settings import SettingsError
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


def _multipart_head(name: str = "big.xlsx") -> bytes:
    return (
        f'--{_BOUNDARY}\r\nContent-Disposition: form-data; name="file"; '
        f'filename="{name}"\r\nContent-Type: application/octet-stream\r\n\r\n'
    ).encode()


def _png(size: int) -> bytes:
    """A PNG of noise (incompressible) of about `size` bytes: a real upload, each unique."""
    side = int((size / 3) ** 0.5)
    out = io.BytesIO()
    Image.frombytes("RGB", (side, side), os.urandom(side * side * 3)).save(out, "PNG")
    return out.getvalue()


def _page_files(*sizes: int) -> list[tuple[str, tuple[str, bytes, str]]]:
    return [("file", (f"скан-{n}.png", _png(size), "image/png")) for n, size in enumerate(sizes)]


async def _stored_names(client: Any, headers: dict[str, str]) -> set[str]:
    listed = await client.get("/api/v1/files", headers=headers)
    assert listed.status_code == 200, listed.text
    return {item["original_name"] for item in listed.json()["items"]}


def _upload_headers(provider: FakeProvider, body: _Body, *, chunked: bool) -> dict[str, str]:
    """An integrator's multipart headers for `body`, with its Content-Length unless chunked."""
    headers = {
        **bearer(provider, "integrator"),
        "Content-Type": f"multipart/form-data; boundary={_BOUNDARY}",
    }
    if not chunked:
        headers["Content-Length"] = str(body.size)
    return headers


_SEVERAL = {"upload_max_bytes": 2 * _MIB, "upload_request_max_bytes": 8 * _MIB}


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
    parser, not spooled part by part: UPLOAD_MAX_FILES files (the page takes several), 32
    fields."""
    _, client = await core(oidc, upload_max_files=5)
    files = [("file", (f"f{n}.xlsx", b"x")) for n in range(6)]
    for path in ("/api/v1/files", "/ui/files"):
        answer = await client.post(path, files=files, headers=bearer(provider, "integrator"))
        assert answer.status_code == 400, answer.text
        assert "Too many files" in answer.text
    fields = {f"field{n}": "v" for n in range(1000)}
    answer = await client.post(
        "/api/v1/files",
        data=fields,
        files={"file": ("ofr.xlsx", b"x")},
        headers=bearer(provider, "integrator"),
    )
    assert answer.status_code == 400, answer.text
    assert answer.json()["detail"].startswith("Too many fields")


async def test_several_files_are_bounded_per_file_not_as_one(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """Three scans of 1.5 MiB in one page upload (4.5 MiB together, over UPLOAD_MAX_BYTES
    + 1 MiB: the whole request was refused 413) are each stored; in the next request a scan
    over UPLOAD_MAX_BYTES is refused on its own while the small one beside it is stored."""
    _, client = await core(oidc, **_SEVERAL)
    integrator = bearer(provider, "integrator")
    files = _page_files(3 * _MIB // 2, 3 * _MIB // 2, 3 * _MIB // 2)
    assert sum(len(f[1][1]) for f in files) > 3 * _MIB
    answer = await client.post("/ui/files", files=files, headers=integrator)
    assert answer.status_code == 201, answer.text
    assert await _stored_names(client, integrator) == {"скан-0.png", "скан-1.png", "скан-2.png"}
    big, small = _png(3 * _MIB), _png(_MIB // 2)
    mixed = [
        ("file", ("большой.png", big, "image/png")),
        ("file", ("малый.png", small, "image/png")),
    ]
    answer = await client.post("/ui/files", files=mixed, headers=integrator)
    assert answer.status_code == 201, answer.text
    assert "большой.png" in answer.text and "larger than" in answer.text
    stored = await _stored_names(client, integrator)
    assert "малый.png" in stored and "большой.png" not in stored


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
async def test_a_page_upload_over_its_request_bound_is_refused_unread(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider, chunked: bool
) -> None:
    """300 MB sent to the page's upload: refused 413 from its Content-Length with nothing
    read, or, chunked, cut once past UPLOAD_REQUEST_MAX_BYTES + 1 MiB."""
    _, client = await core(oidc, **_SEVERAL)
    body = _Body(300 * _MIB, _multipart_head("скан.png"))
    headers = _upload_headers(provider, body, chunked=chunked)
    answer = await client.post("/ui/files", content=body.chunks(), headers=headers)
    assert answer.status_code == 413, answer.text
    assert answer.json()["type"] == "urn:arm-ka:problem:file-too-large"
    assert str(8 * _MIB + _MIB) in answer.json()["detail"]
    assert body.sent <= (_MIB if not chunked else 8 * _MIB + 2 * _MIB)
    assert await _stored_names(client, bearer(provider, "integrator")) == set()


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
async def test_the_api_upload_keeps_the_one_file_bound(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider, chunked: bool
) -> None:
    """The API takes one file: a body within the page's request bound but over
    UPLOAD_MAX_BYTES + 1 MiB is refused there all the same, never spooled to the larger bound."""
    _, client = await core(oidc, **_SEVERAL)
    body = _Body(6 * _MIB, _multipart_head())
    headers = _upload_headers(provider, body, chunked=chunked)
    answer = await client.post("/api/v1/files", content=body.chunks(), headers=headers)
    assert answer.status_code == 413, answer.text
    assert str(2 * _MIB + _MIB) in answer.json()["detail"]
    assert body.sent <= (_MIB if not chunked else 2 * _MIB + 2 * _MIB)


def test_the_request_bound_holds_the_largest_file() -> None:
    """UPLOAD_REQUEST_MAX_BYTES below UPLOAD_MAX_BYTES would refuse a file the API takes:
    the settings say so at start."""
    with pytest.raises(SettingsError, match="UPLOAD_REQUEST_MAX_BYTES"):
        CoreSettings(upload_max_bytes=10 * _MIB, upload_request_max_bytes=5 * _MIB)
