"""The Russian names the pages show (one table with the export: `documents/words.py`)."""

from __future__ import annotations

from services.arm_core.db.models import Correction
from services.arm_core.documents.corrections import HEADER_FIELDS, as_statement
from services.arm_core.documents.read import DocumentBody
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
    "correction_what",
    "document_name",
    "money",
    "ru_date",
]


_CORRECTION_KINDS = {
    "value": "сумма",
    "confirm": "подтверждена сумма",
    "line_code": "код строки",
    "header": "шапка",
    "reviewed": "отмечен проверенным",
}


def correction_what(correction: Correction, document: DocumentBody) -> str:
    """What a correction changed, in the analyst's words: «сумма: 2120 Себестоимость продаж,
    За 2024 г.», «шапка: ИНН» (the line's code and name and the column's label, never an
    index)."""
    kind = _CORRECTION_KINDS.get(correction.kind, correction.kind)
    place: list[str] = []
    statement = as_statement(document)
    lines = (statement.get("lines") or []) if statement is not None else []
    if correction.line is not None and 0 <= correction.line < len(lines):
        line = lines[correction.line]
        named = " ".join(str(p) for p in (line.get("line_code"), line.get("line_name")) if p)
        place.append(named or f"строка {correction.line + 1}")
    if correction.column_index is not None:
        known = (statement.get("columns") or []) if statement is not None else []
        column = {c.get("column_index"): c for c in known}.get(correction.column_index)
        label = column.get("label") if column is not None else None
        place.append(str(label) if label else f"колонка {correction.column_index}")
    if correction.field:
        place.append(HEADER_FIELDS.get(correction.field, correction.field))
    return f"{kind}: {', '.join(place)}" if place else kind
