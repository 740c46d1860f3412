"""What every service shares: settings, messaging, /healthcheck, S3 storage, logging, errors.

The request protocol (`protocol`, its `backlog`), the worker sandbox (`sandbox`) and the
recogniser seam (`recognizer`) are imported from their own modules. The names below are lazy
(PEP 562, `services._lazy`): importing `services.runtime.recognizer` in a worker process must
not pull in FastStream, NATS and aiobotocore (tens of MB of every worker's RSS) through this
package. Every exception of the runtime derives from `RuntimeServiceError` (`exceptions`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from services._lazy import lazy_exports

if TYPE_CHECKING:  # what mypy sees: the same names, typed; `X as X` marks them exported
    from services.runtime.exceptions import LocalFileError as LocalFileError
    from services.runtime.exceptions import MessagingError as MessagingError
    from services.runtime.exceptions import MissingMsgIdError as MissingMsgIdError
    from services.runtime.exceptions import ObjectNotFound as ObjectNotFound
    from services.runtime.exceptions import ObjectTooLarge as ObjectTooLarge
    from services.runtime.exceptions import PublishGaveUp as PublishGaveUp
    from services.runtime.exceptions import RuntimeServiceError as RuntimeServiceError
    from services.runtime.exceptions import SandboxBusy as SandboxBusy
    from services.runtime.exceptions import SandboxCpuTimeout as SandboxCpuTimeout
    from services.runtime.exceptions import SandboxCrashed as SandboxCrashed
    from services.runtime.exceptions import SandboxError as SandboxError
    from services.runtime.exceptions import SandboxMemoryError as SandboxMemoryError
    from services.runtime.exceptions import SandboxTaskFailed as SandboxTaskFailed
    from services.runtime.exceptions import SandboxTimeout as SandboxTimeout
    from services.runtime.exceptions import SettingsError as SettingsError
    from services.runtime.exceptions import StorageError as StorageError
    from services.runtime.exceptions import StorageUnavailable as StorageUnavailable
    from services.runtime.health import HEALTHCHECK_PATH as HEALTHCHECK_PATH
    from services.runtime.health import NatsState as NatsState
    from services.runtime.health import connected_server as connected_server
    from services.runtime.health import health_payload as health_payload
    from services.runtime.health import healthcheck_route as healthcheck_route
    from services.runtime.health import log_subjects as log_subjects
    from services.runtime.health import nats_state as nats_state
    from services.runtime.ids import ANSWER_KINDS as ANSWER_KINDS
    from services.runtime.ids import MSG_ID_HEADER as MSG_ID_HEADER
    from services.runtime.ids import PATTERNS as PATTERNS
    from services.runtime.ids import MsgId as MsgId
    from services.runtime.ids import MsgKind as MsgKind
    from services.runtime.ids import msg_id as msg_id
    from services.runtime.ids import parse_answer_msg_id as parse_answer_msg_id
    from services.runtime.ids import parse_msg_id as parse_msg_id
    from services.runtime.ids import parse_request_msg_id as parse_request_msg_id
    from services.runtime.ids import parse_uuid as parse_uuid
    from services.runtime.logging import REDACTED as REDACTED
    from services.runtime.logging import RedactingFilter as RedactingFilter
    from services.runtime.logging import RedactingFormatter as RedactingFormatter
    from services.runtime.logging import configure_logging as configure_logging
    from services.runtime.logging import redact as redact
    from services.runtime.logging import register_secret as register_secret
    from services.runtime.logging import registered_secrets as registered_secrets
    from services.runtime.messaging import RETRYABLE_PUBLISH_ERRORS as RETRYABLE_PUBLISH_ERRORS
    from services.runtime.messaging import PublishRetryMiddleware as PublishRetryMiddleware
    from services.runtime.messaging import build_broker as build_broker
    from services.runtime.settings import SUBJECT_KEYS as SUBJECT_KEYS
    from services.runtime.settings import DbSettings as DbSettings
    from services.runtime.settings import NatsSettings as NatsSettings
    from services.runtime.settings import RecognitionServiceSettings as RecognitionServiceSettings
    from services.runtime.settings import S3Settings as S3Settings
    from services.runtime.settings import ScanSettings as ScanSettings
    from services.runtime.settings import Settings as Settings
    from services.runtime.settings import SubjectRole as SubjectRole
    from services.runtime.settings import load_settings as load_settings
    from services.runtime.settings import plain_env as plain_env
    from services.runtime.settings import validate_subjects as validate_subjects
    from services.runtime.storage import ObjectInfo as ObjectInfo
    from services.runtime.storage import S3Storage as S3Storage

_LAZY: dict[str, str] = {
    "LocalFileError": "services.runtime.exceptions",
    "MessagingError": "services.runtime.exceptions",
    "MissingMsgIdError": "services.runtime.exceptions",
    "ObjectNotFound": "services.runtime.exceptions",
    "ObjectTooLarge": "services.runtime.exceptions",
    "PublishGaveUp": "services.runtime.exceptions",
    "RuntimeServiceError": "services.runtime.exceptions",
    "SandboxBusy": "services.runtime.exceptions",
    "SandboxCpuTimeout": "services.runtime.exceptions",
    "SandboxCrashed": "services.runtime.exceptions",
    "SandboxError": "services.runtime.exceptions",
    "SandboxMemoryError": "services.runtime.exceptions",
    "SandboxTaskFailed": "services.runtime.exceptions",
    "SandboxTimeout": "services.runtime.exceptions",
    "SettingsError": "services.runtime.exceptions",
    "StorageError": "services.runtime.exceptions",
    "StorageUnavailable": "services.runtime.exceptions",
    "HEALTHCHECK_PATH": "services.runtime.health",
    "NatsState": "services.runtime.health",
    "connected_server": "services.runtime.health",
    "health_payload": "services.runtime.health",
    "healthcheck_route": "services.runtime.health",
    "log_subjects": "services.runtime.health",
    "nats_state": "services.runtime.health",
    "ANSWER_KINDS": "services.runtime.ids",
    "MSG_ID_HEADER": "services.runtime.ids",
    "MsgId": "services.runtime.ids",
    "MsgKind": "services.runtime.ids",
    "PATTERNS": "services.runtime.ids",
    "msg_id": "services.runtime.ids",
    "parse_answer_msg_id": "services.runtime.ids",
    "parse_msg_id": "services.runtime.ids",
    "parse_request_msg_id": "services.runtime.ids",
    "parse_uuid": "services.runtime.ids",
    "REDACTED": "services.runtime.logging",
    "RedactingFilter": "services.runtime.logging",
    "RedactingFormatter": "services.runtime.logging",
    "configure_logging": "services.runtime.logging",
    "redact": "services.runtime.logging",
    "register_secret": "services.runtime.logging",
    "registered_secrets": "services.runtime.logging",
    "PublishRetryMiddleware": "services.runtime.messaging",
    "RETRYABLE_PUBLISH_ERRORS": "services.runtime.messaging",
    "build_broker": "services.runtime.messaging",
    "DbSettings": "services.runtime.settings",
    "NatsSettings": "services.runtime.settings",
    "RecognitionServiceSettings": "services.runtime.settings",
    "S3Settings": "services.runtime.settings",
    "SUBJECT_KEYS": "services.runtime.settings",
    "ScanSettings": "services.runtime.settings",
    "Settings": "services.runtime.settings",
    "SubjectRole": "services.runtime.settings",
    "load_settings": "services.runtime.settings",
    "plain_env": "services.runtime.settings",
    "validate_subjects": "services.runtime.settings",
    "ObjectInfo": "services.runtime.storage",
    "S3Storage": "services.runtime.storage",
}
"""Each name the package shows → the module that defines it, imported on first use."""

__all__ = sorted(_LAZY)

if not TYPE_CHECKING:  # mypy resolves the names above, and flags any other
    __getattr__, __dir__ = lazy_exports(globals(), _LAZY)
