"""Adding headers to an answer at the ASGI level, whichever layer below produced it."""

from __future__ import annotations

from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["HeaderList", "HeaderMiddleware", "adding_headers"]

HeaderList = list[tuple[bytes, bytes]]


def adding_headers(send: Send, extra: Callable[[HeaderList], HeaderList]) -> Send:
    """`send` with the headers `extra(headers of the answer)` appended to the answer's start."""

    async def send_with_headers(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers: HeaderList = list(message.get("headers", []))
            added = extra(headers)
            if added:
                message = {**message, "headers": [*headers, *added]}
        await send(message)

    return send_with_headers


class HeaderMiddleware:
    """An ASGI middleware appending `extra(scope, headers)` to every HTTP answer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    def extra(self, scope: Scope, headers: HeaderList) -> HeaderList:
        """The headers to add to the answer to `scope` (which has `headers` already)."""
        raise NotImplementedError

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.app(scope, receive, adding_headers(send, lambda h: self.extra(scope, h)))
