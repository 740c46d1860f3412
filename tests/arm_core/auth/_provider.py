"""A tiny OpenID Connect provider on a free loopback port, for the authentication tests.

A real HTTP server (stdlib `ThreadingHTTPServer` in a thread) serving the discovery document,
the JWKS of RSA keys generated here, `/authorize` (records the PKCE challenge and sends the
browser back with a code) and `/token` (checks the verifier against the challenge, the client
secret when one is configured, and answers a token signed with the current key, valid for
`access_lifetime`, with a refresh token). Its refresh grant trades a refresh token it issued
for new tokens; it rotates them (the old one is refused afterwards, as Keycloak's "Revoke
Refresh Token" does), and `end_sessions()` revokes them all. It counts JWKS fetches, so the
tests can see the key cache work.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

__all__ = ["AUDIENCE", "CLIENT_ID", "REFRESH_LIFETIME", "FakeProvider", "SigningKey"]

CLIENT_ID = "arm-ka-web"
AUDIENCE = "arm-core"


@dataclass
class SigningKey:
    """An RSA key pair with its `kid`."""

    kid: str
    private: rsa.RSAPrivateKey = field(
        default_factory=lambda: rsa.generate_private_key(public_exponent=65537, key_size=2048)
    )

    def jwk(self) -> dict[str, Any]:
        public: dict[str, Any] = json.loads(RSAAlgorithm.to_jwk(self.private.public_key()))
        return {**public, "kid": self.kid, "use": "sig", "alg": "RS256"}


@dataclass
class _Grant:
    challenge: str
    method: str
    redirect_uri: str
    claims: dict[str, Any]


REFRESH_LIFETIME = 1800


class FakeProvider:
    """The provider: `issuer`, `token(...)` to sign one, `rotate()` to change keys."""

    def __init__(self, *, client_secret: str | None = None) -> None:
        self.keys = [SigningKey("key-1")]
        self.client_secret = client_secret
        self.jwks_fetches = 0
        self.authorize_requests: list[dict[str, str]] = []
        self.token_requests: list[dict[str, str]] = []
        self.token_auth: list[str | None] = []
        self.login_claims: dict[str, Any] = {
            "sub": "user-42",
            "realm_access": {"roles": ["analyst"]},
        }
        self.access_lifetime = 300
        self.token_delay = 0.0
        self.jwks_delay = 0.0  # a slow provider's JWKS
        self.jwks_status = 200  # 503: a provider whose JWKS is down
        self.refreshes = 0
        self._grants: dict[str, _Grant] = {}
        self._sessions: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def issuer(self) -> str:
        return f"{self.url}/realms/bank"

    def start(self) -> FakeProvider:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)

    def discovery(self) -> dict[str, Any]:
        return {
            "issuer": self.issuer,
            "authorization_endpoint": f"{self.url}/authorize",
            "token_endpoint": f"{self.url}/token",
            "jwks_uri": f"{self.url}/jwks",
            "end_session_endpoint": f"{self.url}/logout",
        }

    def rotate(self, kid: str, *, keep_old: bool = False) -> SigningKey:
        """Sign with a new key from now on; the JWKS publishes it (and the old one if kept)."""
        key = SigningKey(kid)
        self.keys = [key, *self.keys] if keep_old else [key]
        return key

    def token(
        self,
        *,
        roles: list[str] | None = None,
        key: SigningKey | None = None,
        kid: str | None = None,
        expires_in: float = 300,
        **claims: Any,
    ) -> str:
        """A signed access token; defaults: this issuer, the audience, sub user-1, 5 minutes."""
        now = int(time.time())
        payload: dict[str, Any] = {
            "iss": self.issuer,
            "aud": AUDIENCE,
            "sub": "user-1",
            "iat": now,
            "exp": now + int(expires_in),
            "realm_access": {"roles": roles if roles is not None else ["integrator"]},
        }
        payload.update(claims)
        signer = key or self.keys[0]
        return jwt.encode(
            payload, signer.private, algorithm="RS256", headers={"kid": kid or signer.kid}
        )

    def end_sessions(self) -> None:
        """Revoke every refresh token issued (the user's provider sessions ended)."""
        with self._lock:
            self._sessions.clear()

    def _tokens(self, claims: dict[str, Any]) -> bytes:
        roles = claims.get("realm_access", {}).get("roles", [])
        rest = {k: v for k, v in claims.items() if k != "realm_access"}
        token = self.token(roles=roles, expires_in=self.access_lifetime, **rest)
        refresh = secrets.token_urlsafe(48)
        with self._lock:
            self._sessions[refresh] = dict(claims)
        body = {
            "access_token": token,
            "token_type": "Bearer",
            "expires_in": self.access_lifetime,
            "refresh_token": refresh,
            "refresh_expires_in": REFRESH_LIFETIME,
        }
        return json.dumps(body).encode()

    def _refresh(self, form: dict[str, str]) -> tuple[int, bytes]:
        time.sleep(self.token_delay)  # a slow provider: concurrent renewals overlap
        with self._lock:
            claims = self._sessions.pop(form.get("refresh_token", ""), None)
            self.refreshes += 1
        if claims is None or form.get("client_id") != CLIENT_ID:
            body = {"error": "invalid_grant", "error_description": "Token is not active"}
            return 400, json.dumps(body).encode()
        return 200, self._tokens(claims)

    # --- the endpoints ---------------------------------------------------------------------

    def _authorize(self, query: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        self.authorize_requests.append(query)
        code = secrets.token_urlsafe(16)
        self._grants[code] = _Grant(
            challenge=query.get("code_challenge", ""),
            method=query.get("code_challenge_method", ""),
            redirect_uri=query.get("redirect_uri", ""),
            claims=dict(self.login_claims),
        )
        target = query["redirect_uri"] + "?" + urlencode({"code": code, "state": query["state"]})
        return 302, {"Location": target}, b""

    def _token(self, form: dict[str, str], authorization: str | None) -> tuple[int, bytes]:
        self.token_requests.append(form)
        self.token_auth.append(authorization)
        if self.client_secret is not None:
            expected = base64.b64encode(f"{CLIENT_ID}:{self.client_secret}".encode()).decode()
            if authorization != f"Basic {expected}":
                return 401, json.dumps({"error": "invalid_client"}).encode()
        if form.get("grant_type") == "refresh_token":
            return self._refresh(form)
        grant = self._grants.pop(form.get("code", ""), None)
        if grant is None or grant.redirect_uri != form.get("redirect_uri"):
            return 400, json.dumps({"error": "invalid_grant"}).encode()
        verifier = form.get("code_verifier", "")
        digest = hashlib.sha256(verifier.encode()).digest()
        if grant.method != "S256" or (
            base64.urlsafe_b64encode(digest).rstrip(b"=").decode() != grant.challenge
        ):
            return 400, json.dumps({"error": "invalid_grant", "error_description": "PKCE"}).encode()
        return 200, self._tokens(grant.claims)


def _handler(provider: FakeProvider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet
            return

        def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            query = {k: v[0] for k, v in parse_qs(parts.query).items()}
            if parts.path == "/realms/bank/.well-known/openid-configuration":
                self._send(200, json.dumps(provider.discovery()).encode())
            elif parts.path == "/jwks":
                provider.jwks_fetches += 1
                time.sleep(provider.jwks_delay)
                if provider.jwks_status != 200:
                    self._send(provider.jwks_status, b"{}")
                    return
                keys = [key.jwk() for key in provider.keys]
                self._send(200, json.dumps({"keys": keys}).encode())
            elif parts.path == "/authorize":
                status, headers, body = provider._authorize(query)
                self._send(status, body, headers)
            else:
                self._send(404, b"{}")

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
            if urlsplit(self.path).path == "/token":
                status, body = provider._token(form, self.headers.get("Authorization"))
                self._send(status, body)
            else:
                self._send(404, b"{}")

    return Handler
