"""``statements_version``: changes whenever this package's code or catalogue changes.

Result files carry it (``service.statements_version``) so a stored result says which copy of
the shared statements code computed its form variants and checks.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path
from typing import Final

__all__ = ["compute_statements_version", "statements_version"]

_PACKAGE = Path(__file__).resolve().parent
_SUFFIXES = (".py", ".json")


@cache
def compute_statements_version(package: Path = _PACKAGE) -> str:
    """``arm_statements-<first 12 hex of sha256 over the package's .py and .json files>``.

    Files are hashed in sorted order of their relative paths, each path and content included,
    so renaming a file changes the version as well. Computed once per path and cached.
    """
    digest = hashlib.sha256()
    files = sorted(
        p
        for p in package.rglob("*")
        if p.suffix in _SUFFIXES and p.is_file() and "__pycache__" not in p.parts
    )
    for path in files:
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return f"arm_statements-{digest.hexdigest()[:12]}"


statements_version: Final[str] = compute_statements_version()
"""``arm_statements-<12 hex>``: changes whenever this package's code or catalogue changes."""
