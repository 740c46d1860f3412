"""The security suite's stack: arm-core with authentication on, against the fake OpenID
Connect provider on loopback (tests/arm_core/auth/_provider.py), the harness's real S3 (moto
with keys) and database; `core(...)` answers an in-memory client on it (httpx's ASGI
transport: the whole middleware stack, as uvicorn runs it).

The fixtures are the arm-core tests' own, imported so that both suites build the same stack.
"""

from __future__ import annotations

from tests.arm_core.auth.conftest import core, oidc, provider
from tests.arm_core.conftest import core_db_url, core_settings, engine, sessions, subjects

__all__ = [
    "core",
    "core_db_url",
    "core_settings",
    "engine",
    "oidc",
    "provider",
    "sessions",
    "subjects",
]
