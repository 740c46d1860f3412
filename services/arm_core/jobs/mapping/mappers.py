"""The mapper of each result-file MAJOR the core can map."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from services.arm_core.documents.mapped import MappedResult
from services.arm_core.exceptions import MappingError
from services.arm_core.jobs.mapping.v1 import map_v1
from services.arm_core.jobs.mapping.v2 import map_v2
from services.contract import parse_version

__all__ = ["MAPPERS", "map_result"]

Mapper = Callable[[Mapping[str, Any], Mapping[str, Any]], MappedResult]

MAPPERS: Final[dict[int, Mapper]] = {1: map_v1, 2: map_v2}
"""MAJOR → mapper. Removing MAJOR 1 (after both services moved to 2.0) removes its entry."""


def map_result(result: Mapping[str, Any], envelope: Mapping[str, Any]) -> MappedResult:
    """Map a result file that already passed the schema of its own MAJOR."""
    version = parse_version(result.get("schema_version"))
    mapper = MAPPERS.get(version[0]) if version is not None else None
    if mapper is None:
        msg = f"no mapper for result schema_version {result.get('schema_version')!r}"
        raise MappingError(msg)
    return mapper(result, envelope)
