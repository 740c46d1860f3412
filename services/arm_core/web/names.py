"""The Russian names the pages show (one table with the export: `documents/words.py`)."""

from __future__ import annotations

from services.arm_core.documents.words import (
    DOCUMENT_TYPES,
    FORM_VARIANTS,
    LINE_STATUSES,
    REVIEW_STATES,
    STATUS_NAMES,
    document_name,
    money,
    ru_date,
)

__all__ = [
    "DOCUMENT_TYPES",
    "FORM_VARIANTS",
    "LINE_STATUSES",
    "REVIEW_STATES",
    "STATUS_NAMES",
    "document_name",
    "money",
    "ru_date",
]
