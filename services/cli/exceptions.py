"""The CLI's one exception root: a message for the user and the exit code it ends with.

CliError
├── UsageError        bad arguments, a missing, empty or unreadable file (64, EX_USAGE)
├── ConfigError       an invalid environment setting (78, EX_CONFIG)
├── CoreUnavailable   the core cannot be reached or answered 5xx (69, EX_UNAVAILABLE)
├── CoreRejected      the core refused the request (4xx) (65, EX_DATAERR)
└── JobTimedOut       the job did not reach a final status in time (75, EX_TEMPFAIL)
"""

from __future__ import annotations

__all__ = [
    "EXIT_ERROR",
    "EXIT_OK",
    "CliError",
    "ConfigError",
    "CoreRejected",
    "CoreUnavailable",
    "JobTimedOut",
    "UsageError",
]

EXIT_OK = 0
"""The file was recognised: status done or needs_check."""
EXIT_ERROR = 2
"""Recognition ended in error (or the job in error / timeout / dlq)."""


class CliError(Exception):
    """Ends the command with `message` on stderr and `exit_code`, never a traceback."""

    exit_code = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class UsageError(CliError):
    exit_code = 64


class ConfigError(CliError):
    exit_code = 78


class CoreUnavailable(CliError):
    exit_code = 69

    def __init__(self, message: str, *, url: str) -> None:
        super().__init__(message)
        self.url = url


class CoreRejected(CliError):
    exit_code = 65

    def __init__(self, message: str, *, status_code: int) -> None:
        super().__init__(message)
        self.status_code = status_code


class JobTimedOut(CliError):
    exit_code = 75

    def __init__(self, message: str, *, job_id: str, last_status: str) -> None:
        super().__init__(message)
        self.job_id = job_id
        self.last_status = last_status
