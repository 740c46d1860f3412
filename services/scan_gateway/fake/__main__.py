"""`python -m services.scan_gateway.fake --port 8090 [--token T]`: the fake scanning system for
the local stack; every file is recognised by the local recogniser and served over HTTP."""

from __future__ import annotations

import argparse
import contextlib
import signal
import threading

from services.scan_gateway.fake.server import FakeScanServer, FakeScanSystem
from services.scan_gateway.local import recognize_to_items


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="fake-scan", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8090)
    parser.add_argument("--token", default=None, help="require this bearer token")
    args = parser.parse_args(argv)
    system = FakeScanSystem(token=args.token, engine=recognize_to_items)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with FakeScanServer(system, host=args.host, port=args.port) as server:
        print(f"fake scanning system on {server.url}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            stop.wait()


if __name__ == "__main__":
    main()
