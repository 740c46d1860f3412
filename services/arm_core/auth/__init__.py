"""Who may do what: OpenID Connect bearer tokens and the roles of arm-core.

Roles come from a claim of the provider's access token (AUTH_ROLES_CLAIM, a dotted path;
Keycloak's `realm_access.roles` by default), optionally renamed by AUTH_ROLE_MAP:

- `integrator`: upload, re-run recognition, read;
- `analyst`: read, correct, mark reviewed, export;
- `admin`: delete, and everything else.

A route declares what it needs with `Depends(require("analyst"))` (several roles: any of
them); the dependency answers the caller's `Principal`. Without an issuer the core is the
unauthenticated embedded default: loopback only, every request `Principal("local", ROLES)`.
"""

from __future__ import annotations

import hashlib
import secrets

from fastapi import FastAPI
from starlette.types import ASGIApp

from services.arm_core.auth.bind import (
    UNAUTHENTICATED_WARNING,
    announce,
    auth_state,
    check_bind,
    is_loopback,
    uvicorn_bind,
)
from services.arm_core.auth.browser import (
    CONTENT_SECURITY_POLICY,
    CSRF_COOKIE,
    CSRF_HEADER,
    BrowserGuard,
    SecurityHeaders,
    csrf_token_of,
)
from services.arm_core.auth.dependency import (
    Authenticator,
    authenticated,
    authenticator,
    authorize,
    principal_of,
    remember,
    require,
    roles_required,
)
from services.arm_core.auth.exceptions import (
    REALM,
    Forbidden,
    NotAuthenticated,
    PageRefusal,
    page_refusal_of,
    set_page_refusal,
)
from services.arm_core.auth.guard import BodyGuard, ErrorResponder
from services.arm_core.auth.login import (
    CALLBACK_PATH,
    LOGIN_PATH,
    LOGOUT_PATH,
    build_auth_router,
    code_challenge,
)
from services.arm_core.auth.principal import LOCAL, ROLES, Principal, roles_from_claims
from services.arm_core.auth.redact import (
    REDACTED_PARAMETERS,
    AccessLogRedaction,
    install_access_log_redaction,
    redact,
)
from services.arm_core.auth.session import (
    REFRESH_COOKIE,
    REFRESH_PATH,
    RENEW_AHEAD_SECONDS,
    TOKEN_COOKIE,
    PageSession,
    SessionCookies,
    TokenSet,
    clear_session,
    set_session,
    token_set,
)
from services.arm_core.settings import AuthSettings

__all__ = [
    "CALLBACK_PATH",
    "CONTENT_SECURITY_POLICY",
    "CSRF_COOKIE",
    "CSRF_HEADER",
    "LOCAL",
    "LOGIN_PATH",
    "LOGOUT_PATH",
    "REALM",
    "REDACTED_PARAMETERS",
    "REFRESH_COOKIE",
    "REFRESH_PATH",
    "RENEW_AHEAD_SECONDS",
    "ROLES",
    "TOKEN_COOKIE",
    "UNAUTHENTICATED_WARNING",
    "AccessLogRedaction",
    "Authenticator",
    "BodyGuard",
    "BrowserGuard",
    "ErrorResponder",
    "Forbidden",
    "NotAuthenticated",
    "PageRefusal",
    "PageSession",
    "Principal",
    "SecurityHeaders",
    "SessionCookies",
    "TokenSet",
    "announce",
    "auth_state",
    "authenticated",
    "authenticator",
    "authorize",
    "build_auth_router",
    "check_bind",
    "clear_session",
    "code_challenge",
    "csrf_token_of",
    "install_access_log_redaction",
    "install_auth",
    "is_loopback",
    "page_refusal_of",
    "principal_of",
    "redact",
    "remember",
    "require",
    "roles_from_claims",
    "roles_required",
    "set_page_refusal",
    "set_session",
    "token_set",
    "uvicorn_bind",
]


def install_auth(app: FastAPI, settings: AuthSettings, respond: ErrorResponder) -> Authenticator:
    """Give `app` its authenticator (`app.state.auth`), /auth/, the guard that authenticates a
    request before its body is read (guard.py; its refusals answered by `respond`, the app's
    one answer to an error), around it the middleware that puts a renewed session's cookies
    on the answer (session.py), around that the browser guard (Host, same-origin, CSRF:
    browser.py), and around the whole stack, error pages included, the security headers."""
    auth = Authenticator(settings)
    app.state.auth = auth
    app.add_middleware(BodyGuard, respond=respond)
    app.add_middleware(SessionCookies)  # outside the guard: sees its refusals
    secret = settings.auth_cookie_key
    key = (
        hashlib.sha256(b"arm-ka csrf v1\0" + secret.get_secret_value().encode()).digest()
        if secret is not None
        else secrets.token_bytes(32)
    )
    app.add_middleware(BrowserGuard, respond=respond, key=key, authenticated=settings.enabled)
    build = app.build_middleware_stack

    def with_headers() -> ASGIApp:
        # Outside Starlette's ServerErrorMiddleware too: a 500 page carries the headers.
        return SecurityHeaders(build())

    app.build_middleware_stack = with_headers  # type: ignore[method-assign]
    app.include_router(build_auth_router())
    install_access_log_redaction()
    return auth
