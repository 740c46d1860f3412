"""What every service shares: settings, messaging, /healthcheck, S3 storage and logging.

The request protocol (`protocol`, its `backlog`), the worker sandbox (`sandbox`) and the
recogniser seam (`recognizer`) are imported from their own modules. The names below are re-exported lazily
(PEP 562): importing `services.runtime.recognizer` in a worker process must not pull in
FastStream, NATS and aiobotocore (tens of MB of every worker's RSS) through this package.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from services.runtime.exceptions import PublishGaveUp, RuntimeServiceError
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

_LAZY: dict[str, str] = {
    "DbSettings": "services.runtime.settings",
    "HEALTHCHECK_PATH": "services.runtime.health",
    "MSG_ID_HEADER": "services.runtime.ids",
    "MessagingError": "services.runtime.exceptions",
    "MissingMsgIdError": "services.runtime.exceptions",
    "MsgId": "services.runtime.ids",
    "MsgKind": "services.runtime.ids",
    "NatsSettings": "services.runtime.settings",
    "NatsState": "services.runtime.health",
    "ObjectInfo": "services.runtime.storage",
    "ObjectNotFound": "services.runtime.exceptions",
    "ObjectTooLarge": "services.runtime.exceptions",
    "PublishGaveUp": "services.runtime.exceptions",
    "PublishRetryMiddleware": "services.runtime.messaging",
    "REDACTED": "services.runtime.logging",
    "RETRYABLE_PUBLISH_ERRORS": "services.runtime.messaging",
    "RuntimeServiceError": "services.runtime.exceptions",
    "RedactingFilter": "services.runtime.logging",
    "RedactingFormatter": "services.runtime.logging",
    "S3Settings": "services.runtime.settings",
    "S3Storage": "services.runtime.storage",
    "SUBJECT_KEYS": "services.runtime.settings",
    "ScanSettings": "services.runtime.settings",
    "Settings": "services.runtime.settings",
    "SettingsError": "services.runtime.exceptions",
    "StorageError": "services.runtime.exceptions",
    "StorageUnavailable": "services.runtime.exceptions",
    "SubjectRole": "services.runtime.settings",
    "build_broker": "services.runtime.messaging",
    "configure_logging": "services.runtime.logging",
    "health_payload": "services.runtime.health",
    "healthcheck_route": "services.runtime.health",
    "load_settings": "services.runtime.settings",
    "log_subjects": "services.runtime.health",
    "msg_id": "services.runtime.ids",
    "nats_state": "services.runtime.health",
    "parse_request_msg_id": "services.runtime.ids",
    "redact": "services.runtime.logging",
    "register_secret": "services.runtime.logging",
    "registered_secrets": "services.runtime.logging",
    "validate_subjects": "services.runtime.settings",
}

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
    "PublishGaveUp",
    "PublishRetryMiddleware",
    "RedactingFilter",
    "RedactingFormatter",
    "RuntimeServiceError",
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


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
