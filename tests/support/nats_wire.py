"""Making sure the server has what a plain nats-py client wrote, before the test goes on."""

from __future__ import annotations

from nats.aio.client import Client

__all__ = ["round_trip"]


async def round_trip(nc: Client) -> None:
    """Until the server has read everything `nc` wrote so far (a SUB, a PUB).

    One flush does not prove it: nats-py writes the flush's PING straight to the socket, ahead
    of the commands still in its buffer (those go out on the flusher task's next turn), so the
    PONG can come back before the server has seen a SUB just made, and a message published
    then is lost (core NATS keeps nothing). The first round trip lets the flusher run; the
    second PING goes out behind what it wrote.
    """
    await nc.flush()
    await nc.flush()
