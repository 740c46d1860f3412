"""The REST API of the core (`/api/v1`): its routes, answers, problems and OpenAPI document.

One router module per resource (`files`, `jobs`, `documents`, `corrections`), each a module of
handlers on its own `APIRouter`; `build_api_router` mounts them under `/api/v1`. Errors of the
rooms below become problem documents in one table (`problems.py`).
"""

from __future__ import annotations

from services.arm_core.rest.deps import (
    READ,
    UPLOAD,
    Admin,
    Analyst,
    ApiDeps,
    Deps,
    Integrator,
    Reader,
)
from services.arm_core.rest.mount import build_api_router, install_rest
from services.arm_core.rest.problems import (
    PROBLEM_JSON,
    PROBLEM_OF,
    error_response,
    install_problem_handlers,
    problem_of,
    problem_response,
)

__all__ = [
    "PROBLEM_JSON",
    "PROBLEM_OF",
    "READ",
    "UPLOAD",
    "Admin",
    "Analyst",
    "ApiDeps",
    "Deps",
    "Integrator",
    "Reader",
    "build_api_router",
    "error_response",
    "install_problem_handlers",
    "install_rest",
    "problem_of",
    "problem_response",
]
