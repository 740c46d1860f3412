"""A running scan's pages done, read from what scan-gateway stores beside the job's result.

scan-gateway's local recogniser writes `results/{file_id}/{job_id}/progress.json`
(`{"pages_done": 2, "pages_total": 5}`, `services/scan_gateway/progress.py`) while a scan is
recognised: a side file in the result prefix, no contract field. Here it is read for the files
list, the file page and the job's API view while the job is processing. Absent (the scanning
system, a workbook, nothing read yet), unreadable or malformed, it is no progress — never a
guessed one (decision 0037).
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

from services.arm_core.db.models import StoredFile
from services.runtime.storage import S3Storage, StorageError

__all__ = ["PagesDone", "ProgressReader", "progress_key"]

_MAX_PROGRESS_BYTES = 4096


def progress_key(file_id: uuid.UUID, job_id: uuid.UUID) -> str:
    """The progress file of a job: beside its result file (the contract's results layout)."""
    return f"results/{file_id}/{job_id}/progress.json"


@dataclass(frozen=True, slots=True)
class PagesDone:
    """The pages a recognition has finished of all it reads."""

    done: int
    total: int


class ProgressReader:
    """Reads progress files from the results bucket (else the file's own bucket)."""

    def __init__(self, storage: S3Storage, results_bucket: str | None = None) -> None:
        self._storage = storage
        self._results_bucket = results_bucket

    async def pages_done(self, stored: StoredFile, job_id: uuid.UUID) -> PagesDone | None:
        """What the recogniser last stored for the job, or None (see the module)."""
        bucket = self._results_bucket or stored.s3_bucket
        try:
            data = await self._storage.get_bytes(
                bucket, progress_key(stored.id, job_id), _MAX_PROGRESS_BYTES
            )
        except StorageError:  # absent, too large, S3 away: the page asks again at its refresh
            return None
        return _pages_in(data)


def _pages_in(data: bytes) -> PagesDone | None:
    """The pages of a progress file, None unless it says 0 ≤ done ≤ total, total > 0."""
    try:
        document: Any = json.loads(data)
    except ValueError:
        return None
    if not isinstance(document, dict):
        return None
    done, total = document.get("pages_done"), document.get("pages_total")
    if type(done) is not int or type(total) is not int or not 0 <= done <= total or total < 1:
        return None
    return PagesDone(done, total)
