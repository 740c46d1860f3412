"""Who is asking: the principal a request acts as, and its roles read from a token's claims."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from services.arm_core.settings import ROLES

__all__ = ["LOCAL", "ROLES", "Principal", "roles_from_claims"]


@dataclass(frozen=True, slots=True)
class Principal:
    """The caller of a request.

    `subject` is the token's `sub` ("local" when unauthenticated on loopback); `roles` is a
    subset of `ROLES`.
    """

    subject: str
    roles: frozenset[str]

    def may(self, *roles: str) -> bool:
        """True when the principal holds one of `roles`, or is an admin (who may do all)."""
        return "admin" in self.roles or not self.roles.isdisjoint(roles)


# Every request of the unauthenticated embedded default acts as this one.
LOCAL = Principal("local", ROLES)


def _claim(claims: Mapping[str, Any], path: str) -> Any:
    value: Any = claims
    for part in path.split("."):
        if not isinstance(value, Mapping):
            return None
        value = value.get(part)
    return value


def roles_from_claims(
    claims: Mapping[str, Any], path: str, role_map: Mapping[str, str]
) -> frozenset[str]:
    """Our roles from the claim at the dotted `path` (a list of names, or one space-separated
    string). With a `role_map` only its provider names count; without one the claim must name
    our roles themselves. Anything else in the claim is ignored."""
    value = _claim(claims, path)
    if isinstance(value, str):
        names = value.split()
    elif isinstance(value, list | tuple):
        names = [v for v in value if isinstance(v, str)]
    else:
        names = []
    if role_map:
        return frozenset(role_map[n] for n in names if n in role_map)
    return frozenset(n for n in names if n in ROLES)
