"""`python -m services.arm_core migrate | serve`.

- `migrate`: apply the database migrations and exit;
- `serve [--host H] [--port P]`: run the core under uvicorn, after checking the bind-address
  rule (without an identity provider only a loopback host; see services/arm_core/auth/bind.py)
  so that a refused configuration never opens a socket.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys

from services.arm_core.auth import check_bind
from services.arm_core.db.migrate import migrate
from services.arm_core.settings import CoreSettings
from services.runtime.settings import SettingsError, load_settings


def _serve(settings: CoreSettings, host: str, port: int) -> None:
    import uvicorn

    from services.arm_core.app import create_app

    uvicorn.run(create_app(settings, bind_host=host), host=host, port=port)


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the process exit code."""
    parser = argparse.ArgumentParser(prog="python -m services.arm_core")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser(
        "migrate", help="upgrade the database (OPENBAO__DB__DB_URL) to the latest revision"
    )
    serve = commands.add_parser("serve", help="run the core (REST API, page, NATS consumer)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on (8000)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        settings = load_settings(CoreSettings)
        if args.command == "serve":
            check_bind(settings.auth, args.host)
    except SettingsError as exc:
        print(f"invalid settings: {exc}", file=sys.stderr)
        return 2
    if args.command == "migrate":
        asyncio.run(migrate(settings.db.url))
        print(f"database migrated: {settings.db.safe_url}")
    elif args.command == "serve":
        _serve(settings, args.host, args.port)
    return 0


if __name__ == "__main__":
    sys.exit(main())
