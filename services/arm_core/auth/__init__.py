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

from fastapi import FastAPI

from services.arm_core.auth.bind import (
    UNAUTHENTICATED_WARNING,
    announce,
    auth_state,
    check_bind,
    is_loopback,
    uvicorn_bind,
)
from services.arm_core.auth.dependency import TOKEN_COOKIE, Authenticator, require
from services.arm_core.auth.errors import (
    Forbidden,
    NotAuthenticated,
    PageRefusal,
    install_auth_problems,
    set_page_refusal,
)
from services.arm_core.auth.guard import BodyGuard
from services.arm_core.auth.login import LOGIN_PATH, LOGOUT_PATH, build_auth_router
from services.arm_core.auth.principal import LOCAL, ROLES, Principal
from services.arm_core.settings import AuthSettings

__all__ = [
    "LOCAL",
    "LOGIN_PATH",
    "LOGOUT_PATH",
    "ROLES",
    "TOKEN_COOKIE",
    "UNAUTHENTICATED_WARNING",
    "Authenticator",
    "Forbidden",
    "NotAuthenticated",
    "PageRefusal",
    "Principal",
    "announce",
    "auth_state",
    "check_bind",
    "install_auth",
    "is_loopback",
    "require",
    "set_page_refusal",
    "uvicorn_bind",
]


def install_auth(app: FastAPI, settings: AuthSettings) -> Authenticator:
    """Give `app` its authenticator (`app.state.auth`), the 401/403 problems, /auth/ and
    the guard that authenticates a request before its body is read (guard.py)."""
    auth = Authenticator(settings)
    app.state.auth = auth
    install_auth_problems(app)
    app.add_middleware(BodyGuard)
    app.include_router(build_auth_router())
    return auth
