"""Settings shared by the three services, read from the environment at start.

Names are fixed by spec 001: a group (`OPENBAO__NATS__`, `OPENBAO__S3__`, ...) then the key with
the group's prefix (`OPENBAO__NATS__NATS_URL`); tuning knobs keep plain names
(`PUBLISH_RETRIES`). A service adds its own knobs by subclassing `Settings`.

Secrets (NATS JWT and seed, S3 keys, the database URL, the scan token) are `SecretStr`. Pydantic's
`ValidationError` quotes input values, so building settings goes through one boundary
(`Settings.__init__`, used by `load_settings`) that turns it into a `SettingsError` naming
every offending environment key at once and carrying no value at all
(services.runtime.settings_errors). NATS authentication (checking and using the JWT and seed)
lives in services.runtime.nats_auth.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Literal, TypeVar, overload

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict
from pydantic_settings import SettingsError as _SourceError

from services.runtime import nats_auth
from services.runtime.exceptions import SettingsError
from services.runtime.logging import register_secret
from services.runtime.settings_errors import ENV_PREFIX, translate
from services.runtime.worker_pool import PlainGroupSource, WorkerPoolSettings

__all__ = [
    "SUBJECT_KEYS",
    "DbSettings",
    "NatsSettings",
    "RecognitionServiceSettings",
    "S3Settings",
    "ScanSettings",
    "Settings",
    "SettingsError",
    "SubjectRole",
    "load_settings",
    "plain_env",
    "validate_subjects",
]

SubjectRole = Literal["tabular_request", "image_request", "result"]

SUBJECT_KEYS: Mapping[SubjectRole, str] = {
    "tabular_request": "OPENBAO__NATS__NATS_TABULAR_REQUEST_SUBJECT",
    "image_request": "OPENBAO__NATS__NATS_IMAGE_REQUEST_SUBJECT",
    "result": "OPENBAO__NATS__NATS_RESULT_SUBJECT",
}


def validate_subjects(subjects: Mapping[str, str]) -> None:
    """Apply spec 001's subject rules to `{env key: subject}`; raise `SettingsError` naming keys.

    Rules: non-empty, no whitespace, no wildcard `*` or `>`, no empty token, pairwise distinct.
    """
    problems = _subjects_problems(subjects)
    if problems:
        raise SettingsError(problems)


def _subjects_problems(subjects: Mapping[str, str]) -> dict[str, str]:
    problems: dict[str, str] = {}
    for key, subject in subjects.items():
        why = _subject_problem(subject)
        if why is not None:
            problems[key] = why
    seen: dict[str, str] = {}
    for key, subject in subjects.items():
        if key in problems:
            continue
        if subject in seen:
            problems[key] = f"must differ from {seen[subject]} (both are {subject!r})"
        else:
            seen[subject] = key
    return problems


def _subject_problem(subject: str) -> str | None:
    if not subject:
        return "must not be empty"
    if any(ch.isspace() for ch in subject):
        return f"must not contain whitespace (got {subject!r})"
    if "*" in subject or ">" in subject:
        return f"must not contain the wildcards '*' or '>' (got {subject!r})"
    if any(token == "" for token in subject.split(".")):
        return (
            f"must not contain an empty token: a leading, trailing or doubled '.' (got {subject!r})"
        )
    return None


class _Group(BaseModel):
    """A settings group: frozen, unknown keys ignored (the environment holds other things)."""

    model_config = ConfigDict(frozen=True, extra="ignore")


class NatsSettings(_Group):
    """`OPENBAO__NATS__*`: servers, the three subjects and the optional user credentials."""

    nats_url: str = "nats://127.0.0.1:4222"
    nats_tabular_request_subject: str = "files.tabular_uploaded"
    nats_image_request_subject: str = "files.img_uploaded"
    nats_result_subject: str = "files.tabular_parsed"
    nats_jwt: SecretStr | None = None
    nats_seed: SecretStr | None = None

    @field_validator("nats_jwt", "nats_seed", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        # An empty env var means "no credentials", as in the local stack.
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @model_validator(mode="after")
    def _check(self) -> NatsSettings:
        # One pass over every rule (credentials included), so that one error never hides
        # another: an operator fixes the lot after one failed start.
        problems = _subjects_problems(
            {SUBJECT_KEYS[role]: self.subject(role) for role in SUBJECT_KEYS}
        )
        jwt_problem = nats_auth.jwt_problem(self.nats_jwt)
        if jwt_problem is not None:
            problems["OPENBAO__NATS__NATS_JWT"] = jwt_problem
        seed_problem = nats_auth.seed_problem(self.nats_seed)
        if seed_problem is not None:
            problems["OPENBAO__NATS__NATS_SEED"] = seed_problem
        elif self.nats_jwt is not None and self.nats_seed is None:
            problems["OPENBAO__NATS__NATS_SEED"] = "is required when NATS_JWT is set"
        if not self.servers:
            problems["OPENBAO__NATS__NATS_URL"] = "must name at least one server"
        if problems:
            raise SettingsError(problems)
        return self

    def subject(self, role: SubjectRole) -> str:
        """The subject configured for one role."""
        match role:
            case "tabular_request":
                return self.nats_tabular_request_subject
            case "image_request":
                return self.nats_image_request_subject
            case "result":
                return self.nats_result_subject

    def subjects(self, *roles: SubjectRole) -> dict[str, str]:
        """`{role: subject}` for the given roles (all three when none given), for logs and
        /healthcheck."""
        return {role: self.subject(role) for role in (roles or tuple(SUBJECT_KEYS))}

    @property
    def servers(self) -> list[str]:
        """`nats_url` split on commas."""
        return [url.strip() for url in self.nats_url.split(",") if url.strip()]

    def connect_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for `nats.connect`: the servers and, when set, the credentials
        (services.runtime.nats_auth)."""
        return nats_auth.connect_kwargs(self.servers, self.nats_jwt, self.nats_seed)

    def security(self) -> Any:
        """The same credentials as a FastStream `security=` object (None without credentials)."""
        return nats_auth.security(self.nats_jwt, self.nats_seed)


class S3Settings(_Group):
    """`OPENBAO__S3__*`: the S3 endpoint, region, keys and buckets."""

    s3_endpoint_url: str | None = None
    s3_region: str = "us-east-1"
    s3_access_key: SecretStr | None = None
    s3_secret_key: SecretStr | None = None
    s3_bucket: str = "arm-ka-uploads"
    s3_results_bucket: str | None = None


class DbSettings(_Group):
    """`OPENBAO__DB__*`: the SQLAlchemy URL. Secret, since it may carry a password.

    `db_password`, when set, becomes the URL's password, escaped by SQLAlchemy: a deployment
    that builds the URL from parts (compose) cannot URL-encode a password with `@ : /`.
    """

    db_url: SecretStr = SecretStr("sqlite+aiosqlite:///./arm-ka.sqlite3")
    db_password: SecretStr | None = None

    @property
    def url(self) -> str:
        """The URL to hand to SQLAlchemy."""
        raw = self.db_url.get_secret_value()
        if self.db_password is None:
            return raw
        from sqlalchemy.engine import make_url

        password = self.db_password.get_secret_value()
        return make_url(raw).set(password=password).render_as_string(hide_password=False)

    @property
    def safe_url(self) -> str:
        """The URL with its password masked, for logs."""
        from sqlalchemy.engine import make_url

        try:
            return make_url(self.url).render_as_string(hide_password=True)
        except Exception:
            return "<unparsable database URL>"


class ScanSettings(_Group):
    """`OPENBAO__SCAN__*`: the scanning system; no URL means the local recogniser."""

    scan_url: str | None = None
    scan_token: SecretStr | None = None


def plain_env(name: str) -> Any:
    """A knob read from the plain environment name `name` (no OPENBAO__ prefix), as the
    spec's own knobs are (`PUBLISH_RETRIES`); use as `Field(..., validation_alias=...)`."""
    return AliasChoices(name, name.lower())


class Settings(BaseSettings):
    """The base settings of every service; subclass it to add a service's own knobs.

    A knob with a plain environment name declares it as `Field(..., validation_alias=plain_env(...))`
    or `validation_alias="NAME"`; other fields read `OPENBAO__<FIELD>` (`__` nests).
    """

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_nested_delimiter="__",
        case_sensitive=False,
        extra="ignore",
        frozen=True,
        populate_by_name=True,
        hide_input_in_errors=True,
    )

    nats: NatsSettings = NatsSettings()
    s3: S3Settings = S3Settings()
    db: DbSettings = DbSettings()
    scan: ScanSettings = ScanSettings()

    publish_retries: int = Field(3, ge=0, validation_alias=plain_env("PUBLISH_RETRIES"))
    publish_retry_pause_seconds: float = Field(
        0.2, ge=0, validation_alias=plain_env("PUBLISH_RETRY_PAUSE_SECONDS")
    )
    # How long a publish waits for the server's PONG to confirm the message left the client.
    publish_confirm_timeout_seconds: float = Field(
        2.0, gt=0, validation_alias=plain_env("PUBLISH_CONFIRM_TIMEOUT_SECONDS")
    )
    # Reconnects (docs/configuration.md says why each value): never give up, a short pause
    # before trying a server again, a buffer for what is published while reconnecting, and
    # pings that notice a node that vanished without closing its sockets.
    nats_reconnect_wait_seconds: float = Field(
        0.5, gt=0, validation_alias=plain_env("NATS_RECONNECT_WAIT_SECONDS")
    )
    nats_max_reconnect_attempts: int = Field(
        -1, ge=-1, validation_alias=plain_env("NATS_MAX_RECONNECT_ATTEMPTS")
    )
    nats_reconnect_buffer_bytes: int = Field(
        2 * 1024 * 1024, ge=0, validation_alias=plain_env("NATS_RECONNECT_BUFFER_BYTES")
    )
    nats_ping_interval_seconds: int = Field(
        20, ge=1, validation_alias=plain_env("NATS_PING_INTERVAL_SECONDS")
    )

    @field_validator("nats_max_reconnect_attempts")
    @classmethod
    def _attempts_not_zero(cls, value: int) -> int:
        # nats-py reads 0 as "no limit" in one place and "give up" in another: refuse it.
        if value == 0:
            msg = "must be -1 (never give up) or at least 1"
            raise SettingsError({"NATS_MAX_RECONNECT_ATTEMPTS": msg})
        return value

    def __init__(self, **values: Any) -> None:
        error: SettingsError | None = None
        try:
            super().__init__(**values)
        except ValidationError as exc:
            error = translate(type(self), exc)
        except _SourceError:
            error = SettingsError({"environment": "a value could not be parsed"})
        if error is not None:
            # Raised outside the `except` so that no ValidationError (which quotes input
            # values, secrets included) rides along as __context__.
            raise error
        for secret in self.secret_values():
            register_secret(secret)

    def secret_values(self) -> Iterator[str]:
        """Every secret value these settings hold, for log redaction."""
        yield from _walk_secrets(self)

    def nats_connect_kwargs(self) -> dict[str, Any]:
        """See `NatsSettings.connect_kwargs`."""
        return self.nats.connect_kwargs()


class RecognitionServiceSettings(Settings):
    """The knobs every recognition service has (tabular-parser, scan-gateway).

    `JOBS_IN_FLIGHT`: jobs worked on at once (object read, recognition, result; a job waiting
    for a worker process counts), each holding its object; `BACKLOG_MAX`: acked jobs that may
    wait for one of them (a waiting job holds only its request; beyond it a new request is
    acked and answered TIMEOUT at once); `MAX_OBJECT_BYTES`: the largest object read from S3;
    `SEEN_JOBS_MAX` / `SEEN_JOBS_MAX_AGE_SECONDS`: the bounded memory of finished jobs that
    answers repeats (a job in work is never forgotten); `GRACEFUL_TIMEOUT_SECONDS`: how long
    SIGTERM waits for jobs in flight. `pool`: the recogniser's worker processes
    (services.runtime.worker_pool; each service narrows it with its own environment names).
    """

    pool: WorkerPoolSettings = WorkerPoolSettings()
    jobs_in_flight: int = Field(8, ge=1, le=256, validation_alias=plain_env("JOBS_IN_FLIGHT"))
    backlog_max: int = Field(1000, ge=0, le=100_000, validation_alias=plain_env("BACKLOG_MAX"))
    max_object_bytes: int = Field(
        100 * 1024 * 1024, ge=1, validation_alias=plain_env("MAX_OBJECT_BYTES")
    )
    seen_jobs_max: int = Field(10_000, ge=0, validation_alias=plain_env("SEEN_JOBS_MAX"))
    seen_jobs_max_age_seconds: float = Field(
        24 * 3600.0, ge=0, validation_alias=plain_env("SEEN_JOBS_MAX_AGE_SECONDS")
    )
    graceful_timeout_seconds: float = Field(
        15.0, ge=0, validation_alias=plain_env("GRACEFUL_TIMEOUT_SECONDS")
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """The pool's plain names (`PARSE_WORKERS`) after the arguments, before the rest."""
        plain = PlainGroupSource(settings_cls)
        return (init_settings, plain, env_settings, dotenv_settings, file_secret_settings)


def _walk_secrets(model: BaseModel) -> Iterator[str]:
    for name in type(model).model_fields:
        value = getattr(model, name)
        if isinstance(value, SecretStr):
            yield value.get_secret_value()
        elif isinstance(value, BaseModel):
            yield from _walk_secrets(value)
            if isinstance(value, DbSettings) and value.db_password is not None:
                yield value.url  # the URL with the password escaped into it


S = TypeVar("S", bound=Settings)


@overload
def load_settings(**overrides: Any) -> Settings: ...
@overload
def load_settings(cls: type[S], /, **overrides: Any) -> S: ...
def load_settings(cls: type[Settings] = Settings, /, **overrides: Any) -> Settings:
    """Build settings of `cls` from the environment (plus `overrides` by field name).

    Raises `SettingsError` (never pydantic's `ValidationError`) naming the offending keys.
    """
    return cls(**overrides)
