"""`python -m services.arm_core migrate`: apply the database migrations and exit."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys

from services.arm_core.db.migrate import migrate
from services.arm_core.settings import CoreSettings
from services.runtime.settings import SettingsError, load_settings


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the process exit code."""
    parser = argparse.ArgumentParser(prog="python -m services.arm_core")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser(
        "migrate", help="upgrade the database (OPENBAO__DB__DB_URL) to the latest revision"
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        settings = load_settings(CoreSettings)
    except SettingsError as exc:
        print(f"invalid settings: {exc}", file=sys.stderr)
        return 2
    if args.command == "migrate":
        asyncio.run(migrate(settings.db.url))
        print(f"database migrated: {settings.db.safe_url}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
