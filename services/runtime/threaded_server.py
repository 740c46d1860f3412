"""An ASGI app served by uvicorn in a daemon thread, for the fakes of outside services.

The fakes (the scanning system, ГИР БО) are real HTTP servers on loopback that a test or the
local stack starts beside its own event loop. The socket is bound before uvicorn starts, so the
URL (a free port unless one is given) is known at once and nothing races for the port.
"""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType
from typing import Any, Self

import uvicorn

__all__ = ["ThreadedServer"]


class ThreadedServer:
    """`app` under uvicorn on `host:port` (0: a free port) in a thread named `name`."""

    def __init__(self, app: Any, *, host: str = "127.0.0.1", port: int = 0, name: str) -> None:
        self.app = app
        self.name = name
        self._host = host
        self._port = port
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None

    @property
    def url(self) -> str:
        """`http://host:port` of the running server."""
        if self._socket is None:
            msg = f"{self.name} is not running"
            raise RuntimeError(msg)
        host, port = self._socket.getsockname()[:2]
        return f"http://{host}:{port}"

    def start(self) -> None:
        """Bind, start serving, and return once uvicorn has started (RuntimeError after 5 s)."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self._host, self._port))
        self._socket = sock
        server = uvicorn.Server(uvicorn.Config(self.app, log_level="warning", lifespan="off"))
        self._server = server
        self._thread = threading.Thread(
            target=server.run, kwargs={"sockets": [sock]}, name=self.name, daemon=True
        )
        self._thread.start()
        for _ in range(500):
            if server.started:
                return
            time.sleep(0.01)
        self.stop()
        msg = f"{self.name} did not start"
        raise RuntimeError(msg)

    def stop(self) -> None:
        """Ask uvicorn to exit, wait for its thread (10 s at most), close the socket."""
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        if self._socket is not None:
            self._socket.close()
        self._server = self._thread = self._socket = None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
