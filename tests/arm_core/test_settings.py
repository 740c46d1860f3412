"""arm-core's own knobs: plain environment names, per-pipeline budgets and subjects."""

from __future__ import annotations

import datetime as dt

import pytest

from services.arm_core.settings import CoreSettings
from services.runtime.settings import Settings, SettingsError, load_settings


def test_knobs_are_read_from_plain_environment_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """TABULAR/IMAGE_REPLY_BUDGET_SECONDS, UPLOAD_MAX_BYTES and ACK_TIMEOUT_SECONDS apply."""
    monkeypatch.setenv("TABULAR_REPLY_BUDGET_SECONDS", "90")
    monkeypatch.setenv("IMAGE_REPLY_BUDGET_SECONDS", "900")
    monkeypatch.setenv("UPLOAD_MAX_BYTES", "1024")
    monkeypatch.setenv("ACK_TIMEOUT_SECONDS", "2.5")
    settings = load_settings(CoreSettings)
    assert settings.reply_budget("tabular") == dt.timedelta(seconds=90)
    assert settings.reply_budget("image") == dt.timedelta(seconds=900)
    assert settings.upload_max_bytes == 1024
    assert settings.ack_timeout == dt.timedelta(seconds=2.5)


def test_the_relay_knobs_are_the_cores_with_the_specs_defaults_and_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ACK_TIMEOUT_SECONDS (30) and OUTBOX_MAX_REPUBLISH (3) belong to the core alone (only
    its relay republishes), read from the names spec 001 fixes; a bad one names its key."""
    defaults = load_settings(CoreSettings)
    assert (defaults.ack_timeout_seconds, defaults.outbox_max_republish) == (30, 3)
    assert "ack_timeout_seconds" not in Settings.model_fields
    assert "outbox_max_republish" not in Settings.model_fields
    monkeypatch.setenv("ACK_TIMEOUT_SECONDS", "7.5")
    monkeypatch.setenv("OUTBOX_MAX_REPUBLISH", "9")
    settings = load_settings(CoreSettings)
    assert (str(settings.ack_timeout_seconds), str(settings.outbox_max_republish)) == ("7.5", "9")
    with pytest.raises(SettingsError) as info:
        load_settings(CoreSettings, ack_timeout_seconds="soon")
    assert info.value.keys == ["ACK_TIMEOUT_SECONDS"]


def test_request_subject_follows_the_pipeline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each pipeline publishes to its own configured subject; an unknown one is an error."""
    monkeypatch.setenv("OPENBAO__NATS__NATS_IMAGE_REQUEST_SUBJECT", "scans.in")
    settings = load_settings(CoreSettings)
    assert settings.request_subject("image") == "scans.in"
    assert settings.request_subject("tabular") == settings.nats.nats_tabular_request_subject
    with pytest.raises(ValueError, match="unknown pipeline"):
        settings.request_subject("audio")


def test_a_bad_knob_names_its_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """A non-positive budget is refused with an error naming the environment key."""
    monkeypatch.setenv("TABULAR_REPLY_BUDGET_SECONDS", "0")
    with pytest.raises(SettingsError) as info:
        load_settings(CoreSettings)
    assert "TABULAR_REPLY_BUDGET_SECONDS" in str(info.value)


def test_the_official_filing_is_off_unless_its_url_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    """OPENBAO__GIRBO__GIRBO_URL unset or blank: off; set: on with its knobs; not an absolute
    http(s) URL: refused, naming the variable."""
    assert not load_settings(CoreSettings).girbo.enabled
    monkeypatch.setenv("OPENBAO__GIRBO__GIRBO_URL", "  ")
    assert not load_settings(CoreSettings).girbo.enabled
    monkeypatch.setenv("OPENBAO__GIRBO__GIRBO_URL", "https://bo.nalog.gov.ru")
    monkeypatch.setenv("OPENBAO__GIRBO__GIRBO_TIMEOUT_SECONDS", "2")
    girbo = load_settings(CoreSettings).girbo
    assert (girbo.enabled, girbo.girbo_url, girbo.girbo_timeout_seconds) == (
        True,
        "https://bo.nalog.gov.ru",
        2,
    )
    monkeypatch.setenv("OPENBAO__GIRBO__GIRBO_URL", "bo.nalog.gov.ru")
    with pytest.raises(SettingsError) as info:
        load_settings(CoreSettings)
    assert "OPENBAO__GIRBO__GIRBO_URL" in str(info.value)
