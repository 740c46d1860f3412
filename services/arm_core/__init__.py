"""arm-core: uploads, recognition jobs (the outbox), intake of acks and results, REST API.

`create_app` lives in `services.arm_core.app` (imported lazily: it pulls in FastAPI and NATS).
"""

from __future__ import annotations

from services.arm_core.exceptions import (
    ApiProblem,
    ArmCoreError,
    MappingError,
    NotFound,
    PublishFailed,
    Unavailable,
    UploadRejected,
)
from services.arm_core.intake import (
    FinalResultHandler,
    Intake,
    IntakeOutcome,
    StagedFinalHandler,
    record_final_status,
)
from services.arm_core.relay import OutboxRelay, RelayPass, request_body
from services.arm_core.results import ResultFileHandler, ResultReader, S3ResultReader
from services.arm_core.settings import CoreSettings
from services.arm_core.sweeper import DeadlineSweeper

__all__ = [
    "ApiProblem",
    "ArmCoreError",
    "CoreSettings",
    "DeadlineSweeper",
    "FinalResultHandler",
    "Intake",
    "IntakeOutcome",
    "MappingError",
    "NotFound",
    "OutboxRelay",
    "PublishFailed",
    "RelayPass",
    "ResultFileHandler",
    "ResultReader",
    "S3ResultReader",
    "StagedFinalHandler",
    "Unavailable",
    "UploadRejected",
    "record_final_status",
    "request_body",
]
