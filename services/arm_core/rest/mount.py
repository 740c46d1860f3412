"""Mounting the REST API on the core's FastAPI app."""

from __future__ import annotations

from fastapi import APIRouter, FastAPI

from services.arm_core.rest import corrections, documents, files, jobs, organizations
from services.arm_core.rest.deps import ApiDeps
from services.arm_core.rest.index import install_index
from services.arm_core.rest.openapi import install_docs
from services.arm_core.rest.problems import install_problem_handlers
from services.arm_core.rest.schemas import API_PREFIX

__all__ = ["build_api_router", "install_rest"]


def build_api_router() -> APIRouter:
    """The `/api/v1` routes, in the order the OpenAPI document lists them."""
    router = APIRouter(prefix=API_PREFIX)
    install_index(router)
    for module in (files, jobs, documents, corrections, organizations):
        router.include_router(module.router)
    return router


def install_rest(api: FastAPI, deps: ApiDeps) -> None:
    """Give `api` the REST API: its services (`api.state.api_deps`), the routes, the problem
    handlers and the OpenAPI document with the offline `/docs`."""
    api.state.api_deps = deps
    install_problem_handlers(api)
    api.include_router(build_api_router())
    install_docs(api)
