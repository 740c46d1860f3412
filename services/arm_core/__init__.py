"""arm-core: uploads, recognition jobs (the outbox), intake of acks and results, REST API.

`create_app` lives in `services.arm_core.app` (imported lazily: it pulls in FastAPI and NATS).
"""

from __future__ import annotations

from services.arm_core.exceptions import (
    ApiProblem,
    ArmCoreError,
    Conflict,
    MappingError,
    NotFound,
    PublishFailed,
    Unavailable,
    UploadRejected,
)
from services.arm_core.intake import (
    MAPPING_ERROR,
    FinalResultHandler,
    Intake,
    IntakeOutcome,
    StagedFinalHandler,
    close_in_error,
    record_final_status,
    service_values,
)
from services.arm_core.relay import (
    REQUEST_INVALID,
    REQUEST_SCHEMA_VERSION,
    OutboxRelay,
    RelayPass,
    RequestPublisher,
    format_deadline,
    request_body,
)
from services.arm_core.results import (
    DEFAULT_RESULT_MAX_BYTES,
    ResultFileHandler,
    ResultReader,
    S3ResultReader,
)
from services.arm_core.settings import ROLES, AuthSettings, CoreSettings, Pipeline, is_loopback_host
from services.arm_core.sweeper import DeadlineSweeper

__all__ = [
    "DEFAULT_RESULT_MAX_BYTES",
    "MAPPING_ERROR",
    "REQUEST_INVALID",
    "REQUEST_SCHEMA_VERSION",
    "ROLES",
    "ApiProblem",
    "ArmCoreError",
    "AuthSettings",
    "Conflict",
    "CoreSettings",
    "DeadlineSweeper",
    "FinalResultHandler",
    "Intake",
    "IntakeOutcome",
    "MappingError",
    "NotFound",
    "OutboxRelay",
    "Pipeline",
    "PublishFailed",
    "RelayPass",
    "RequestPublisher",
    "ResultFileHandler",
    "ResultReader",
    "S3ResultReader",
    "StagedFinalHandler",
    "Unavailable",
    "UploadRejected",
    "close_in_error",
    "format_deadline",
    "is_loopback_host",
    "record_final_status",
    "request_body",
    "service_values",
]
