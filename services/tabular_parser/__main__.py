"""`python -m services.tabular_parser [--host H --port P ...]`: the same as
`faststream run services.tabular_parser.app:create_app --factory`."""

from __future__ import annotations

import sys

from faststream._internal.cli.main import cli

APP = "services.tabular_parser.app:create_app"


def main(argv: list[str] | None = None) -> None:
    """Run the service through FastStream's CLI (signals, graceful shutdown, --host/--port)."""
    args = list(sys.argv[1:] if argv is None else argv)
    cli(["run", APP, "--factory", *args], prog_name="tabular-parser")


if __name__ == "__main__":
    main()
