"""`python -m services.devstack [--demo]`: the local stack, stopped by Ctrl-C."""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from pathlib import Path

from services.devstack._stack import LocalStack, StackError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m services.devstack",
        description="Run nats-server, an S3 endpoint (moto), SQLite and the three services "
        "on loopback. Ctrl-C stops everything.",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=Path(".local"),
        help="where the SQLite file and the service logs go (default .local/)",
    )
    parser.add_argument(
        "--demo",
        action="store_true",
        help="send generated sample files through the system and print each job",
    )
    parser.add_argument(
        "--exit-after-demo",
        action="store_true",
        help="stop the stack once the demo has finished (for tests and CI)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        help="how long the demo waits for each job (seconds)",
    )
    args = parser.parse_args(argv)

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        with LocalStack(data_dir=args.data_dir) as stack:
            print(stack.describe(), flush=True)
            code = 0
            if args.demo:
                from services.devstack._demo import run_demo

                code = int(run_demo(stack.core_url, timeout=args.timeout))
                if args.exit_after_demo:
                    return code
            print("Running. Press Ctrl-C to stop.", flush=True)
            with contextlib.suppress(KeyboardInterrupt):
                stop.wait()
            return code
    except StackError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    finally:
        print("Stopped.", flush=True)


if __name__ == "__main__":
    sys.exit(main())
