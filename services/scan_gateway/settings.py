"""scan-gateway settings: the shared base plus this service's knobs (plain environment names).

`JOBS_IN_FLIGHT` (jobs worked on at once; requests are acked on arrival whatever it is),
`BACKLOG_MAX` (acked jobs waiting for a slot), `MAX_OBJECT_BYTES`,
`SEEN_JOBS_MAX` / `SEEN_JOBS_MAX_AGE_SECONDS`; the worker processes of the local recogniser are
the group `pool` (`OcrPool`: `OCR_WORKERS`, `OCR_TIMEOUT_SECONDS`, `OCR_MEMORY_MB`,
`OCR_MAX_TASKS_PER_CHILD`, `OCR_NICE`); `OCR_DPI`, `TESSERACT_CMD`; the scanning-system client:
`SCAN_CALL_TIMEOUT_SECONDS` (one HTTP call), `SCAN_RETRIES` and `SCAN_BACKOFF_SECONDS`
(5xx / connection errors), `SCAN_POLL_INTERVAL_SECONDS`, `SCAN_MAX_SECONDS` (the whole
exchange, on top of the job's reply_deadline); `GRACEFUL_TIMEOUT_SECONDS`.
The scanning system itself is `OPENBAO__SCAN__SCAN_URL` / `OPENBAO__SCAN__SCAN_TOKEN` (base
settings); without a URL the local recogniser is used.
"""

from __future__ import annotations

from pydantic import Field

from services.runtime.settings import RecognitionServiceSettings, plain_env
from services.runtime.worker_pool import WorkerPoolSettings

__all__ = ["OcrPool", "ScanGatewaySettings"]


class OcrPool(WorkerPoolSettings):
    """`OCR_*`: the worker processes of the local recogniser."""

    workers: int = Field(2, ge=1, le=64, validation_alias=plain_env("OCR_WORKERS"))
    timeout_seconds: float = Field(300.0, gt=0, validation_alias=plain_env("OCR_TIMEOUT_SECONDS"))
    memory_mb: int = Field(2048, ge=64, validation_alias=plain_env("OCR_MEMORY_MB"))
    max_tasks_per_child: int = Field(
        20, ge=1, validation_alias=plain_env("OCR_MAX_TASKS_PER_CHILD")
    )
    nice: int = Field(0, ge=0, le=19, validation_alias=plain_env("OCR_NICE"))


class ScanGatewaySettings(RecognitionServiceSettings):
    """Settings of the scan-gateway service."""

    pool: OcrPool = OcrPool()
    ocr_dpi: int = Field(300, ge=72, le=600, validation_alias=plain_env("OCR_DPI"))
    tesseract_cmd: str = Field(
        "tesseract", min_length=1, validation_alias=plain_env("TESSERACT_CMD")
    )
    scan_call_timeout_seconds: float = Field(
        10.0, gt=0, validation_alias=plain_env("SCAN_CALL_TIMEOUT_SECONDS")
    )
    scan_retries: int = Field(3, ge=0, le=20, validation_alias=plain_env("SCAN_RETRIES"))
    scan_backoff_seconds: float = Field(
        0.2, ge=0, validation_alias=plain_env("SCAN_BACKOFF_SECONDS")
    )
    scan_poll_interval_seconds: float = Field(
        0.5, gt=0, validation_alias=plain_env("SCAN_POLL_INTERVAL_SECONDS")
    )
    scan_max_seconds: float = Field(600.0, gt=0, validation_alias=plain_env("SCAN_MAX_SECONDS"))
