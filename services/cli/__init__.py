"""`arm-ka`, the command line of the recognition subsystem (console script of the package).

`arm-ka parse FILE…` recognises local files with no servers; `arm-ka recognize FILE` sends one
to a running arm-core and follows its job. The core's client and the job summary are public for
the dev stack's demo (`services.devstack`), which follows jobs the same way. The face is lazy
(`services._lazy`): `arm-ka parse` must not pay for httpx (the core's client) it never uses,
nor its worker processes, which import the CLI's package again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from services._lazy import lazy_exports

if TYPE_CHECKING:  # what mypy sees: the same names, typed; `X as X` marks them exported
    from services.cli._core import ACTIVE_STATUSES as ACTIVE_STATUSES
    from services.cli._core import API_PREFIX as API_PREFIX
    from services.cli._core import FINAL_STATUSES as FINAL_STATUSES
    from services.cli._core import TOKEN_ENV as TOKEN_ENV
    from services.cli._core import CoreClient as CoreClient
    from services.cli._main import CORE_URL_ENV as CORE_URL_ENV
    from services.cli._main import DEFAULT_CORE_URL as DEFAULT_CORE_URL
    from services.cli._main import build_parser as build_parser
    from services.cli._main import exit_code_of as exit_code_of
    from services.cli._main import main as main
    from services.cli._summary import failed_checks as failed_checks
    from services.cli._summary import file_line as file_line
    from services.cli._summary import summarise_document as summarise_document
    from services.cli._summary import summarise_job as summarise_job
    from services.cli._summary import summarise_result as summarise_result
    from services.cli._summary import total_line as total_line
    from services.cli.exceptions import EXIT_ERROR as EXIT_ERROR
    from services.cli.exceptions import EXIT_OK as EXIT_OK
    from services.cli.exceptions import CliError as CliError
    from services.cli.exceptions import ConfigError as ConfigError
    from services.cli.exceptions import CoreRejected as CoreRejected
    from services.cli.exceptions import CoreUnavailable as CoreUnavailable
    from services.cli.exceptions import JobTimedOut as JobTimedOut
    from services.cli.exceptions import UsageError as UsageError

_LAZY: dict[str, str] = {
    "ACTIVE_STATUSES": "services.cli._core",
    "API_PREFIX": "services.cli._core",
    "FINAL_STATUSES": "services.cli._core",
    "TOKEN_ENV": "services.cli._core",
    "CoreClient": "services.cli._core",
    "CORE_URL_ENV": "services.cli._main",
    "DEFAULT_CORE_URL": "services.cli._main",
    "build_parser": "services.cli._main",
    "exit_code_of": "services.cli._main",
    "main": "services.cli._main",
    "failed_checks": "services.cli._summary",
    "file_line": "services.cli._summary",
    "summarise_document": "services.cli._summary",
    "summarise_job": "services.cli._summary",
    "summarise_result": "services.cli._summary",
    "total_line": "services.cli._summary",
    "EXIT_ERROR": "services.cli.exceptions",
    "EXIT_OK": "services.cli.exceptions",
    "CliError": "services.cli.exceptions",
    "ConfigError": "services.cli.exceptions",
    "CoreRejected": "services.cli.exceptions",
    "CoreUnavailable": "services.cli.exceptions",
    "JobTimedOut": "services.cli.exceptions",
    "UsageError": "services.cli.exceptions",
}
"""Each name the package shows → the module that defines it, imported on first use."""

__all__ = sorted(_LAZY)

if not TYPE_CHECKING:  # mypy resolves the names above, and flags any other
    __getattr__, __dir__ = lazy_exports(globals(), _LAZY)
