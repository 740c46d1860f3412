"""What a mapper makes of a result file: normalised documents, core issues, job fields.

The normalised document is the 2.0 document shape (the generated TypedDicts, decision 0041) (what the file says for 2.0; the 1.x
document with the defaults of spec 001 for 1.x). Core issues are the core's own findings
about a document (its checks, the mapper's warnings), kept apart from the producer's
`warnings[]` so that each can be told from the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from services.contract.models.result_v2_dicts import OsvDocument, StatementDocument

__all__ = ["CoreIssue", "MappedDocument", "MappedResult"]


@dataclass(frozen=True, slots=True)
class CoreIssue:
    """A finding of the core about one document (a `document_issue` with source `core`)."""

    code: str
    severity: str
    message: str
    line_refs: tuple[str, ...] | None = None
    column_index: int | None = None
    field: str | None = None
    details: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class MappedDocument:
    """One document in the normalised shape, with the core's issues about it.

    `producer_checks` keeps a 1.x document's own `checks` as sent (its `checks` in `body` are
    the core's recomputation); None for 2.0, whose `checks` are stored as sent.
    """

    body: StatementDocument | OsvDocument
    core_issues: tuple[CoreIssue, ...] = ()
    producer_checks: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class MappedResult:
    """A result file, mapped: what the job records and the documents to store."""

    schema_version: str
    status: str
    group_schema: str | None
    statements_version: str | None
    metrics: dict[str, Any]
    documents: tuple[MappedDocument, ...] = field(default_factory=tuple)
