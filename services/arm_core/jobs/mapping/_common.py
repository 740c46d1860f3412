"""What both mappers share: file-level metrics and the job status of a mapped file."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from services.arm_core.exceptions import MappingError

__all__ = [
    "LEGACY_WARNING",
    "envelope_metrics",
    "job_status",
    "merged_metrics",
    "structured_warnings",
]

LEGACY_WARNING = "LEGACY_WARNING"
"""Code of a 1.x string warning turned into a structure (severity info)."""


def structured_warnings(warnings: object) -> list[Any]:
    """A warnings list with every 1.x string made `{code: LEGACY_WARNING, severity: info, message}`."""
    if not isinstance(warnings, Sequence) or isinstance(warnings, str | bytes):
        return []
    return [
        {"code": LEGACY_WARNING, "severity": "info", "message": item}
        if isinstance(item, str)
        else item
        for item in warnings
    ]


def envelope_metrics(metrics: object) -> dict[str, Any] | None:
    """An envelope's own metrics as the job stores them (no result file to merge with: an
    error envelope, a rejected file): a copy whose 1.x string warnings are LEGACY_WARNING
    structures, as spec 001 asks for any 1.x input; None when there are none."""
    if not isinstance(metrics, Mapping):
        return None
    stored = dict(metrics)
    if "warnings" in stored:
        stored["warnings"] = structured_warnings(stored["warnings"])
    return stored


def merged_metrics(file_metrics: object, envelope_metrics: object) -> dict[str, Any]:
    """The job's metrics: the result file's, then what only the envelope says.

    Warnings are the file's, followed by those of the envelope that the file does not repeat;
    1.x strings become LEGACY_WARNING structures.
    """
    own = dict(file_metrics) if isinstance(file_metrics, Mapping) else {}
    other = dict(envelope_metrics) if isinstance(envelope_metrics, Mapping) else {}
    warnings = structured_warnings(own.get("warnings"))
    for item in structured_warnings(other.get("warnings")):
        if item not in warnings:
            warnings.append(item)
    merged = {**other, **own}
    merged["warnings"] = warnings
    return merged


def job_status(envelope_status: str, file_status: object, document_statuses: Sequence[str]) -> str:
    """done | needs_check for the job: the strictest of the envelope, the file and its documents.

    A file that says error under a done / needs_check envelope contradicts it: MappingError.
    """
    if file_status not in ("done", "needs_check"):
        msg = (
            f"the result file has status {file_status!r} but the envelope says {envelope_status!r}"
        )
        raise MappingError(msg)
    statuses = {envelope_status, str(file_status), *document_statuses}
    return "needs_check" if "needs_check" in statuses else "done"
