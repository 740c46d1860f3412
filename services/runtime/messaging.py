"""Publishing on core NATS: the Nats-Msg-Id rule, retries with the same id, the broker factory.

Spec 001: every message carries `Nats-Msg-Id` (request `<job_id>:<attempt>`, ack
`ack:<job_id>:<attempt>`, result `result:<job_id>:<attempt>`); an ack or result is published
once plus up to PUBLISH_RETRIES times with a pause and the same id; when that is exhausted the
service writes one error line and goes on. Core NATS has no server-side dedup, so consumers
recognise a repeat by its id.

A core-NATS publish only appends to the client's buffer: while the client is reconnecting it
"succeeds" without reaching the server. `PublishRetryMiddleware` therefore confirms each attempt
with a flush (a PING/PONG round trip) when given a `confirm` callable, as `build_broker` does;
a flush that times out is a failed attempt.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

import nats.errors
from faststream import BaseMiddleware
from faststream.exceptions import IncorrectState
from faststream.nats import NatsBroker
from faststream.response.publish_type import PublishType

if TYPE_CHECKING:
    from faststream.response import PublishCommand

    from services.runtime.settings import Settings

__all__ = [
    "MSG_ID_HEADER",
    "RETRYABLE_PUBLISH_ERRORS",
    "MessagingError",
    "MissingMsgIdError",
    "MsgId",
    "MsgKind",
    "PublishRetryMiddleware",
    "build_broker",
    "msg_id",
    "parse_request_msg_id",
]

MSG_ID_HEADER = "Nats-Msg-Id"

log = logging.getLogger("services.runtime.messaging")

# What a publish raises when the connection is not there: closed for good
# (ConnectionClosedError), reconnecting with a full buffer (OutboundBufferLimitError),
# no server reachable (NoServersError), the confirming flush timing out (nats TimeoutError,
# an asyncio.TimeoutError), sockets (OSError), or the broker not connected yet (IncorrectState).
RETRYABLE_PUBLISH_ERRORS: tuple[type[BaseException], ...] = (
    nats.errors.ConnectionClosedError,
    nats.errors.ConnectionReconnectingError,
    nats.errors.ConnectionDrainingError,
    nats.errors.OutboundBufferLimitError,
    nats.errors.NoServersError,
    nats.errors.StaleConnectionError,
    nats.errors.TimeoutError,
    asyncio.TimeoutError,
    TimeoutError,
    OSError,
    IncorrectState,
)


class MessagingError(Exception):
    """Root of the messaging errors."""


class MissingMsgIdError(MessagingError):
    """A publish without a `Nats-Msg-Id` header: a programming error, never retried."""

    def __init__(self, subject: str) -> None:
        self.subject = subject
        super().__init__(f"publish to {subject!r} without a {MSG_ID_HEADER} header")


MsgKind = Literal["request", "ack", "result"]


@dataclass(frozen=True, slots=True)
class MsgId:
    """A parsed request id `<job_id>:<attempt>`."""

    job_id: uuid.UUID
    attempt: int


def msg_id(kind: MsgKind, job_id: uuid.UUID | str, attempt: int) -> str:
    """The `Nats-Msg-Id` of a request, ack or result of one job attempt."""
    base = f"{job_id}:{attempt}"
    return base if kind == "request" else f"{kind}:{base}"


def parse_request_msg_id(value: str | None) -> MsgId | None:
    """`<job_id>:<attempt>` → MsgId; None when absent or malformed (job_id a uuid, attempt ≥ 1)."""
    if not value:
        return None
    job, sep, attempt = value.strip().rpartition(":")
    if not sep or not attempt.isdigit():
        return None
    try:
        job_id = uuid.UUID(job)
    except ValueError:
        return None
    number = int(attempt)
    return MsgId(job_id, number) if number >= 1 else None


class PublishRetryMiddleware(BaseMiddleware):
    """Requires `Nats-Msg-Id` on every publish and retries a failed publish with the same id.

    Attach to the broker (`NatsBroker(middlewares=[partial(PublishRetryMiddleware, ...)])`);
    options: `retries` (attempts = 1 + retries), `pause` seconds between attempts, `confirm`
    (an awaitable run after each attempt, e.g. a flush, whose failure fails the attempt).
    Requests (RPC) pass through untouched. When every attempt fails, one error line is logged
    and the publish returns None: the service goes on.
    """

    def __init__(
        self,
        msg: Any,
        /,
        *,
        context: Any,
        retries: int = 3,
        pause: float = 0.2,
        confirm: Callable[[], Awaitable[None]] | None = None,
        logger: logging.Logger | None = None,
    ) -> None:
        super().__init__(msg, context=context)
        self.retries = max(0, retries)
        self.pause = max(0.0, pause)
        self.confirm = confirm
        self.logger = logger or log

    async def publish_scope(
        self,
        call_next: Callable[[PublishCommand], Awaitable[Any]],
        cmd: PublishCommand,
    ) -> Any:
        if cmd.publish_type is PublishType.REQUEST:
            return await call_next(cmd)
        subject = cmd.destination
        mid = cmd.headers.get(MSG_ID_HEADER)
        if not mid:
            raise MissingMsgIdError(subject)
        attempts = 1 + self.retries
        last: BaseException | None = None
        for attempt in range(1, attempts + 1):
            try:
                result = await call_next(cmd)
                if self.confirm is not None:
                    await self.confirm()
            except RETRYABLE_PUBLISH_ERRORS as exc:
                last = exc
                if attempt < attempts:
                    self.logger.warning(
                        "publish attempt %d/%d failed, retrying: subject=%s msg_id=%s error=%s",
                        attempt,
                        attempts,
                        subject,
                        mid,
                        type(exc).__name__,
                    )
                    await asyncio.sleep(self.pause)
            else:
                return result
        self.logger.error(
            "publish failed after %d attempts, giving up: subject=%s msg_id=%s error=%s",
            attempts,
            subject,
            mid,
            type(last).__name__,
        )
        return None


def build_broker(
    settings: Settings,
    *,
    client_name: str,
    logger: logging.Logger | None = None,
    **broker_options: Any,
) -> NatsBroker:
    """A NatsBroker wired from settings: servers, credentials, reconnects, the retry middleware.

    Reconnects forever by default with a short wait (a service outlives a NATS restart or a
    dead cluster node), trying the configured servers in random order plus those the cluster
    announces; each publish is confirmed by a flush bounded by
    PUBLISH_CONFIRM_TIMEOUT_SECONDS. Extra keyword arguments go to NatsBroker as they are.
    """
    holder: list[NatsBroker] = []
    confirm_timeout = settings.publish_confirm_timeout_seconds

    async def confirm() -> None:
        # The broker is built below, before any publish can run. While the client reconnects,
        # nats-py's flush returns at once without a round trip: ask the state first.
        client = holder[0].connection
        if not client.is_connected:
            raise nats.errors.ConnectionReconnectingError
        await client.flush(timeout=confirm_timeout)  # type: ignore[arg-type]

    middleware = partial(
        PublishRetryMiddleware,
        retries=settings.publish_retries,
        pause=settings.publish_retry_pause_seconds,
        confirm=confirm,
        logger=logger,
    )
    options: dict[str, Any] = {
        "name": client_name,
        "allow_reconnect": True,
        # The order of OPENBAO__NATS__NATS_URL is shuffled on purpose (nats-py's default, made
        # explicit): replicas given the same list spread over the cluster's nodes, as NATS
        # recommends, instead of all landing on the first one.
        "dont_randomize": False,
        "max_reconnect_attempts": settings.nats_max_reconnect_attempts,
        "reconnect_time_wait": settings.nats_reconnect_wait_seconds,
        "pending_size": settings.nats_reconnect_buffer_bytes,
        "ping_interval": settings.nats_ping_interval_seconds,
        "max_outstanding_pings": 2,
        "connect_timeout": 2,
        "security": settings.nats.security(),
        "middlewares": [middleware],
    }
    if logger is not None:
        options["logger"] = logger
    options.update(broker_options)
    broker = NatsBroker(settings.nats.servers, **options)
    holder.append(broker)
    return broker
