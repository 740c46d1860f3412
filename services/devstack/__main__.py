"""`python -m services.devstack [--demo]`: the local stack, stopped by Ctrl-C.

Fixed default ports, so that `arm-ka` finds the core without options: arm-core 8000,
tabular-parser 8001, scan-gateway 8002, nats-server 4222, S3 9000. `--port` (or ARM_KA_PORT)
moves the core and the two parsers after it; `--nats-port`/`--s3-port` (ARM_KA_NATS_PORT,
ARM_KA_S3_PORT) the servers; 0 means any free port. `--girbo` also serves official filings
from a fake of the ГИР БО public API on loopback (the sample company's, or `--girbo-filings
FILE`'s) and points arm-core at it (OPENBAO__GIRBO__GIRBO_URL); off by default. Every start is fresh: moto keeps S3 in
memory, so the SQLite file is removed too (a database that remembered files whose objects are
gone would turn each re-run into FILE_READ_ERROR).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

from services.devstack._stack import LocalStack, StackError, reset_local_state

DEFAULT_CORE_PORT = 8000
DEFAULT_NATS_PORT = 4222
DEFAULT_S3_PORT = 9000


def _port(env: str, default: int) -> int:
    value = os.environ.get(env, "").strip()
    if not value:
        return default
    try:
        return int(value)
    except ValueError:
        msg = f"{env}={value!r} is not a port number"
        raise SystemExit(msg) from None


def arm_ka_command(core_url: str) -> str:
    """The exact command that sends a file to this stack's core."""
    binary = Path(sys.executable).parent / "arm-ka"
    with contextlib.suppress(ValueError):
        binary = binary.relative_to(Path.cwd())
    return f"{binary} recognize FILE --core {core_url}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m services.devstack",
        description="Run nats-server, an S3 endpoint (moto), SQLite and the three services "
        "on loopback, all starting empty. Ctrl-C stops everything.",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=Path(".local"),
        help="where the SQLite file and the service logs go (default .local/)",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=_port("ARM_KA_PORT", DEFAULT_CORE_PORT),
        help="arm-core's port; the parsers take the next two (default 8000, env ARM_KA_PORT; "
        "0: any free ports)",
    )
    parser.add_argument(
        "--nats-port",
        type=int,
        default=_port("ARM_KA_NATS_PORT", DEFAULT_NATS_PORT),
        help="nats-server's port (default 4222, env ARM_KA_NATS_PORT; 0: any free port)",
    )
    parser.add_argument(
        "--s3-port",
        type=int,
        default=_port("ARM_KA_S3_PORT", DEFAULT_S3_PORT),
        help="the S3 server's port (default 9000, env ARM_KA_S3_PORT; 0: any free port)",
    )
    parser.add_argument(
        "--girbo",
        action="store_true",
        help="serve official filings from a fake ГИР БО API on loopback and hold dossiers "
        "against them (off by default)",
    )
    parser.add_argument(
        "--girbo-filings",
        type=Path,
        default=None,
        help="a JSON array of filings in the ГИР БО API's shape (.json, or .json.br with "
        "brotli) for --girbo; default: the sample company's 2024 filing",
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

    removed = reset_local_state(args.data_dir)
    ports = {}
    if args.port:
        ports = {
            "arm-core": args.port,
            "tabular-parser": args.port + 1,
            "scan-gateway": args.port + 2,
        }
    stack = LocalStack(
        data_dir=args.data_dir, ports=ports, nats_port=args.nats_port, s3_port=args.s3_port
    )
    try:
        with contextlib.ExitStack() as official:
            if args.girbo or args.girbo_filings:
                url = official.enter_context(_fake_girbo(args.girbo_filings))
                stack.service_env["arm-core"] = {"OPENBAO__GIRBO__GIRBO_URL": url}
                print(f"ГИР БО (fake)  {url}", flush=True)
            return _serve(stack, args, removed=bool(removed))
    except StackError as exc:
        print(f"error: {exc}", file=sys.stderr)
        print(
            "hint: stop the other program, or choose other ports: --port N (ARM_KA_PORT), "
            "--nats-port N, --s3-port N; 0 picks free ones",
            file=sys.stderr,
        )
        return 1
    except KeyboardInterrupt:
        return 130
    finally:
        print("Stopped.", flush=True)


@contextlib.contextmanager
def _fake_girbo(path: Path | None) -> Iterator[str]:
    """A fake ГИР БО API on a free loopback port serving `path`'s filings (or the sample
    company's); yields its base URL."""
    from services.devstack._official import sample_filings
    from services.girbo import FakeGirbo, FakeGirboServer, load_filings

    filings = load_filings(path) if path is not None else sample_filings()
    with FakeGirboServer(FakeGirbo(filings)) as server:
        yield server.url


def _serve(stack: LocalStack, args: argparse.Namespace, *, removed: bool) -> int:
    """Run the stack until Ctrl-C or SIGTERM (or the demo's end with --exit-after-demo)."""
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with stack:
        print(stack.describe(), flush=True)
        state = "removed the previous SQLite file; " if removed else ""
        print(
            f"Local state: fresh ({state}S3 is moto's, in memory; both start empty and "
            "are lost at stop).",
            flush=True,
        )
        print(f"Send a file:  {arm_ka_command(stack.core_url)}", flush=True)
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


if __name__ == "__main__":
    sys.exit(main())
