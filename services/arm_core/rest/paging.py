"""`?limit=` and `?offset=` of the API's lists, as a `Paging`."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query

from services.arm_core.documents.listing import Paging

__all__ = ["MAX_OFFSET", "Page"]

# The largest offset or index a query may name: past any real table, within every database's
# integers (9223372036854775808 overflowed SQLite's and was a 500).
MAX_OFFSET = 2**31 - 1


async def _paging(
    limit: Annotated[int, Query(ge=1, le=500, description="Page size")] = 50,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET, description="Items to skip")] = 0,
) -> Paging:
    return Paging(limit, offset)


# `?limit=` (1–500, default 50) and `?offset=` of the API's lists of files and jobs.
Page = Annotated[Paging, Depends(_paging)]
