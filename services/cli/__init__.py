"""`arm-ka`, the command line of the recognition subsystem (console script of the package).

`arm-ka parse FILE…` recognises local files with no servers; `arm-ka recognize FILE` sends one
to a running arm-core and follows its job. The core's client and the job summary are public for
the dev stack's demo (`services.devstack`), which follows jobs the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from services.cli._main import CORE_URL_ENV, DEFAULT_CORE_URL, build_parser, exit_code_of, main
from services.cli._summary import summarise_job
from services.cli.exceptions import (
    EXIT_ERROR,
    EXIT_OK,
    CliError,
    ConfigError,
    CoreRejected,
    CoreUnavailable,
    JobTimedOut,
    UsageError,
)

if TYPE_CHECKING:
    from services.cli._core import CoreClient

__all__ = [
    "CORE_URL_ENV",
    "DEFAULT_CORE_URL",
    "EXIT_ERROR",
    "EXIT_OK",
    "CliError",
    "ConfigError",
    "CoreClient",
    "CoreRejected",
    "CoreUnavailable",
    "JobTimedOut",
    "UsageError",
    "build_parser",
    "exit_code_of",
    "main",
    "summarise_job",
]


def __getattr__(name: str) -> Any:
    """`CoreClient` on first use: its httpx costs `arm-ka parse` a fifth of a second."""
    if name == "CoreClient":
        from services.cli._core import CoreClient

        return CoreClient
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
