"""Publishing on core NATS: the Nats-Msg-Id rule, retries with the same id, the broker factory.

Spec 001: every message carries `Nats-Msg-Id` (the forms are built in services.runtime.ids);
an ack or result is published once plus up to PUBLISH_RETRIES times with a pause and the same
id; when that is exhausted the middleware writes one error line and raises `PublishGaveUp`,
which the caller handles and goes on. Core NATS has no server-side dedup, so consumers
recognise a repeat by its id.

A core-NATS publish only appends to the client's buffer: while the client is reconnecting it
"succeeds" without reaching the server. `PublishRetryMiddleware` therefore confirms each attempt
with a flush (a PING/PONG round trip) when given a `confirm` callable, as `build_broker` does;
a flush that times out is a failed attempt.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING, Any

import nats.errors
from faststream import BaseMiddleware
from faststream.exceptions import IncorrectState
from faststream.nats import NatsBroker
from faststream.response.publish_type import PublishType

from services.runtime.exceptions import MessagingError, MissingMsgIdError, PublishGaveUp
from services.runtime.ids import MSG_ID_HEADER, MsgId, MsgKind, msg_id, parse_request_msg_id

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
    "PublishGaveUp",
    "PublishRetryMiddleware",
    "build_broker",
    "msg_id",
    "parse_request_msg_id",
]

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


class PublishRetryMiddleware(BaseMiddleware):
    """Requires `Nats-Msg-Id` on every publish and retries a failed publish with the same id.

    Attach to the broker (`NatsBroker(middlewares=[partial(PublishRetryMiddleware, ...)])`);
    options: `retries` (attempts = 1 + retries), `pause` seconds between attempts, `confirm`
    (an awaitable run after each attempt, e.g. a flush, whose failure fails the attempt).
    Requests (RPC) pass through untouched. When every attempt fails, one error line is logged
    and the publish raises `PublishGaveUp` (the message did not leave); the caller goes on.
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
        raise PublishGaveUp(subject, mid, attempts, type(last).__name__) from None


def _retrieved(task: asyncio.Future[None]) -> None:
    """A confirm's flush that ended after its publish gave up on it: nothing to report."""
    if not task.cancelled():
        task.exception()


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
    # nats-py's own wait for a PONG must outlast the stale-connection PINGs (the third unanswered
    # one reconnects, which forgets the PONGs awaited): see `confirm`.
    pong_timeout = max(confirm_timeout, 3.0 * settings.nats_ping_interval_seconds)

    async def confirm() -> None:
        # The broker is built below, before any publish can run. While the client reconnects,
        # nats-py's flush returns at once without a round trip: ask the state first.
        client = holder[0].connection
        if not client.is_connected:
            raise nats.errors.ConnectionReconnectingError
        # nats-py writes a flush's PING straight to the socket, ahead of the PUB its flusher
        # task has not written yet: one turn of the loop lets the flusher write it first, so
        # the PONG answers a PING that followed the message.
        await asyncio.sleep(0)
        # Our time-out must not cancel nats-py's wait: a cancelled PONG future stays queued,
        # and the late PONG then kills the client's read loop (connected, deaf). The shielded
        # flush ends with its PONG (or its own, longer time-out).
        pong = asyncio.ensure_future(client.flush(timeout=pong_timeout))  # type: ignore[arg-type]
        pong.add_done_callback(_retrieved)
        await asyncio.wait_for(asyncio.shield(pong), confirm_timeout)

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
