"""Request bodies read within their limits: refused before they are read, never spooled whole.

`BodyLimit` (pure ASGI, around the whole app) gives each request with a body its limit: a
multipart upload of one file UPLOAD_MAX_BYTES + 1 MiB (the form's own framing); a multipart
request to a route that takes several files at once (the page's upload) the request's own
bound UPLOAD_REQUEST_MAX_BYTES + 1 MiB; any other body (JSON corrections, the pages' forms)
BODY_MAX_BYTES (64 KiB). A `Content-Length` over the limit is answered 413 without reading a
byte; a body sent without one (chunked) is counted as it arrives and cut once it passes the
limit: the request is answered 413 and the app below sees the client gone, so no more than
the limit is ever spooled or held. `read_limited` then checks each file's own size against
UPLOAD_MAX_BYTES (decision 0038).
"""

from __future__ import annotations

from collections.abc import Collection

from fastapi import Request, UploadFile
from starlette.datastructures import Headers
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from services.arm_core.exceptions import FileTooLarge
from services.arm_core.rest.problems import error_response

__all__ = ["MULTIPART_OVERHEAD", "BodyLimit", "read_limited"]

_READ_CHUNK = 1024 * 1024
MULTIPART_OVERHEAD = 1024 * 1024


async def read_limited(upload: UploadFile, max_bytes: int) -> bytes:
    """The upload's bytes, refused (`FileTooLarge`) past `max_bytes` without reading further."""
    chunks: list[bytes] = []
    total = 0
    while chunk := await upload.read(_READ_CHUNK):
        total += len(chunk)
        if total > max_bytes:
            raise FileTooLarge(f"the file is larger than {max_bytes} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


class BodyLimit:
    """The ASGI middleware (`app.add_middleware(BodyLimit, upload_max=..., body_max=...)`);
    `request_max` bounds a multipart request to one of `several_files_at` (paths whose POST
    takes several files)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        upload_max: int,
        body_max: int,
        request_max: int | None = None,
        several_files_at: Collection[str] = (),
    ) -> None:
        self.app = app
        self._upload_max = upload_max
        self._body_max = body_max
        self._request_max = max(request_max or upload_max, upload_max)
        self._several_files_at = frozenset(several_files_at)

    def _limit(self, scope: Scope, multipart: bool) -> int:
        if not multipart:
            return self._body_max
        several = scope["path"].rstrip("/") in self._several_files_at
        return (self._request_max if several else self._upload_max) + MULTIPART_OVERHEAD

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        multipart = headers.get("content-type", "").lower().startswith("multipart/")
        limit = self._limit(scope, multipart)
        declared = headers.get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            await self._refuse(scope, receive, send, limit, multipart=multipart)
            return
        received = 0
        cut = False
        started = False

        async def counted() -> Message:
            nonlocal received, cut
            if cut:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    cut = True
                    return {"type": "http.disconnect"}
            return message

        async def guarded(message: Message) -> None:
            nonlocal started
            if cut and not started:
                return  # the app's answer to the cut body: ours (413) goes instead
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, guarded)
        except ClientDisconnect:
            if not cut:
                raise
        if cut and not started:
            await self._refuse(scope, receive, send, limit, multipart=multipart)

    async def _refuse(
        self, scope: Scope, receive: Receive, send: Send, limit: int, *, multipart: bool
    ) -> None:
        what = "upload" if multipart else "request body"
        refused = FileTooLarge(f"the {what} is larger than {limit} bytes")
        response = error_response(Request(scope), refused)
        response.headers["Connection"] = "close"  # the rest of the body is not read
        await response(scope, receive, send)
