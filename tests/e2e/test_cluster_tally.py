"""The cluster tests' tally flags what they must fail on (no servers: the rules alone)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from tests.e2e._cluster import Tally


def _job(job_id: str, attempt: int = 1, status: str = "done", republished: int = 0) -> Any:
    return {"job_id": job_id, "attempt": attempt, "status": status, "republish_count": republished}


def _tally(copies: dict[str, int], retries: Counter[str], jobs: list[Any]) -> Tally:
    return Tally(
        scenario="rules",
        files={f"file-{n}": [job] for n, job in enumerate(jobs)},
        recovery_seconds=[0.1],
        duplicates_dropped=0,
        repeats_answered=0,
        result_copies=copies,
        publish_retries=retries,
        elapsed=1.0,
    )


def test_a_result_twice_without_republish_or_retry_is_flagged() -> None:
    """Two copies of one result: unexplained unless the request was republished (a second
    recognition) or the service logged a publish retry of that result."""
    copies = {"result:a:1": 2, "result:b:1": 2, "result:c:1": 2, "result:d:1": 1}
    jobs = [_job("a"), _job("b", republished=1), _job("c"), _job("d")]
    tally = _tally(copies, Counter({"result:c:1": 1}), jobs)
    assert tally.unexplained_double_results() == ["result:a:1: 2 copies, 1 allowed"]


def test_figures_count_files_jobs_and_automatic_attempts() -> None:
    """done counts files whose latest job is done; retried counts files with a second job."""
    tally = Tally(
        scenario="rules",
        files={
            "f1": [_job("a", status="timeout"), _job("b", attempt=2)],
            "f2": [_job("c")],
            "f3": [_job("d", status="timeout")],
        },
        recovery_seconds=[],
        duplicates_dropped=0,
        repeats_answered=0,
        result_copies={},
        publish_retries=Counter(),
        elapsed=1.0,
    )
    assert (tally.done, tally.count("timeout"), tally.retried) == (2, 2, 1)
