"""The core served by a real uvicorn (in a thread, on a free loopback port), for the checks
that depend on uvicorn itself: its access log, its trust of forwarded headers."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import threading
from collections.abc import AsyncIterator
from typing import Any

import uvicorn

__all__ = ["served"]


@contextlib.asynccontextmanager
async def served(
    app: Any, *, access: logging.Handler | None = None, **config: Any
) -> AsyncIterator[str]:
    """`app` under uvicorn (its lifespan already running elsewhere); the base URL. `access`
    is added to uvicorn's access logger after uvicorn configured its logging."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="info", lifespan="off", **config))
    logger = logging.getLogger("uvicorn.access")
    if access is not None:
        logger.addHandler(access)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        for _ in range(500):
            if server.started:
                break
            await asyncio.sleep(0.01)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await asyncio.to_thread(thread.join, 10)
        if access is not None:
            logger.removeHandler(access)
        sock.close()
