"""What every service shares: settings, messaging, /healthcheck, S3 storage, logging, and the
embedded servers for tests and the local stack.

The request protocol (`protocol`), the worker sandbox (`sandbox`) and the recogniser seam
(`recognizer`) are imported from their own modules.
"""

from __future__ import annotations

from services.runtime.health import (
    HEALTHCHECK_PATH,
    NatsState,
    health_payload,
    healthcheck_route,
    log_subjects,
    nats_state,
)
from services.runtime.logging import (
    REDACTED,
    RedactingFilter,
    RedactingFormatter,
    configure_logging,
    redact,
    register_secret,
    registered_secrets,
)
from services.runtime.messaging import (
    MSG_ID_HEADER,
    RETRYABLE_PUBLISH_ERRORS,
    MessagingError,
    MissingMsgIdError,
    MsgId,
    MsgKind,
    PublishRetryMiddleware,
    build_broker,
    msg_id,
    parse_request_msg_id,
)
from services.runtime.settings import (
    SUBJECT_KEYS,
    DbSettings,
    NatsSettings,
    S3Settings,
    ScanSettings,
    Settings,
    SettingsError,
    SubjectRole,
    load_settings,
    validate_subjects,
)
from services.runtime.storage import (
    ObjectInfo,
    ObjectNotFound,
    ObjectTooLarge,
    S3Storage,
    StorageError,
    StorageUnavailable,
)

__all__ = [
    "HEALTHCHECK_PATH",
    "MSG_ID_HEADER",
    "REDACTED",
    "RETRYABLE_PUBLISH_ERRORS",
    "SUBJECT_KEYS",
    "DbSettings",
    "MessagingError",
    "MissingMsgIdError",
    "MsgId",
    "MsgKind",
    "NatsSettings",
    "NatsState",
    "ObjectInfo",
    "ObjectNotFound",
    "ObjectTooLarge",
    "PublishRetryMiddleware",
    "RedactingFilter",
    "RedactingFormatter",
    "S3Settings",
    "S3Storage",
    "ScanSettings",
    "Settings",
    "SettingsError",
    "StorageError",
    "StorageUnavailable",
    "SubjectRole",
    "build_broker",
    "configure_logging",
    "health_payload",
    "healthcheck_route",
    "load_settings",
    "log_subjects",
    "msg_id",
    "nats_state",
    "parse_request_msg_id",
    "redact",
    "register_secret",
    "registered_secrets",
    "validate_subjects",
]
