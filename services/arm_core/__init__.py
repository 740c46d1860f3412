"""arm-core: uploads, recognition jobs (the outbox), intake of acks and results, REST API.

Its rooms: `jobs/` (uploads, outbox relay, intake, results, sweeper, retention), `documents/`
(store, read, corrections, review, export, listing), `rest/` (the API and its problems), `web/`
(the pages), `auth/`, `db/`.

`create_app` lives in `services.arm_core.app` (imported lazily: it pulls in FastAPI and NATS).
"""

from __future__ import annotations

from services.arm_core.exceptions import (
    ArmCoreError,
    DoubtsLeft,
    EmptyFile,
    FileOverLimits,
    FilesBusy,
    FileTooLarge,
    FileTypeMismatch,
    InvalidCorrection,
    InvalidFileName,
    JobInFlight,
    MappingError,
    MissingFileName,
    NoEvidence,
    NotAnOsvDocument,
    NotFound,
    PublishFailed,
    Refused,
    Unavailable,
    UnsupportedFileContent,
    UnsupportedFileType,
    UploadRejected,
)
from services.arm_core.jobs.intake import (
    MAPPING_ERROR,
    FinalResultHandler,
    Intake,
    IntakeOutcome,
    StagedFinalHandler,
    close_in_error,
    record_final_status,
    service_values,
)
from services.arm_core.jobs.relay import (
    REQUEST_INVALID,
    REQUEST_SCHEMA_VERSION,
    OutboxRelay,
    RelayPass,
    RequestPublisher,
    format_deadline,
    request_body,
)
from services.arm_core.jobs.results import (
    DEFAULT_RESULT_MAX_BYTES,
    ResultFileHandler,
    ResultReader,
    S3ResultReader,
)
from services.arm_core.jobs.sweeper import DeadlineSweeper
from services.arm_core.settings import (
    ROLES,
    AuthSettings,
    CoreSettings,
    GirboSettings,
    Pipeline,
    is_loopback_host,
)

__all__ = [
    "DEFAULT_RESULT_MAX_BYTES",
    "MAPPING_ERROR",
    "REQUEST_INVALID",
    "REQUEST_SCHEMA_VERSION",
    "ROLES",
    "ArmCoreError",
    "AuthSettings",
    "CoreSettings",
    "DeadlineSweeper",
    "DoubtsLeft",
    "EmptyFile",
    "FileOverLimits",
    "FileTooLarge",
    "FileTypeMismatch",
    "FilesBusy",
    "FinalResultHandler",
    "GirboSettings",
    "Intake",
    "IntakeOutcome",
    "InvalidCorrection",
    "InvalidFileName",
    "JobInFlight",
    "MappingError",
    "MissingFileName",
    "NoEvidence",
    "NotAnOsvDocument",
    "NotFound",
    "OutboxRelay",
    "Pipeline",
    "PublishFailed",
    "Refused",
    "RelayPass",
    "RequestPublisher",
    "ResultFileHandler",
    "ResultReader",
    "S3ResultReader",
    "StagedFinalHandler",
    "Unavailable",
    "UnsupportedFileContent",
    "UnsupportedFileType",
    "UploadRejected",
    "close_in_error",
    "format_deadline",
    "is_loopback_host",
    "record_final_status",
    "request_body",
    "service_values",
]
