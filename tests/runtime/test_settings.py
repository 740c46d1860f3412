"""Settings: the environment names of spec 001, the subject rules, and secrecy of credentials."""

from __future__ import annotations

import traceback

import nkeys
import pytest
from pydantic import Field, ValidationError

from services.runtime.exceptions import RuntimeServiceError
from services.runtime.logging import registered_secrets
from services.runtime.settings import (
    SUBJECT_KEYS,
    Settings,
    SettingsError,
    load_settings,
    validate_subjects,
)
from tests.support.nats_credentials import Credentials

TABULAR = "OPENBAO__NATS__NATS_TABULAR_REQUEST_SUBJECT"
IMAGE = "OPENBAO__NATS__NATS_IMAGE_REQUEST_SUBJECT"
RESULT = "OPENBAO__NATS__NATS_RESULT_SUBJECT"
JWT = "OPENBAO__NATS__NATS_JWT"
SEED = "OPENBAO__NATS__NATS_SEED"


def test_defaults_are_the_specs() -> None:
    """Without any variable: the three default subjects, one local server, the spec's knobs."""
    s = load_settings()
    assert s.nats.subjects() == {
        "tabular_request": "files.tabular_uploaded",
        "image_request": "files.img_uploaded",
        "result": "files.tabular_parsed",
    }
    assert s.nats.servers == ["nats://127.0.0.1:4222"]
    assert s.publish_retries == 3
    assert 0 < s.publish_retry_pause_seconds < 5
    assert s.nats.nats_jwt is None and s.nats.nats_seed is None
    assert s.s3.s3_results_bucket is None
    assert s.db.url.startswith("sqlite")
    assert s.scan.scan_url is None and s.scan.scan_token is None


@pytest.mark.parametrize(
    ("env", "value", "read"),
    [
        (TABULAR, "t.req", lambda s: s.nats.nats_tabular_request_subject),
        (IMAGE, "i.req", lambda s: s.nats.nats_image_request_subject),
        (RESULT, "r.res", lambda s: s.nats.nats_result_subject),
        ("OPENBAO__NATS__NATS_URL", "nats://a:1", lambda s: s.nats.nats_url),
        ("OPENBAO__S3__S3_ENDPOINT_URL", "http://s3:9000", lambda s: s.s3.s3_endpoint_url),
        ("OPENBAO__S3__S3_REGION", "ru-1", lambda s: s.s3.s3_region),
        ("OPENBAO__S3__S3_ACCESS_KEY", "AKIA1", lambda s: s.s3.s3_access_key.get_secret_value()),
        ("OPENBAO__S3__S3_SECRET_KEY", "sk-1", lambda s: s.s3.s3_secret_key.get_secret_value()),
        ("OPENBAO__S3__S3_BUCKET", "up", lambda s: s.s3.s3_bucket),
        ("OPENBAO__S3__S3_RESULTS_BUCKET", "res", lambda s: s.s3.s3_results_bucket),
        ("OPENBAO__DB__DB_URL", "postgresql+asyncpg://u@h/db", lambda s: s.db.url),
        ("OPENBAO__SCAN__SCAN_URL", "http://scan", lambda s: s.scan.scan_url),
        ("OPENBAO__SCAN__SCAN_TOKEN", "tok-1", lambda s: s.scan.scan_token.get_secret_value()),
        ("PUBLISH_RETRIES", "5", lambda s: str(s.publish_retries)),
        ("PUBLISH_RETRY_PAUSE_SECONDS", "0.01", lambda s: str(s.publish_retry_pause_seconds)),
    ],
)
def test_each_environment_name_reaches_its_field(
    monkeypatch: pytest.MonkeyPatch, env: str, value: str, read: object
) -> None:
    """Every name fixed by the contract is read from exactly that variable."""
    monkeypatch.setenv(env, value)
    assert read(load_settings()) == value  # type: ignore[operator]


def test_nats_url_is_a_comma_separated_list(monkeypatch: pytest.MonkeyPatch) -> None:
    """OPENBAO__NATS__NATS_URL lists servers separated by commas (spaces ignored)."""
    monkeypatch.setenv("OPENBAO__NATS__NATS_URL", "nats://a:4222, nats://b:4222")
    s = load_settings()
    assert s.nats.servers == ["nats://a:4222", "nats://b:4222"]
    assert s.nats_connect_kwargs() == {"servers": ["nats://a:4222", "nats://b:4222"]}


BAD_SUBJECTS = [
    ("", "empty"),
    ("files. tabular", "whitespace"),
    ("files.tab\tular", "whitespace"),
    ("files.*", "wildcard"),
    ("files.>", "wildcard"),
    ("files..tabular", "empty token"),
    (".files", "empty token"),
    ("files.", "empty token"),
]


@pytest.mark.parametrize("key", list(SUBJECT_KEYS.values()))
@pytest.mark.parametrize(("value", "why"), BAD_SUBJECTS)
def test_each_subject_rule_names_the_key(
    monkeypatch: pytest.MonkeyPatch, key: str, value: str, why: str
) -> None:
    """A subject breaking a rule stops the load with an error naming exactly its key."""
    monkeypatch.setenv(key, value)
    with pytest.raises(SettingsError) as info:
        load_settings()
    assert info.value.keys == [key]
    assert str(info.value).startswith(f"{key}: ")
    assert why in str(info.value)


@pytest.mark.parametrize(
    ("same_as", "key", "other"),
    [
        ("files.tabular_uploaded", RESULT, TABULAR),
        ("files.img_uploaded", RESULT, IMAGE),
        ("files.tabular_uploaded", IMAGE, TABULAR),
    ],
)
def test_duplicate_subjects_name_both_keys(
    monkeypatch: pytest.MonkeyPatch, same_as: str, key: str, other: str
) -> None:
    """Two roles on one subject: the error names the key that repeats and the one it repeats."""
    monkeypatch.setenv(key, same_as)
    with pytest.raises(SettingsError) as info:
        load_settings()
    assert info.value.keys == [key]
    assert f"{key}: must differ from {other}" in str(info.value)


def test_validate_subjects_reports_every_bad_key() -> None:
    """All offending keys are reported at once, so one restart fixes the lot."""
    with pytest.raises(SettingsError) as info:
        validate_subjects({TABULAR: "a.*", IMAGE: "b c", RESULT: "ok"})
    assert info.value.keys == [TABULAR, IMAGE]


def test_settings_error_is_a_value_error_not_pydantics() -> None:
    """The project exception is a ValueError and never pydantic's ValidationError."""
    with pytest.raises(SettingsError) as info:
        load_settings(publish_retry_pause_seconds="soon")
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, RuntimeServiceError)
    assert not isinstance(info.value, ValidationError)
    assert info.value.keys == ["PUBLISH_RETRY_PAUSE_SECONDS"]


def _texts(error: BaseException) -> str:
    return "\n".join([str(error), repr(error), "".join(traceback.format_exception(error))])


def _set_credentials(monkeypatch: pytest.MonkeyPatch, creds: Credentials) -> None:
    monkeypatch.setenv(JWT, creds.jwt)
    monkeypatch.setenv(SEED, creds.seed)


def test_credentials_never_in_repr_str_or_json(
    monkeypatch: pytest.MonkeyPatch, credentials: Credentials
) -> None:
    """JWT and seed load, and appear in no repr, str, or JSON dump of the settings."""
    _set_credentials(monkeypatch, credentials)
    s = load_settings()
    assert s.nats.nats_jwt is not None and s.nats.nats_seed is not None
    assert s.nats.nats_jwt.get_secret_value() == credentials.jwt
    for text in (
        repr(s),
        str(s),
        s.model_dump_json(),
        str(s.model_dump(mode="json")),
        repr(s.nats),
    ):
        assert credentials.jwt not in text
        assert credentials.seed not in text


@pytest.mark.parametrize(
    ("env", "value", "key"),
    [
        (RESULT, "files.tabular_uploaded", RESULT),
        (TABULAR, "files.*", TABULAR),
        ("PUBLISH_RETRIES", "many", "PUBLISH_RETRIES"),
        ("OPENBAO__NATS__NATS_URL", " , ", "OPENBAO__NATS__NATS_URL"),
    ],
)
def test_credentials_never_in_errors_about_other_keys(
    monkeypatch: pytest.MonkeyPatch, credentials: Credentials, env: str, value: str, key: str
) -> None:
    """Another key fails while JWT and seed are set: the error (and its traceback) names the
    key and quotes neither secret."""
    _set_credentials(monkeypatch, credentials)
    monkeypatch.setenv(env, value)
    with pytest.raises(SettingsError) as info:
        load_settings()
    assert info.value.keys == [key]
    text = _texts(info.value)
    assert credentials.jwt not in text and credentials.seed not in text
    assert info.value.__cause__ is None and info.value.__context__ is None


@pytest.mark.parametrize(
    ("bad_jwt", "bad_seed", "key"),
    [
        ("not a jwt at all SECRET-JWT-VALUE", None, JWT),
        ("SECRETHEADER.SECRETCLAIMS", None, JWT),
        (None, "SUSECRETSEEDTHATISNOTVALID", SEED),
        (None, "secret seed with spaces", SEED),
    ],
)
def test_malformed_credentials_are_rejected_without_quoting_them(
    monkeypatch: pytest.MonkeyPatch,
    credentials: Credentials,
    bad_jwt: str | None,
    bad_seed: str | None,
    key: str,
) -> None:
    """A malformed JWT or seed fails the load naming its key; the value is not in the text."""
    jwt = bad_jwt or credentials.jwt
    seed = bad_seed or credentials.seed
    monkeypatch.setenv(JWT, jwt)
    monkeypatch.setenv(SEED, seed)
    with pytest.raises(SettingsError) as info:
        load_settings()
    assert info.value.keys == [key]
    text = _texts(info.value)
    assert jwt not in text and seed not in text
    for fragment in ("SECRET", "secret seed"):
        assert fragment not in text


def test_every_invalid_key_is_reported_at_once_without_the_secret(
    monkeypatch: pytest.MonkeyPatch, credentials: Credentials
) -> None:
    """An invalid JWT does not hide a bad subject, a duplicate subject, an empty server list or
    a bad knob: one error names them all, so one restart fixes the lot; the JWT is not quoted."""
    bad_jwt = "not a jwt SECRET-JWT-VALUE"
    monkeypatch.setenv(JWT, bad_jwt)
    monkeypatch.setenv(SEED, credentials.seed)
    monkeypatch.setenv(TABULAR, "files.*")
    monkeypatch.setenv(RESULT, "files.img_uploaded")
    monkeypatch.setenv("OPENBAO__NATS__NATS_URL", " , ")
    monkeypatch.setenv("PUBLISH_RETRIES", "many")
    with pytest.raises(SettingsError) as info:
        load_settings()
    assert set(info.value.keys) == {
        JWT,
        TABULAR,
        RESULT,
        "OPENBAO__NATS__NATS_URL",
        "PUBLISH_RETRIES",
    }
    text = _texts(info.value)
    assert bad_jwt not in text and "SECRET" not in text and credentials.seed not in text
    assert info.value.__cause__ is None and info.value.__context__ is None


def test_jwt_without_seed_names_the_seed_key(
    monkeypatch: pytest.MonkeyPatch, credentials: Credentials
) -> None:
    """A JWT alone cannot answer the server's nonce: the seed key is reported missing."""
    monkeypatch.setenv(JWT, credentials.jwt)
    with pytest.raises(SettingsError) as info:
        load_settings()
    assert info.value.keys == [SEED]
    assert credentials.jwt not in _texts(info.value)


def test_blank_credentials_mean_none(monkeypatch: pytest.MonkeyPatch) -> None:
    """Empty JWT / seed variables (the local stack) mean an unauthenticated connection."""
    monkeypatch.setenv(JWT, "")
    monkeypatch.setenv(SEED, " ")
    assert load_settings().nats_connect_kwargs() == {"servers": ["nats://127.0.0.1:4222"]}


def test_connect_kwargs_answer_the_nonce_with_the_seed(
    monkeypatch: pytest.MonkeyPatch, credentials: Credentials
) -> None:
    """With JWT and seed, nats.connect gets the JWT and a signature of the nonce by the seed."""
    _set_credentials(monkeypatch, credentials)
    kwargs = load_settings().nats_connect_kwargs()
    assert set(kwargs) == {"servers", "user_jwt_cb", "signature_cb"}
    assert kwargs["user_jwt_cb"]() == credentials.jwt.encode()
    import base64

    signature = base64.b64decode(kwargs["signature_cb"]("nonce-123"))
    verifier = nkeys.from_seed(bytearray(credentials.seed.encode()))
    assert verifier.verify(b"nonce-123", signature)


def test_seed_alone_is_nkey_auth(monkeypatch: pytest.MonkeyPatch, credentials: Credentials) -> None:
    """A seed without JWT is handed to nats-py as a plain nkey seed."""
    monkeypatch.setenv(SEED, credentials.seed)
    kwargs = load_settings().nats_connect_kwargs()
    assert kwargs == {"servers": ["nats://127.0.0.1:4222"], "nkeys_seed_str": credentials.seed}


def test_loaded_secrets_are_registered_for_log_redaction(
    monkeypatch: pytest.MonkeyPatch, credentials: Credentials
) -> None:
    """Loading settings registers every secret value with the log redactor."""
    _set_credentials(monkeypatch, credentials)
    monkeypatch.setenv("OPENBAO__S3__S3_SECRET_KEY", "s3-secret-for-redaction")
    load_settings()
    assert {credentials.jwt, credentials.seed, "s3-secret-for-redaction"} <= registered_secrets()


def test_database_url_is_secret_but_has_a_safe_form(monkeypatch: pytest.MonkeyPatch) -> None:
    """The DB URL (it may hold a password) is masked in repr and in `safe_url`."""
    monkeypatch.setenv("OPENBAO__DB__DB_URL", "postgresql+asyncpg://app:pa55word@db:5432/arm")
    s = load_settings()
    assert "pa55word" not in repr(s)
    assert "pa55word" not in s.db.safe_url and "db:5432/arm" in s.db.safe_url
    assert s.db.url.endswith("app:pa55word@db:5432/arm")


class _ServiceSettings(Settings):
    """What a service does: subclass and add its own knob with a plain name."""

    max_file_bytes: int = Field(10, gt=0, validation_alias="MAX_FILE_BYTES")


def test_services_extend_settings_with_their_own_knobs(monkeypatch: pytest.MonkeyPatch) -> None:
    """A subclass keeps the shared groups and rules and reads its knob; its errors name it."""
    monkeypatch.setenv("MAX_FILE_BYTES", "2048")
    s = load_settings(_ServiceSettings)
    assert isinstance(s, _ServiceSettings) and s.max_file_bytes == 2048
    assert s.nats.nats_result_subject == "files.tabular_parsed"
    monkeypatch.setenv("MAX_FILE_BYTES", "0")
    with pytest.raises(SettingsError) as info:
        load_settings(_ServiceSettings)
    assert info.value.keys == ["MAX_FILE_BYTES"]
    monkeypatch.setenv("MAX_FILE_BYTES", "1")
    monkeypatch.setenv(RESULT, "files.img_uploaded")
    with pytest.raises(SettingsError) as info:
        load_settings(_ServiceSettings)
    assert info.value.keys == [RESULT]


def test_overrides_take_field_names_and_win_over_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`load_settings(**overrides)` beats the environment, group by group."""
    monkeypatch.setenv(RESULT, "from.env")
    monkeypatch.setenv("PUBLISH_RETRIES", "7")
    s = load_settings(nats={"nats_result_subject": "from.kwargs"}, publish_retries=1)
    assert s.nats.nats_result_subject == "from.kwargs"
    assert s.publish_retries == 1
    assert s.nats.nats_tabular_request_subject == "files.tabular_uploaded"
