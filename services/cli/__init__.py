"""`arm-ka`, the command line of the recognition subsystem (console script of the package).

`arm-ka parse FILE…` recognises local files with no servers; `arm-ka recognize FILE` sends one
to a running arm-core and follows its job. The core's client and the job summary are public for
the dev stack's demo (`services.devstack`), which follows jobs the same way.
"""

from __future__ import annotations

from services.cli._core import ACTIVE_STATUSES, API_PREFIX, FINAL_STATUSES, CoreClient
from services.cli._main import CORE_URL_ENV, DEFAULT_CORE_URL, build_parser, exit_code_of, main
from services.cli._summary import (
    failed_checks,
    file_line,
    summarise_document,
    summarise_job,
    summarise_result,
    total_line,
)
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

__all__ = [
    "ACTIVE_STATUSES",
    "API_PREFIX",
    "CORE_URL_ENV",
    "DEFAULT_CORE_URL",
    "EXIT_ERROR",
    "EXIT_OK",
    "FINAL_STATUSES",
    "CliError",
    "ConfigError",
    "CoreClient",
    "CoreRejected",
    "CoreUnavailable",
    "JobTimedOut",
    "UsageError",
    "build_parser",
    "exit_code_of",
    "failed_checks",
    "file_line",
    "main",
    "summarise_document",
    "summarise_job",
    "summarise_result",
    "total_line",
]
