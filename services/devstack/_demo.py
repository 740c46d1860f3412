"""`python -m services.devstack --demo`: sample files through the running system, end to end.

Each generated sample (services.devstack._samples) is uploaded through the core's REST API,
its job followed until final, and printed with a summary of its documents and their checks
(from the core's documents read API; from the job alone when a core has none).
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from services.cli import CliError, CoreClient, summarise_job
from services.devstack._samples import Sample, samples

__all__ = ["run_demo"]

_OK = frozenset({"done", "needs_check"})


def run_demo(core_url: str, timeout: float = 120.0, *, out: TextIO | None = None) -> int:
    """Send every sample, follow its job; 0 when every job ended done or needs_check."""
    out = out or sys.stdout
    files = samples()
    print(f"\nDemo: {len(files)} sample files → {core_url}", file=out, flush=True)
    try:
        with CoreClient(core_url) as core:
            uploaded = [(sample, core.upload(sample.name, sample.data)) for sample in files]
            for sample, upload in uploaded:
                print(
                    f"  uploaded {sample.name:<24} {sample.description:<32} job {upload['job_id']}",
                    file=out,
                    flush=True,
                )
            finals = [_follow(core, sample, upload, timeout, out) for sample, upload in uploaded]
    except CliError as exc:
        print(f"demo failed: {exc.message}", file=out, flush=True)
        return 1
    statuses = [str(job.get("status")) for job in finals]
    print("\nDemo summary:", file=out)
    for sample, status in zip(files, statuses, strict=True):
        print(f"  {status:<12} {sample.name}", file=out)
    failed = sum(status not in _OK for status in statuses)
    verdict = "all recognised" if not failed else f"{failed} not recognised"
    print(f"  {len(files)} jobs: {verdict}", file=out, flush=True)
    return 0 if not failed else 1


def _follow(
    core: CoreClient, sample: Sample, upload: dict[str, Any], timeout: float, out: TextIO
) -> dict[str, Any]:
    job_id, file_id = str(upload["job_id"]), str(upload["file_id"])
    started = time.monotonic()
    trail: list[str] = []

    def seen(status: str, _job: dict[str, Any]) -> None:
        trail.append(f"{status} ({time.monotonic() - started:.1f}s)")

    try:
        job = core.follow(job_id, timeout=timeout, on_status=seen)
    except CliError as exc:
        print(f"\n{sample.name}: {exc.message}", file=out, flush=True)
        return {"job_id": job_id, "file_id": file_id, "status": "not final"}
    documents = core.documents(file_id, job_id)
    print(f"\n{summarise_job(job, documents, name=sample.name)}", file=out)
    print(f"  statuses: {' → '.join(trail)}", file=out, flush=True)
    return job
