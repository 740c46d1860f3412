"""Who is calling: the principal of a request and the role a route needs.

A placeholder of the interface shared with the auth branch (s4-auth), which replaces this
module with OIDC JWT validation. Until then every request is the embedded unauthenticated
default: subject ``local`` with every role, as `make run` on loopback gives it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

__all__ = ["ROLES", "Principal", "require"]

ROLES: frozenset[str] = frozenset({"integrator", "analyst", "admin"})


@dataclass(frozen=True, slots=True)
class Principal:
    """The caller: the token's `sub` ("local" when unauthenticated on loopback) and roles."""

    subject: str
    roles: frozenset[str]


_LOCAL = Principal("local", ROLES)


def require(role: str) -> Callable[..., Awaitable[Principal]]:
    """A FastAPI dependency giving the principal allowed `role` (here: always the local one)."""
    if role not in ROLES:
        msg = f"unknown role {role!r}"
        raise ValueError(msg)

    async def dependency() -> Principal:
        return _LOCAL

    return dependency
