"""Authentication before the body: a pure-ASGI guard in front of the routes that take one.

FastAPI reads (and spools to disk) a multipart or form body while it solves a route's
parameters, before the `require` dependency has refused anyone, so an unauthenticated client
could make the core read a big upload. The guard finds, for a request with a body, the route
it is for; when that route takes a body and depends on `require`, it authenticates the request
from its headers and checks those roles first, answering the refusal (the same one the
dependency gives) without calling `receive`. The principal it found goes into the ASGI scope
(`scope["state"]`), where the dependency, which still runs afterwards and checks its roles,
takes it: the token is verified once a request.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from fastapi import FastAPI, Request
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute, iter_route_contexts
from starlette.responses import Response
from starlette.routing import compile_path
from starlette.types import ASGIApp, Receive, Scope, Send

from services.arm_core.auth.dependency import authorize, principal_of, remember, roles_required
from services.arm_core.exceptions import ArmCoreError, Refused, Unavailable

__all__ = ["BodyGuard", "ErrorResponder"]

# The one answer to an error of arm-core (the REST room's table), given by the app's wiring.
ErrorResponder = Callable[[Request, ArmCoreError], Response]

_NO_BODY = frozenset({"GET", "HEAD", "OPTIONS"})


@dataclass(frozen=True)
class _Guarded:
    """A route that takes a body: its full path, methods and the roles of each `require`."""

    path: re.Pattern[str]
    methods: frozenset[str]
    wanted: tuple[tuple[str, ...], ...]

    def matches(self, scope: Scope) -> bool:
        path: str = scope["path"]
        root: str = scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root) :]
        return scope["method"] in self.methods and bool(self.path.match(path))


def _required(dependant: Dependant) -> Iterator[tuple[str, ...]]:
    for sub in dependant.dependencies:
        roles = roles_required(sub.call)
        if roles is not None:
            yield roles
        yield from _required(sub)


def _guarded_routes(app: FastAPI) -> list[_Guarded]:
    """The routes (included routers' too, with their prefixes) that take a body and depend
    on `require` themselves (dependencies of an `include_router` call are not seen)."""
    found: list[_Guarded] = []
    for context in iter_route_contexts(app.routes):
        route = context.original_route
        if isinstance(route, APIRoute) and route.body_field is not None and context.path:
            wanted = tuple(_required(route.dependant))
            if wanted:
                pattern = compile_path(context.path)[0]
                found.append(_Guarded(pattern, frozenset(route.methods or ()), wanted))
    return found


class BodyGuard:
    """The ASGI middleware (`app.add_middleware(BodyGuard)`)."""

    def __init__(self, app: ASGIApp, respond: ErrorResponder) -> None:
        self.app = app
        self._respond = respond
        self._guarded: list[_Guarded] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in _NO_BODY:
            refusal = await self._refusal(scope)
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)

    async def _refusal(self, scope: Scope) -> Response | None:
        if self._guarded is None:  # routes are all added before the first request
            self._guarded = _guarded_routes(scope["app"])
        wanted = next((g.wanted for g in self._guarded if g.matches(scope)), None)
        if wanted is None:
            return None
        request = Request(scope)  # no `receive`: the body cannot be read here
        try:
            principal = await principal_of(request)
            for roles in wanted:
                authorize(principal, roles)
            remember(request, principal)  # the dependency takes it from the scope
        except (Refused, Unavailable) as refused:  # the provider unreachable, say
            return self._respond(request, refused)
        return None
