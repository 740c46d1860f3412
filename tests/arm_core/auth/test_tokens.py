"""Bearer tokens on a real flow: tokens signed by a key generated here, checked by arm-core
against the JWKS the fake provider serves on a loopback port."""

from __future__ import annotations

import logging
import uuid
from typing import Any

import pytest
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.auth import TOKEN_COOKIE
from services.arm_core.auth.provider import OidcProvider, VerifiedToken
from services.arm_core.db import JobStatus, RecognitionJob

from ._provider import FakeProvider, SigningKey
from .conftest import CoreFactory

pytestmark = [pytest.mark.db, pytest.mark.wire]

PROBLEM = "application/problem+json"


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_no_token_is_a_401_problem_with_a_bearer_challenge(
    core: CoreFactory, oidc: dict[str, Any]
) -> None:
    """Without credentials every /api/v1 route answers 401 `unauthenticated` as an RFC 9457
    problem with `WWW-Authenticate: Bearer realm=…` (no error code: nothing was sent)."""
    _, client = await core(oidc)
    for method, path in [
        ("GET", "/api/v1/files"),
        ("GET", f"/api/v1/jobs/{uuid.uuid4()}"),
        ("GET", f"/api/v1/documents/{uuid.uuid4()}"),
        ("DELETE", f"/api/v1/files/{uuid.uuid4()}"),
        ("POST", f"/api/v1/files/{uuid.uuid4()}/recognitions"),
    ]:
        resp = await client.request(method, path)
        assert resp.status_code == 401, (method, path)
        assert resp.headers["content-type"].startswith(PROBLEM)
        assert resp.json()["type"] == "urn:arm-ka:problem:unauthenticated"
        assert resp.headers["www-authenticate"] == 'Bearer realm="arm-ka"'


async def test_healthcheck_and_the_api_documents_stay_open(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """/healthcheck, /openapi.json and /docs answer without a token; the health says the core
    is authenticated by the provider."""
    _, client = await core(oidc)
    health = await client.get("/healthcheck")
    assert health.status_code == 200
    assert health.json()["auth"] == {"mode": "oidc", "issuer": provider.issuer}
    assert (await client.get("/openapi.json")).status_code == 200
    assert (await client.get("/docs")).status_code == 200


async def test_a_valid_token_is_accepted(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """A token of the provider, for the audience, unexpired, with a read role, reads."""
    _, client = await core(oidc)
    resp = await client.get("/api/v1/files", headers=_bearer(provider.token(roles=["analyst"])))
    assert resp.status_code == 200, resp.text
    assert resp.json()["total"] == 0


def _other_key_same_kid(provider: FakeProvider) -> str:
    return provider.token(key=SigningKey(provider.keys[0].kid))


@pytest.mark.parametrize(
    ("case", "make", "reason"),
    [
        ("expired", lambda p: p.token(expires_in=-120), "the token has expired"),
        (
            "wrong audience",
            lambda p: p.token(aud="another-service"),
            "the token is not meant for this service (audience)",
        ),
        (
            "wrong issuer",
            lambda p: p.token(iss="https://elsewhere.example/realms/bank"),
            "the token was not issued by the configured provider",
        ),
        ("wrong signature", _other_key_same_kid, "the token's signature does not verify"),
        (
            "unknown key",
            lambda p: p.token(key=SigningKey("stranger")),
            "the token is signed by a key the provider does not publish",
        ),
        ("malformed", lambda p: "not.a.token", "the token is malformed or invalid"),
        (
            "no subject",
            lambda p: p.token(sub=None),
            "the token lacks a required claim (exp, sub, aud, iss)",
        ),
    ],
)
async def test_a_bad_token_is_a_401_saying_why(
    core: CoreFactory,
    oidc: dict[str, Any],
    provider: FakeProvider,
    case: str,
    make: Any,
    reason: str,
) -> None:
    """Expired, another audience, another issuer, a signature of another key, a key the
    provider does not publish, garbage, no subject: 401 `invalid_token`, the reason in the
    detail and in the challenge, never the token itself."""
    _, client = await core(oidc)
    token = make(provider)
    resp = await client.get("/api/v1/files", headers=_bearer(token))
    assert resp.status_code == 401, case
    body = resp.json()
    assert (body["type"], body["detail"]) == ("urn:arm-ka:problem:unauthenticated", reason)
    challenge = resp.headers["www-authenticate"]
    assert challenge == (
        f'Bearer realm="arm-ka", error="invalid_token", error_description="{reason}"'
    )
    assert token not in resp.text and token not in challenge


async def test_a_non_bearer_authorization_header_is_refused(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """`Authorization: Basic …` is no token, and a good cookie does not rescue a bad header."""
    _, client = await core(oidc)
    client.cookies.set(TOKEN_COOKIE, provider.token())
    resp = await client.get("/api/v1/files", headers={"Authorization": "Basic dXNlcjpwYXNz"})
    assert resp.status_code == 401
    assert resp.json()["detail"] == "the Authorization header must be 'Bearer <token>'"
    bad = await client.get("/api/v1/files", headers=_bearer(provider.token(expires_in=-120)))
    assert bad.status_code == 401
    assert (await client.get("/api/v1/files")).status_code == 200  # the cookie alone


@pytest.mark.parametrize(
    ("roles", "method", "path", "status"),
    [
        (["analyst"], "POST", "/api/v1/files", 403),  # analysts do not upload
        (["integrator"], "DELETE", "/api/v1/files/{id}", 403),  # only admin deletes
        (["analyst"], "DELETE", "/api/v1/files/{id}", 403),
        (["analyst"], "POST", "/api/v1/files/{id}/recognitions", 403),
        ([], "GET", "/api/v1/files", 403),  # no role: not even reading
        (["auditor"], "GET", "/api/v1/jobs", 403),  # a role that is not ours
        (["integrator"], "GET", "/api/v1/files/{id}", 404),  # allowed: past the check
        (["analyst"], "GET", "/api/v1/documents/{id}", 404),
        (["integrator"], "POST", "/api/v1/files/{id}/recognitions", 404),
        (["admin"], "DELETE", "/api/v1/files/{id}", 404),
        (["admin"], "GET", "/api/v1/jobs/{id}", 404),  # admin may do everything
    ],
)
async def test_roles_decide_what_a_caller_may_do(
    core: CoreFactory,
    oidc: dict[str, Any],
    provider: FakeProvider,
    roles: list[str],
    method: str,
    path: str,
    status: int,
) -> None:
    """integrator uploads, re-runs and reads; analyst reads; admin deletes and may do all.
    A missing role is 403 `forbidden` naming the role needed; an allowed call goes on to the
    route (here: 404 for an unknown id)."""
    _, client = await core(oidc)
    url = path.replace("{id}", str(uuid.uuid4()))
    kwargs: dict[str, Any] = {"headers": _bearer(provider.token(roles=roles))}
    if method == "POST" and path == "/api/v1/files":
        kwargs["files"] = {"file": ("a.pdf", b"%PDF-1.4\n")}
    resp = await client.request(method, url, **kwargs)
    assert resp.status_code == status, resp.text
    if status == 403:
        body = resp.json()
        assert body["type"] == "urn:arm-ka:problem:forbidden"
        assert body["detail"].startswith("this needs the role ")
        assert 'error="insufficient_scope"' in resp.headers["www-authenticate"]


async def test_roles_from_a_configured_claim_and_role_map(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """AUTH_ROLES_CLAIM names another (dotted) claim and AUTH_ROLE_MAP renames the provider's
    roles; with a map, a claim value that merely equals one of our names counts for nothing."""
    settings = {
        **oidc,
        "auth_roles_claim": "resource_access.arm-core.roles",
        "auth_role_map": {"arm-readers": "analyst", "arm-owners": "admin"},
    }
    _, client = await core(settings)

    def token(*names: str) -> dict[str, str]:
        claim: dict[str, Any] = {"arm-core": {"roles": list(names)}}
        return _bearer(provider.token(roles=["admin"], resource_access=claim))

    assert (await client.get("/api/v1/files", headers=token("arm-readers"))).status_code == 200
    assert (await client.get("/api/v1/files", headers=token("admin"))).status_code == 403
    unknown = f"/api/v1/files/{uuid.uuid4()}"
    assert (await client.delete(unknown, headers=token("arm-readers"))).status_code == 403
    assert (await client.delete(unknown, headers=token("arm-owners"))).status_code == 404


async def test_a_rotated_key_is_fetched_when_a_token_names_it(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """The JWKS is fetched once and cached; a token signed with a new key (new kid) makes the
    core fetch the set again and accept it; the retired key's tokens are then refused."""
    _, client = await core(oidc)
    old = provider.token()
    assert (await client.get("/api/v1/files", headers=_bearer(old))).status_code == 200
    assert (await client.get("/api/v1/jobs", headers=_bearer(old))).status_code == 200
    assert provider.jwks_fetches == 1  # cached

    provider.rotate("key-2")
    new = provider.token()
    assert (await client.get("/api/v1/files", headers=_bearer(new))).status_code == 200
    assert provider.jwks_fetches == 2
    refused = await client.get("/api/v1/files", headers=_bearer(old))
    assert refused.status_code == 401


async def test_made_up_kids_do_not_hammer_the_provider(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """Within AUTH_JWKS_COOLDOWN_SECONDS of a fetch, tokens naming unknown kids are refused
    without fetching the JWKS again."""
    _, client = await core({**oidc, "auth_jwks_cooldown_seconds": 60})
    assert (await client.get("/api/v1/files", headers=_bearer(provider.token()))).status_code == 200
    for n in range(5):
        forged = provider.token(key=SigningKey(f"forged-{n}"))
        assert (await client.get("/api/v1/files", headers=_bearer(forged))).status_code == 401
    assert provider.jwks_fetches == 1


async def test_an_unreachable_provider_is_503_not_401(
    core: CoreFactory, oidc: dict[str, Any], provider: FakeProvider
) -> None:
    """When the discovery document cannot be read, a request with a token is answered 503
    `unavailable` (retry later), never a verdict on the token."""
    token = provider.token()
    provider.stop()
    _, client = await core(oidc)
    resp = await client.get("/api/v1/files", headers=_bearer(token))
    assert resp.status_code == 503
    assert resp.json()["type"] == "urn:arm-ka:problem:unavailable"


async def test_the_token_subject_is_who_the_deletion_audit_names(
    core: CoreFactory,
    oidc: dict[str, Any],
    provider: FakeProvider,
    sessions: async_sessionmaker[AsyncSession],
    sample_files: dict[str, bytes],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """An integrator uploads, an admin deletes: the audit line names the admin token's `sub`
    (and the client address)."""
    _, client = await core(oidc)
    up = await client.post(
        "/api/v1/files",
        files={"file": ("a.xlsx", sample_files["XLSX"])},
        headers=_bearer(provider.token(sub="integrator-7", roles=["integrator"])),
    )
    assert up.status_code == 201, up.text
    async with sessions() as session, session.begin():
        await session.execute(
            update(RecognitionJob)
            .where(RecognitionJob.id == uuid.UUID(up.json()["job_id"]))
            .values(status=JobStatus.ERROR.value)
        )
    admin = _bearer(provider.token(sub="admin-3f9c", roles=["admin"]))
    with caplog.at_level(logging.INFO, logger="services.arm_core.audit"):
        resp = await client.delete(f"/api/v1/files/{up.json()['file_id']}", headers=admin)
    assert resp.status_code == 200, resp.text
    audit = [r.getMessage() for r in caplog.records if r.name == "services.arm_core.audit"]
    assert len(audit) == 1
    assert "by=admin-3f9c client=127.0.0.1" in audit[0]


async def test_a_token_is_verified_once_a_request(
    core: CoreFactory,
    oidc: dict[str, Any],
    provider: FakeProvider,
    sample_files: dict[str, bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An upload (the body guard authenticates it, then the route's dependency runs) verifies
    its token once, as a read (no guard) does; the guard's principal is the request's own: an
    analyst's upload right after an integrator's is still refused."""
    verified: list[str] = []
    verify = OidcProvider.verify

    async def counting(self: OidcProvider, token: str) -> VerifiedToken:
        verified.append(token)
        return await verify(self, token)

    monkeypatch.setattr(OidcProvider, "verify", counting)
    _, client = await core(oidc)
    integrator = _bearer(provider.token(roles=["integrator"]))
    for path in ("/api/v1/files", "/ui/files"):
        verified.clear()
        files = {"file": ("a.xlsx", sample_files["XLSX"])}
        up = await client.post(path, files=files, headers=integrator)
        assert up.status_code == 201, up.text
        assert len(verified) == 1, path
    verified.clear()
    assert (await client.get("/api/v1/files", headers=integrator)).status_code == 200
    assert len(verified) == 1
    analyst = _bearer(provider.token(roles=["analyst"]))
    refused = await client.post(
        "/api/v1/files", files={"file": ("b.xlsx", sample_files["XLSX"])}, headers=analyst
    )
    assert refused.status_code == 403
