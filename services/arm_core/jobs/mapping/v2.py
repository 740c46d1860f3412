"""The 2.0 mapper: the result file already has the normalised shape; store what it says.

The mapped documents share the parsed file's parts, uncopied: nothing on the document's path
changes a document in place (decision 0041), and a deep copy of a 118 000-row ОСВ cost twice
its `json.loads`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from services.arm_core.documents.mapped import MappedDocument, MappedResult
from services.arm_core.jobs.mapping._common import job_status, merged_metrics
from services.contract.models.result_v2_dicts import OsvDocument, StatementDocument

__all__ = ["map_v2"]


def _document(document: dict[str, object]) -> StatementDocument | OsvDocument:
    """A document of a schema-valid 2.x file: the contract's shape, declared so unparsed
    (decision 0012: an ОСВ of 100 000 rows is not read into models)."""
    if document.get("document_type") == "OSV":
        return cast(OsvDocument, document)
    return cast(StatementDocument, document)


def map_v2(result: Mapping[str, Any], envelope: Mapping[str, Any]) -> MappedResult:
    """Map a schema-valid 2.x result file (any MINOR) received under `envelope`."""
    documents = tuple(
        MappedDocument(body=_document(dict(document))) for document in result["documents"]
    )
    service = result.get("service") or {}
    return MappedResult(
        schema_version=str(result["schema_version"]),
        status=job_status(
            str(envelope["status"]),
            result.get("status"),
            [str(d.body.get("status")) for d in documents],
        ),
        group_schema=result.get("group_schema"),
        statements_version=service.get("statements_version"),
        metrics=merged_metrics(result.get("metrics"), envelope.get("metrics")),
        documents=documents,
    )
