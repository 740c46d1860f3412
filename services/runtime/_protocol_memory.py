"""The bounded memory of requests this process has taken (in work or done).

Spec 001 lets a service answer a repeated request with a second ack instead of a second
recognition, and forbids a SCHEMA_MISMATCH answer for a job it already took. Both need to know
which jobs this process has seen. The memory must stay bounded on a long-running replica, so
finished jobs are forgotten after `max_age_seconds` or when more than `max_done` are kept
(oldest first). A job in work (waiting in the backlog or running) is never forgotten: it is
bounded by BACKLOG_MAX + JOBS_IN_FLIGHT anyway, and forgetting it would let a repeat start a
second recognition of the same job.
"""

from __future__ import annotations

import time
import uuid
from collections import Counter, OrderedDict
from collections.abc import Callable
from enum import StrEnum

__all__ = ["JobMemory", "JobState"]

JobKey = tuple[uuid.UUID, int]


class JobState(StrEnum):
    """Where a (job_id, attempt) stands in this process."""

    IN_WORK = "in_work"
    DONE = "done"


class JobMemory:
    """Jobs keyed by (job_id, attempt): in work (kept) and done (LRU + max age)."""

    def __init__(
        self,
        *,
        max_done: int,
        max_age_seconds: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_done < 0 or max_age_seconds < 0:
            msg = "max_done and max_age_seconds must be >= 0"
            raise ValueError(msg)
        self._max_done = max_done
        self._max_age = max_age_seconds
        self._clock = clock
        self._in_work: dict[JobKey, float] = {}
        self._done: OrderedDict[JobKey, float] = OrderedDict()
        self._by_job: Counter[uuid.UUID] = Counter()

    def state(self, job_id: uuid.UUID, attempt: int) -> JobState | None:
        """The state of this exact request (job_id, attempt), or None when not seen."""
        self._evict()
        key = (job_id, attempt)
        if key in self._in_work:
            return JobState.IN_WORK
        if key in self._done:
            return JobState.DONE
        return None

    def knows_job(self, job_id: uuid.UUID) -> bool:
        """True when any attempt of `job_id` is in work or done in this process."""
        self._evict()
        return self._by_job[job_id] > 0

    def start(self, job_id: uuid.UUID, attempt: int) -> None:
        """Record a request as taken; call before the first await that could interleave."""
        key = (job_id, attempt)
        if key in self._in_work:
            return
        if self._done.pop(key, None) is None:
            self._by_job[job_id] += 1
        self._in_work[key] = self._clock()

    def finish(self, job_id: uuid.UUID, attempt: int) -> None:
        """Move a request from in work to done; its age counts from now."""
        key = (job_id, attempt)
        if self._in_work.pop(key, None) is None:
            return
        self._done[key] = self._clock()
        self._evict()

    def in_work(self) -> list[tuple[uuid.UUID, int]]:
        """The requests being processed now, oldest first."""
        return list(self._in_work)

    def __len__(self) -> int:
        return len(self._in_work) + len(self._done)

    def _evict(self) -> None:
        now = self._clock()
        while self._done:
            key, finished = next(iter(self._done.items()))
            if len(self._done) <= self._max_done and now - finished <= self._max_age:
                break
            del self._done[key]
            self._by_job[key[0]] -= 1
            if self._by_job[key[0]] <= 0:
                del self._by_job[key[0]]
