"""The OpenID Connect provider: its discovery document, its keys, and checking its tokens.

A token is accepted when its signature verifies with a key of the provider's JWKS (keys.py:
cached for AUTH_JWKS_LIFESPAN_SECONDS and refreshed in the background, fetched again for an
unknown `kid` at most once per AUTH_JWKS_COOLDOWN_SECONDS whatever the outcome, so neither a
flood of made-up kids nor a slow provider delays a token whose key is cached), its algorithm is one of AUTH_ALGORITHMS, `iss` is the
provider's issuer, `aud` holds the audience, and `exp` (required, like `sub`) has not passed.
The discovery document is read once and kept; a failure is retried by the next request.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx
import jwt

from services.arm_core.auth.exceptions import NotAuthenticated
from services.arm_core.auth.keys import JwksCache
from services.arm_core.auth.principal import Principal, roles_from_claims
from services.arm_core.exceptions import Unavailable
from services.arm_core.settings import AuthSettings

__all__ = ["Discovery", "OidcProvider", "VerifiedToken"]

_WELL_KNOWN = "/.well-known/openid-configuration"
_ERROR_CODE = re.compile(r"^[a-z_]{1,64}$")

# PyJWT's exceptions → the fixed text of our 401 (its own messages may quote the input).
_REASONS: tuple[tuple[type[Exception], str], ...] = (
    (jwt.ExpiredSignatureError, "the token has expired"),
    (jwt.ImmatureSignatureError, "the token is not valid yet"),
    (jwt.InvalidAudienceError, "the token is not meant for this service (audience)"),
    (jwt.InvalidIssuerError, "the token was not issued by the configured provider"),
    (jwt.InvalidSignatureError, "the token's signature does not verify"),
    (jwt.InvalidAlgorithmError, "the token's signing algorithm is not accepted"),
    (jwt.MissingRequiredClaimError, "the token lacks a required claim (exp, sub, aud, iss)"),
)


@dataclass(frozen=True, slots=True)
class Discovery:
    """What arm-core uses of the provider's discovery document."""

    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    jwks_uri: str
    end_session_endpoint: str | None = None


@dataclass(frozen=True, slots=True)
class VerifiedToken:
    """A checked token: who it names and until when it is valid."""

    principal: Principal
    expires_at: dt.datetime


class OidcProvider:
    """Reads the discovery document and the JWKS of AUTH_ISSUER and checks tokens against them."""

    def __init__(self, settings: AuthSettings) -> None:
        assert settings.auth_issuer is not None  # only built with an issuer
        self.settings = settings
        self._issuer = settings.auth_issuer
        self._discovery: Discovery | None = None
        self._jwks: JwksCache | None = None
        self._jwks_uri: str | None = None
        self._lock = asyncio.Lock()

    def __repr__(self) -> str:
        return f"OidcProvider(issuer={self._issuer!r})"

    async def discovery(self) -> Discovery:
        """The provider's endpoints (fetched once); `Unavailable` when it cannot be read."""
        if self._discovery is not None:
            return self._discovery
        async with self._lock:
            if self._discovery is None:
                self._discovery = await self._fetch_discovery()
        return self._discovery

    async def _fetch_discovery(self) -> Discovery:
        url = self._issuer.rstrip("/") + _WELL_KNOWN
        try:
            async with httpx.AsyncClient(timeout=self.settings.auth_http_timeout_seconds) as http:
                response = await http.get(url)
                response.raise_for_status()
                document = response.json()
            found = Discovery(
                issuer=str(document["issuer"]),
                authorization_endpoint=str(document["authorization_endpoint"]),
                token_endpoint=str(document["token_endpoint"]),
                jwks_uri=str(document["jwks_uri"]),
                end_session_endpoint=_optional(document.get("end_session_endpoint")),
            )
        except (httpx.HTTPError, ValueError, KeyError, TypeError) as exc:
            raise Unavailable(
                "the identity provider could not be reached; try again later"
            ) from exc
        if found.issuer.rstrip("/") != self._issuer.rstrip("/"):
            # OIDC Discovery §4.3: the document must name the issuer it was fetched for.
            raise Unavailable("the identity provider's discovery document names another issuer")
        return found

    def _jwks_cache(self, jwks_uri: str) -> JwksCache:
        if self._jwks is None or self._jwks_uri != jwks_uri:
            self._jwks_uri = jwks_uri
            self._jwks = JwksCache(
                lambda: self._fetch_jwks(jwks_uri),
                lifespan=self.settings.auth_jwks_lifespan_seconds,
                cooldown=self.settings.auth_jwks_cooldown_seconds,
            )
        return self._jwks

    async def _fetch_jwks(self, jwks_uri: str) -> dict[str, Any]:
        try:
            async with httpx.AsyncClient(timeout=self.settings.auth_http_timeout_seconds) as http:
                response = await http.get(jwks_uri)
                response.raise_for_status()
                document = response.json()
        except (httpx.HTTPError, ValueError) as exc:
            raise Unavailable("the identity provider's keys could not be fetched") from exc
        if not isinstance(document, dict):
            raise Unavailable("the identity provider's keys are not a JWKS")
        return document

    async def verify(self, token: str) -> VerifiedToken:
        """Check `token`; `NotAuthenticated` saying why it is refused, `Unavailable` when the
        provider's keys cannot be fetched."""
        found = await self.discovery()
        jwks = self._jwks_cache(found.jwks_uri)
        try:
            header = jwt.get_unverified_header(token)
            kid = header.get("kid")
            key = await jwks.key(kid if isinstance(kid, str) else None)
            claims: dict[str, Any] = jwt.decode(
                token,
                key.key,
                algorithms=self.settings.algorithms,
                audience=self.settings.audience,
                issuer=found.issuer,
                leeway=self.settings.auth_leeway_seconds,
                options={"require": ["exp", "sub", "iss", "aud"]},
            )
        except jwt.PyJWTError as exc:
            raise NotAuthenticated(_reason(exc)) from exc
        subject = claims.get("sub")
        if not isinstance(subject, str) or not subject:
            raise NotAuthenticated("the token lacks a required claim (exp, sub, aud, iss)")
        roles = roles_from_claims(
            claims, self.settings.auth_roles_claim, self.settings.auth_role_map
        )
        expires = dt.datetime.fromtimestamp(float(claims["exp"]), tz=dt.UTC)
        return VerifiedToken(Principal(subject, roles), expires)

    async def grant(self, form: Mapping[str, str], *, what: str) -> dict[str, object]:
        """POST a grant (`form` and the client id) to the token endpoint, a confidential
        client authenticating with client_secret_basic (RFC 6749 §2.3.1); the answer when it
        holds an access token. `NotAuthenticated` when the provider refuses (400/401: naming
        `what` and the provider's error code, never its description), `Unavailable` when it
        cannot be reached or answers without a token."""
        found = await self.discovery()
        settings = self.settings
        assert settings.auth_client_id is not None  # required with an issuer
        secret = settings.auth_client_secret
        auth: httpx.Auth | None = None
        if secret is not None:
            auth = httpx.BasicAuth(settings.auth_client_id, secret.get_secret_value())
        try:
            async with httpx.AsyncClient(
                timeout=settings.auth_http_timeout_seconds, auth=auth
            ) as http:
                response = await http.post(
                    found.token_endpoint, data={**form, "client_id": settings.auth_client_id}
                )
        except httpx.HTTPError as exc:
            raise Unavailable(
                "the identity provider could not be reached; try again later"
            ) from exc
        body = _json(response)
        if response.status_code in (400, 401):
            code = body.get("error")
            why = code if isinstance(code, str) and _ERROR_CODE.match(code) else "refused"
            raise NotAuthenticated(f"the provider did not accept {what} ({why}); log in again")
        token = body.get("access_token")
        if response.status_code != 200 or not isinstance(token, str) or not token:
            raise Unavailable(f"the identity provider answered {what} without a token")
        return body


def _json(response: httpx.Response) -> dict[str, object]:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def _optional(value: Any) -> str | None:
    return str(value) if value else None


def _reason(exc: Exception) -> str:
    for kind, text in _REASONS:
        if isinstance(exc, kind):
            return text
    return "the token is malformed or invalid"
