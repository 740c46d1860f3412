"""tabular-parser: Excel recognition (trial balances, financial statements) over NATS and S3.

Run: `faststream run services.tabular_parser.app:create_app --factory`. The names below are
lazy (PEP 562, `services._lazy`) so that importing a subpackage (e.g. `excel` in a worker
process) does not pull in the broker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from services._lazy import lazy_exports

if TYPE_CHECKING:  # what mypy sees: the same names, typed; `X as X` marks them exported
    from services.tabular_parser.app import FILE_TYPES as FILE_TYPES
    from services.tabular_parser.app import SERVICE_NAME as SERVICE_NAME
    from services.tabular_parser.app import SPEC as SPEC
    from services.tabular_parser.app import create_app as create_app
    from services.tabular_parser.app import service_version as service_version
    from services.tabular_parser.recognizer import TabularRecognizer as TabularRecognizer
    from services.tabular_parser.recognizer import analyse_workbook as analyse_workbook
    from services.tabular_parser.recognizer import build_recognizer as build_recognizer
    from services.tabular_parser.recognizer import recognize_bytes as recognize_bytes
    from services.tabular_parser.recognizer import recognize_encoded as recognize_encoded
    from services.tabular_parser.settings import ParsePool as ParsePool
    from services.tabular_parser.settings import TabularParserSettings as TabularParserSettings

_LAZY: dict[str, str] = {
    "FILE_TYPES": "services.tabular_parser.app",
    "SERVICE_NAME": "services.tabular_parser.app",
    "SPEC": "services.tabular_parser.app",
    "create_app": "services.tabular_parser.app",
    "service_version": "services.tabular_parser.app",
    "TabularRecognizer": "services.tabular_parser.recognizer",
    "analyse_workbook": "services.tabular_parser.recognizer",
    "build_recognizer": "services.tabular_parser.recognizer",
    "recognize_bytes": "services.tabular_parser.recognizer",
    "recognize_encoded": "services.tabular_parser.recognizer",
    "ParsePool": "services.tabular_parser.settings",
    "TabularParserSettings": "services.tabular_parser.settings",
}
"""Each name the package shows → the module that defines it, imported on first use."""

__all__ = sorted(_LAZY)

if not TYPE_CHECKING:  # mypy resolves the names above, and flags any other
    __getattr__, __dir__ = lazy_exports(globals(), _LAZY)
