"""Roles from the token's claims, and the auth settings' own checks."""

from __future__ import annotations

from typing import Any

import pytest

from services.arm_core.auth import LOCAL, ROLES, Principal
from services.arm_core.auth.principal import roles_from_claims
from services.arm_core.settings import AuthSettings, CoreSettings
from services.runtime.settings import SettingsError, load_settings


@pytest.mark.parametrize(
    ("claims", "path", "role_map", "roles"),
    [
        (
            {"realm_access": {"roles": ["analyst", "offline_access"]}},
            "realm_access.roles",
            {},
            {"analyst"},
        ),
        ({"roles": "integrator admin"}, "roles", {}, {"integrator", "admin"}),
        ({"roles": ["ArmAnalyst", "analyst"]}, "roles", {"ArmAnalyst": "analyst"}, {"analyst"}),
        ({"roles": ["analyst"]}, "roles", {"ArmAnalyst": "analyst"}, set()),
        ({"realm_access": "analyst"}, "realm_access.roles", {}, set()),
        ({"roles": [1, None, "admin"]}, "roles", {}, {"admin"}),
        ({}, "realm_access.roles", {}, set()),
    ],
)
def test_roles_are_read_from_the_dotted_claim(
    claims: dict[str, Any], path: str, role_map: dict[str, str], roles: set[str]
) -> None:
    """A list or a space-separated string at the dotted path; with a map only its names
    count; anything that is not a role name is ignored."""
    assert roles_from_claims(claims, path, role_map) == frozenset(roles)


def test_admin_may_everything_and_local_is_admin() -> None:
    """`may` is true for a held role, and always for an admin; the local principal holds all."""
    analyst = Principal("u", frozenset({"analyst"}))
    assert analyst.may("analyst") and analyst.may("integrator", "analyst")
    assert not analyst.may("integrator") and not analyst.may("admin")
    assert Principal("a", frozenset({"admin"})).may("integrator")
    assert Principal("local", ROLES) == LOCAL
    assert {"integrator", "analyst", "admin"} == ROLES


@pytest.mark.parametrize(
    ("values", "key"),
    [
        ({"auth_issuer": "https://idp/realms/x"}, "OPENBAO__AUTH__AUTH_CLIENT_ID"),
        (
            {"auth_issuer": "http://idp.bank/realms/x", "auth_client_id": "c"},
            "OPENBAO__AUTH__AUTH_ISSUER",
        ),
        ({"auth_algorithms": "HS256"}, "OPENBAO__AUTH__AUTH_ALGORITHMS"),
        ({"auth_algorithms": "RS256,none"}, "OPENBAO__AUTH__AUTH_ALGORITHMS"),
        ({"auth_role_map": {"x": "root"}}, "OPENBAO__AUTH__AUTH_ROLE_MAP"),
        ({"auth_roles_claim": "realm_access..roles"}, "OPENBAO__AUTH__AUTH_ROLES_CLAIM"),
        ({"auth_redirect_url": "/auth/callback"}, "OPENBAO__AUTH__AUTH_REDIRECT_URL"),
    ],
)
def test_bad_auth_settings_name_their_key(values: dict[str, Any], key: str) -> None:
    """An issuer without a client id, plain http to a non-loopback issuer, a symmetric or
    `none` algorithm, a map to an unknown role, an empty claim path segment, a relative
    redirect URL: each is a SettingsError naming the key."""
    with pytest.raises(SettingsError) as caught:
        load_settings(CoreSettings, auth=values)
    assert key in caught.value.keys


def test_the_audience_defaults_to_the_client_id() -> None:
    """Without AUTH_AUDIENCE a token must be for the client id; http is fine on loopback."""
    settings = AuthSettings(auth_issuer="http://127.0.0.1:8080/realms/x", auth_client_id="arm")
    assert (settings.enabled, settings.audience, settings.algorithms) == (True, "arm", ["RS256"])
    assert AuthSettings(auth_client_id="arm", auth_audience="api").audience == "api"
