"""Seconds as the analyst reads them in `arm-ka`'s output (the names of the contract's codes
are `services.contract.words`, one table with arm-core's pages and export)."""

from __future__ import annotations

__all__ = ["seconds"]


def seconds(value: float) -> str:
    """«4,2 с»: seconds with a decimal comma, as the summaries write numbers."""
    return f"{value:.1f} с".replace(".", ",")
