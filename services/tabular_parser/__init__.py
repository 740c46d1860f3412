"""tabular-parser: Excel recognition (trial balances, financial statements) over NATS and S3.

Run: `faststream run services.tabular_parser.app:create_app --factory`. The names below are
re-exported lazily so that importing a subpackage (e.g. `excel` in a worker process) does not
pull in the broker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from services.tabular_parser.app import create_app
    from services.tabular_parser.recognizer import TabularRecognizer, analyse_workbook
    from services.tabular_parser.settings import TabularParserSettings

__all__ = [
    "TabularParserSettings",
    "TabularRecognizer",
    "analyse_workbook",
    "create_app",
]

_SOURCES = {
    "create_app": "services.tabular_parser.app",
    "TabularRecognizer": "services.tabular_parser.recognizer",
    "analyse_workbook": "services.tabular_parser.recognizer",
    "TabularParserSettings": "services.tabular_parser.settings",
}


def __getattr__(name: str) -> Any:
    import importlib

    source = _SOURCES.get(name)
    if source is None:
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)
    return getattr(importlib.import_module(source), name)
