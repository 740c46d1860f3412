"""The bounded memory of taken jobs (services.runtime._protocol_memory)."""

from __future__ import annotations

import uuid

from services.runtime.protocol import JobMemory, JobState


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_started_job_is_in_work_then_done() -> None:
    """A request is in work from start() and done after finish()."""
    memory = JobMemory(max_done=10, max_age_seconds=60)
    job = uuid.uuid4()
    assert memory.state(job, 1) is None
    memory.start(job, 1)
    assert memory.state(job, 1) is JobState.IN_WORK
    memory.finish(job, 1)
    assert memory.state(job, 1) is JobState.DONE


def test_another_attempt_is_a_new_request_but_the_job_is_known() -> None:
    """(job_id, attempt) is the key of a request; knows_job sees any attempt."""
    memory = JobMemory(max_done=10, max_age_seconds=60)
    job = uuid.uuid4()
    memory.start(job, 1)
    assert memory.state(job, 2) is None
    assert memory.knows_job(job)
    assert not memory.knows_job(uuid.uuid4())


def test_done_jobs_beyond_max_are_forgotten_oldest_first() -> None:
    """Only the newest max_done finished jobs are kept."""
    memory = JobMemory(max_done=2, max_age_seconds=3600)
    jobs = [uuid.uuid4() for _ in range(3)]
    for job in jobs:
        memory.start(job, 1)
        memory.finish(job, 1)
    assert memory.state(jobs[0], 1) is None
    assert not memory.knows_job(jobs[0])
    assert memory.state(jobs[1], 1) is JobState.DONE
    assert memory.state(jobs[2], 1) is JobState.DONE
    assert len(memory) == 2


def test_done_jobs_older_than_max_age_are_forgotten() -> None:
    """A finished job is forgotten max_age_seconds after it finished."""
    clock = FakeClock()
    memory = JobMemory(max_done=100, max_age_seconds=60, clock=clock)
    job = uuid.uuid4()
    memory.start(job, 1)
    clock.now += 1000  # time in work does not count
    memory.finish(job, 1)
    clock.now += 59
    assert memory.state(job, 1) is JobState.DONE
    clock.now += 2
    assert memory.state(job, 1) is None
    assert not memory.knows_job(job)


def test_jobs_in_work_are_never_evicted() -> None:
    """Neither the count bound nor the age bound forgets a job in work."""
    clock = FakeClock()
    memory = JobMemory(max_done=0, max_age_seconds=1, clock=clock)
    busy = uuid.uuid4()
    memory.start(busy, 3)
    for _ in range(5):
        other = uuid.uuid4()
        memory.start(other, 1)
        memory.finish(other, 1)
    clock.now += 10_000
    assert memory.state(busy, 3) is JobState.IN_WORK
    assert memory.knows_job(busy)
    assert memory.in_work() == [(busy, 3)]
    assert len(memory) == 1


def test_restarting_a_done_request_keeps_one_entry() -> None:
    """start() of a done request moves it back to in work without double counting."""
    memory = JobMemory(max_done=10, max_age_seconds=60)
    job = uuid.uuid4()
    memory.start(job, 1)
    memory.finish(job, 1)
    memory.start(job, 1)
    assert memory.state(job, 1) is JobState.IN_WORK
    memory.finish(job, 1)
    assert len(memory) == 1
