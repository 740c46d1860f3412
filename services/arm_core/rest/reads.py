"""What the read routes of `/api/v1` share: who may read, the problems a read can answer, the
time-window filters of the lists."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Query
from pydantic import AfterValidator, BaseModel

from services.arm_core.rest.deps import READ
from services.arm_core.rest.openapi import problem_responses
from services.arm_core.rest.problem_types import (
    INVALID_REQUEST,
    NOT_FOUND,
    UNAVAILABLE,
    ProblemType,
)

__all__ = ["ID_PROBLEMS", "LIST_PROBLEMS", "CreatedFrom", "CreatedTo", "reader"]

ID_PROBLEMS: tuple[ProblemType, ...] = (NOT_FOUND, INVALID_REQUEST, UNAVAILABLE)
"""What a route of one resource by id can answer."""

LIST_PROBLEMS = problem_responses(INVALID_REQUEST, UNAVAILABLE)
"""What a list can answer."""

_EARLIEST = dt.datetime(1900, 1, 1, tzinfo=dt.UTC)
_LATEST = dt.datetime(9999, 1, 1, tzinfo=dt.UTC)


def _bounded(moment: dt.datetime | None) -> dt.datetime | None:
    """A date parameter within 1900–9998 (UTC): `0001-01-01T00:00+14:00` overflowed the
    conversion to UTC (a 500 and a reset connection); now it is a 422."""
    if moment is None:
        return None
    try:
        utc = moment.astimezone(dt.UTC) if moment.tzinfo is not None else moment
    except OverflowError:
        msg = "the date is out of range (1900 to 9998)"
        raise ValueError(msg) from None
    naive_bounds = (_EARLIEST.replace(tzinfo=None), _LATEST.replace(tzinfo=None))
    low, high = (_EARLIEST, _LATEST) if utc.tzinfo is not None else naive_bounds
    if not low <= utc < high:
        msg = "the date is out of range (1900 to 9998)"
        raise ValueError(msg)
    return moment


CreatedFrom = Annotated[
    dt.datetime | None,
    AfterValidator(_bounded),
    Query(description="Created at or after (ISO 8601, 1900–9998)"),
]
CreatedTo = Annotated[
    dt.datetime | None,
    AfterValidator(_bounded),
    Query(description="Created before (ISO 8601, 1900–9998)"),
]

_Route = TypeVar("_Route", bound=Callable[..., Any])


def reader(
    router: APIRouter,
) -> Callable[..., Callable[[_Route], _Route]]:
    """`GET` routes on `router` for readers (integrator, analyst): `read(path, model, tag,
    responses=None)` answers `model`, with the problems of an id unless `responses`."""

    def read(
        path: str,
        model: type[BaseModel],
        tag: str,
        responses: dict[int | str, dict[str, Any]] | None = None,
    ) -> Callable[[_Route], _Route]:
        return router.get(
            path,
            dependencies=READ,
            response_model=model,
            tags=[tag],
            responses=responses if responses is not None else problem_responses(*ID_PROBLEMS),
        )

    return read
