"""arm-core's own knobs on top of the shared `Settings`.

Plain environment names, like the spec's tuning knobs: how long each pipeline gets to answer
(reply_deadline = publish time + budget), the upload size limit, the relay's rhythm
(ACK_TIMEOUT_SECONDS and OUTBOX_MAX_REPUBLISH of spec 001 are the core's alone, since only its
relay republishes), and the one automatic new attempt after a timeout. The OpenID Connect
provider the REST API and the page trust is the group `OPENBAO__AUTH__*` (`AuthSettings`): its
client secret is a secret kept in OpenBao like the other credentials. The ГИР БО public API
the dossiers are held against is the group `OPENBAO__GIRBO__*` (`GirboSettings`; off unset).
"""

from __future__ import annotations

import datetime as dt
import ipaddress
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator

from services.contract.filetypes import UPLOAD_MAX_BYTES
from services.documents_io.pages import MAX_PAGE_PIXELS
from services.runtime.file_workers import FileWorkerLimits
from services.runtime.settings import Settings, SettingsError, plain_env

__all__ = ["ROLES", "AuthSettings", "CoreSettings", "GirboSettings", "Pipeline", "is_loopback_host"]

Pipeline = Literal["tabular", "image"]

# The roles of arm-core: integrator (upload, read), analyst (read, correct, mark reviewed,
# export), admin (delete, and everything the others may do).
ROLES: frozenset[str] = frozenset({"integrator", "analyst", "admin"})

# Symmetric algorithms would let anyone holding the verification key sign tokens.
_ASYMMETRIC = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
)
_KEY = "OPENBAO__AUTH__AUTH_"


def is_loopback_host(host: str | None) -> bool:
    """True for localhost, 127.0.0.0/8 and ::1; False for anything else (0.0.0.0 included)."""
    if not host:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class AuthSettings(BaseModel):
    """`OPENBAO__AUTH__*`: the OpenID Connect provider whose tokens arm-core accepts.

    No issuer: the embedded, unauthenticated default (loopback only). With an issuer, the
    client id is required (the page logs in as that client; it is the default audience).
    """

    model_config = ConfigDict(frozen=True, extra="ignore")

    auth_issuer: str | None = None
    auth_client_id: str | None = None
    auth_client_secret: SecretStr | None = None
    auth_audience: str | None = None
    auth_roles_claim: str = "realm_access.roles"
    auth_role_map: dict[str, str] = Field(default_factory=dict)
    auth_algorithms: str = "RS256"
    auth_leeway_seconds: float = Field(30.0, ge=0, le=300)
    auth_jwks_lifespan_seconds: float = Field(300.0, gt=0)
    auth_jwks_cooldown_seconds: float = Field(30.0, ge=0)
    auth_http_timeout_seconds: float = Field(5.0, gt=0)
    auth_redirect_url: str | None = None
    # The key sealing the refresh cookie (auth/seal.py); replicas must share it. Unset: a
    # random key per process (sessions do not survive a restart or move between replicas).
    auth_cookie_key: SecretStr | None = None
    # New renewals per subject and minute (auth/session.py; decision 0038).
    auth_renewals_per_minute: int = Field(30, ge=1)

    @field_validator(
        "auth_issuer",
        "auth_client_id",
        "auth_client_secret",
        "auth_audience",
        "auth_cookie_key",
        mode="before",
    )
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        if isinstance(value, str) and not value.strip():
            return None
        return value.strip() if isinstance(value, str) else value

    @model_validator(mode="after")
    def _check(self) -> AuthSettings:
        problems: dict[str, str] = {}
        if self.auth_issuer is not None and not _is_secure_url(self.auth_issuer):
            problems[_KEY + "ISSUER"] = "must be an https URL (http only on a loopback host)"
        if self.auth_issuer is not None and self.auth_client_id is None:
            problems[_KEY + "CLIENT_ID"] = "is required when AUTH_ISSUER is set"
        if not self.algorithms or not set(self.algorithms) <= _ASYMMETRIC:
            problems[_KEY + "ALGORITHMS"] = "must name asymmetric JWS algorithms only (RS256…)"
        if not self.auth_roles_claim or any(not p for p in self.auth_roles_claim.split(".")):
            problems[_KEY + "ROLES_CLAIM"] = "must be a dotted claim path (realm_access.roles)"
        if not set(self.auth_role_map.values()) <= ROLES:
            problems[_KEY + "ROLE_MAP"] = f"must map to the roles {', '.join(sorted(ROLES))}"
        if self.auth_redirect_url is not None and urlsplit(self.auth_redirect_url).scheme not in (
            "http",
            "https",
        ):
            problems[_KEY + "REDIRECT_URL"] = "must be an absolute http(s) URL"
        key = self.auth_cookie_key
        if key is not None and len(key.get_secret_value()) < 32:
            problems[_KEY + "COOKIE_KEY"] = "must be at least 32 characters (a random secret)"
        if problems:
            raise SettingsError(problems)
        return self

    @property
    def enabled(self) -> bool:
        """True when tokens are checked (an issuer is configured)."""
        return self.auth_issuer is not None

    @property
    def algorithms(self) -> list[str]:
        """AUTH_ALGORITHMS split on commas."""
        return [part.strip() for part in self.auth_algorithms.split(",") if part.strip()]

    @property
    def audience(self) -> str | None:
        """The `aud` a token must carry: AUTH_AUDIENCE, else the client id."""
        return self.auth_audience or self.auth_client_id


def _is_secure_url(url: str) -> bool:
    parts = urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return True
    return parts.scheme == "http" and is_loopback_host(parts.hostname)


class GirboSettings(BaseModel):
    """`OPENBAO__GIRBO__*`: the ГИР БО public API whose official filings each dossier is held
    against. No URL: the comparison is off (a bank network may not reach bo.nalog.gov.ru)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    girbo_url: str | None = None
    girbo_timeout_seconds: float = Field(5.0, gt=0, le=60)
    girbo_cache_seconds: float = Field(86400.0, ge=0)
    girbo_retry_seconds: float = Field(60.0, ge=0)

    @field_validator("girbo_url", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        if isinstance(value, str):
            return value.strip() or None
        return value

    @model_validator(mode="after")
    def _check(self) -> GirboSettings:
        if self.girbo_url is not None:
            parts = urlsplit(self.girbo_url)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise SettingsError(
                    {"OPENBAO__GIRBO__GIRBO_URL": "must be an absolute http(s) URL"}
                )
        return self

    @property
    def enabled(self) -> bool:
        """True when dossiers are held against the official filing."""
        return self.girbo_url is not None


class CoreSettings(Settings):
    """Settings of arm-core (`load_settings(CoreSettings)`)."""

    ack_timeout_seconds: float = Field(
        30.0, gt=0, validation_alias=plain_env("ACK_TIMEOUT_SECONDS")
    )
    outbox_max_republish: int = Field(3, ge=0, validation_alias=plain_env("OUTBOX_MAX_REPUBLISH"))

    tabular_reply_budget_seconds: float = Field(
        600.0, gt=0, validation_alias=plain_env("TABULAR_REPLY_BUDGET_SECONDS")
    )
    image_reply_budget_seconds: float = Field(
        1800.0, gt=0, validation_alias=plain_env("IMAGE_REPLY_BUDGET_SECONDS")
    )
    upload_max_bytes: int = Field(
        UPLOAD_MAX_BYTES, gt=0, validation_alias=plain_env("UPLOAD_MAX_BYTES")
    )
    # The page's upload of several files in one request: at most this many files, and this
    # many bytes together (each file still within UPLOAD_MAX_BYTES); decision 0038.
    upload_max_files: int = Field(20, ge=1, le=1000, validation_alias=plain_env("UPLOAD_MAX_FILES"))
    upload_request_max_bytes: int = Field(
        256 * 1024 * 1024, gt=0, validation_alias=plain_env("UPLOAD_REQUEST_MAX_BYTES")
    )
    # Any request body but an upload (JSON corrections, the pages' forms), checked before
    # it is read or parsed (services/arm_core/rest/bodies.py).
    body_max_bytes: int = Field(64 * 1024, gt=0, validation_alias=plain_env("BODY_MAX_BYTES"))
    result_max_bytes: int = Field(
        64 * 1024 * 1024, gt=0, validation_alias=plain_env("RESULT_MAX_BYTES")
    )
    relay_poll_interval_seconds: float = Field(
        0.5, gt=0, validation_alias=plain_env("RELAY_POLL_INTERVAL_SECONDS")
    )
    # Uploads whose row never committed (a core killed mid-upload): swept this often, once
    # older than the grace (services/arm_core/jobs/orphans.py).
    orphan_sweep_interval_seconds: float = Field(
        3600.0, gt=0, validation_alias=plain_env("ORPHAN_SWEEP_INTERVAL_SECONDS")
    )
    orphan_grace_seconds: float = Field(
        3600.0, ge=60, validation_alias=plain_env("ORPHAN_GRACE_SECONDS")
    )
    relay_batch_size: int = Field(100, gt=0, validation_alias=plain_env("RELAY_BATCH_SIZE"))
    # A job that times out (no result by its reply_deadline) gets one automatic new attempt
    # of its file (decision 0014: a result lost with a NATS node costs time, not work).
    timeout_new_attempt: bool = Field(True, validation_alias=plain_env("TIMEOUT_NEW_ATTEMPT"))
    # None: migrate at start only for SQLite (the embedded default); PostgreSQL is migrated
    # by `python -m services.arm_core migrate` as a deployment step.
    db_migrate_on_start: bool | None = Field(
        None, validation_alias=plain_env("DB_MIGRATE_ON_START")
    )
    # The sandboxed workers that read borrowers' files on request (page images, TIFF → PDF,
    # windows of cells): how many run, how many may wait, and each one's limits.
    file_workers: int = Field(2, ge=1, le=32, validation_alias=plain_env("FILE_WORKERS"))
    file_workers_waiting: int = Field(
        8, ge=0, le=256, validation_alias=plain_env("FILE_WORKERS_WAITING")
    )
    file_worker_memory_mb: int = Field(
        1024, ge=128, validation_alias=plain_env("FILE_WORKER_MEMORY_MB")
    )
    file_worker_cpu_seconds: int = Field(
        30, ge=1, validation_alias=plain_env("FILE_WORKER_CPU_SECONDS")
    )
    file_worker_timeout_seconds: float = Field(
        60.0, gt=0, validation_alias=plain_env("FILE_WORKER_TIMEOUT_SECONDS")
    )
    page_max_pixels: int = Field(
        MAX_PAGE_PIXELS, ge=10_000, validation_alias=plain_env("PAGE_MAX_PIXELS")
    )
    auth: AuthSettings = AuthSettings()
    girbo: GirboSettings = GirboSettings()

    @model_validator(mode="after")
    def _check_upload_bounds(self) -> CoreSettings:
        # One file of the largest size must fit in the page's request of several.
        if self.upload_request_max_bytes < self.upload_max_bytes:
            raise SettingsError({"UPLOAD_REQUEST_MAX_BYTES": "must be at least UPLOAD_MAX_BYTES"})
        return self

    def file_worker_limits(self) -> FileWorkerLimits:
        """The limits of the file-reading workers (FILE_WORKER_*)."""
        return FileWorkerLimits(
            workers=self.file_workers,
            waiting=self.file_workers_waiting,
            memory_mb=self.file_worker_memory_mb,
            cpu_seconds=self.file_worker_cpu_seconds,
            timeout_seconds=self.file_worker_timeout_seconds,
        )

    def reply_budget(self, pipeline: str) -> dt.timedelta:
        """How long a service of `pipeline` has from publish to final result."""
        if pipeline == "tabular":
            return dt.timedelta(seconds=self.tabular_reply_budget_seconds)
        if pipeline == "image":
            return dt.timedelta(seconds=self.image_reply_budget_seconds)
        msg = f"unknown pipeline {pipeline!r}"
        raise ValueError(msg)

    def request_subject(self, pipeline: str) -> str:
        """The request subject of `pipeline` (the subject must match the pipeline)."""
        if pipeline == "tabular":
            return self.nats.nats_tabular_request_subject
        if pipeline == "image":
            return self.nats.nats_image_request_subject
        msg = f"unknown pipeline {pipeline!r}"
        raise ValueError(msg)

    @property
    def ack_timeout(self) -> dt.timedelta:
        """ACK_TIMEOUT_SECONDS as a timedelta."""
        return dt.timedelta(seconds=self.ack_timeout_seconds)
