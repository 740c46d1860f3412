"""`arm-ka`, the command line of the recognition subsystem (console script of the package).

`arm-ka parse FILE` recognises a local file with no servers; `arm-ka recognize FILE` sends it
to a running arm-core and follows its job. `service_parse_main` is the shared body of
`python -m services.tabular_parser FILE` and `python -m services.scan_gateway FILE`.
"""

from __future__ import annotations

from services.cli._main import (
    CORE_URL_ENV,
    DEFAULT_CORE_URL,
    build_parser,
    exit_code_of,
    main,
    service_parse_main,
)
from services.cli.exceptions import (
    EXIT_ERROR,
    EXIT_OK,
    CliError,
    CoreRejected,
    CoreUnavailable,
    JobTimedOut,
    UsageError,
)

__all__ = [
    "CORE_URL_ENV",
    "DEFAULT_CORE_URL",
    "EXIT_ERROR",
    "EXIT_OK",
    "CliError",
    "CoreRejected",
    "CoreUnavailable",
    "JobTimedOut",
    "UsageError",
    "build_parser",
    "exit_code_of",
    "main",
    "service_parse_main",
]
