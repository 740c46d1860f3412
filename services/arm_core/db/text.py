"""Text the database can store: PostgreSQL refuses U+0000 in text and JSONB columns.

A producer may legally send it inside any JSON string (an error message, a line name read from
a damaged file); the core keeps the message and marks where the character was instead of
failing the whole transaction.
"""

from __future__ import annotations

from typing import Any

__all__ = ["NUL_REPLACEMENT", "storable"]

NUL_REPLACEMENT = "\ufffd"


def storable(value: Any) -> Any:
    """`value` (parsed JSON) with every U+0000 in its strings and keys replaced by U+FFFD."""
    if isinstance(value, str):
        return value.replace("\x00", NUL_REPLACEMENT) if "\x00" in value else value
    if isinstance(value, dict):
        return {storable(k): storable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [storable(v) for v in value]
    return value
