"""Result-file mappers: 1.x (with the defaults of spec 001) and 2.0, into one normalised shape."""

from __future__ import annotations

from services.arm_core.documents.mapped import CoreIssue, MappedDocument, MappedResult
from services.arm_core.jobs.mapping._common import (
    LEGACY_WARNING,
    envelope_metrics,
    job_status,
    merged_metrics,
    structured_warnings,
)
from services.arm_core.jobs.mapping.mappers import MAPPERS, map_result
from services.arm_core.jobs.mapping.v1 import (
    MAPPING_WARNING,
    RELATION_FAILED,
    SOFT_RELATION_FAILED,
    map_v1,
    value_is_clean,
)
from services.arm_core.jobs.mapping.v2 import map_v2

__all__ = [
    "LEGACY_WARNING",
    "MAPPERS",
    "MAPPING_WARNING",
    "RELATION_FAILED",
    "SOFT_RELATION_FAILED",
    "CoreIssue",
    "MappedDocument",
    "MappedResult",
    "envelope_metrics",
    "job_status",
    "map_result",
    "map_v1",
    "map_v2",
    "merged_metrics",
    "structured_warnings",
    "value_is_clean",
]
