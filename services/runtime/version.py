"""The installed distribution's version, looked up in one place.

What `service.version` reports in envelopes, result files, /healthcheck and the AsyncAPI and
OpenAPI documents, and what `arm-ka --version` prints.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

__all__ = ["DISTRIBUTION", "package_version"]

DISTRIBUTION = "arm-ka-recognition"


def package_version() -> str:
    """The version of the installed `arm-ka-recognition`; 0.0.0 when run from a bare tree."""
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "0.0.0"
