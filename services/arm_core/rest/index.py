"""`GET /api/v1`: the API's root answers with an index of its resources and where the docs are,
so the URL `make run` prints (and a newcomer opens first) leads somewhere instead of a 404."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, Field

from services.arm_core.rest.deps import READ
from services.arm_core.rest.openapi import problem_responses
from services.arm_core.rest.problem_types import UNAVAILABLE
from services.arm_core.rest.schemas import API_PREFIX

__all__ = ["RESOURCES", "ApiIndex", "ApiResource", "install_index"]


class ApiResource(BaseModel):
    """One resource of the API: where it is, what may be done with it."""

    name: str = Field(description="Resource name")
    url: str = Field(description="Its path (a template: `{…}` parts are ids)")
    methods: list[str] = Field(description="HTTP methods it answers")
    description: str


class ApiIndex(BaseModel):
    """The API's root: its resources and its documentation."""

    api: str = Field(description="The API's base path")
    docs_url: str = Field(description="The interactive OpenAPI documentation")
    openapi_url: str = Field(description="The OpenAPI document")
    resources: list[ApiResource]


RESOURCES: tuple[ApiResource, ...] = (
    ApiResource(
        name="files",
        url=f"{API_PREFIX}/files",
        methods=["GET", "POST"],
        description="Uploaded files: list them, or upload one (a recognition job is queued)",
    ),
    ApiResource(
        name="file",
        url=f"{API_PREFIX}/files/{{file_id}}",
        methods=["GET", "DELETE"],
        description="One file with its latest job; deleting removes its jobs and documents",
    ),
    ApiResource(
        name="content",
        url=f"{API_PREFIX}/files/{{file_id}}/content",
        methods=["GET"],
        description="What the recognition read (the upload, or the PDF made of a TIFF scan)",
    ),
    ApiResource(
        name="original",
        url=f"{API_PREFIX}/files/{{file_id}}/original",
        methods=["GET"],
        description="The upload as the client sent it",
    ),
    ApiResource(
        name="recognitions",
        url=f"{API_PREFIX}/files/{{file_id}}/recognitions",
        methods=["POST"],
        description="Recognise a stored file again (a new job, the next attempt)",
    ),
    ApiResource(
        name="file documents",
        url=f"{API_PREFIX}/files/{{file_id}}/documents",
        methods=["GET"],
        description="The documents recognised in a file",
    ),
    ApiResource(
        name="jobs",
        url=f"{API_PREFIX}/jobs",
        methods=["GET"],
        description="Recognition jobs, newest first",
    ),
    ApiResource(
        name="job",
        url=f"{API_PREFIX}/jobs/{{job_id}}",
        methods=["GET"],
        description="One recognition job and its status",
    ),
    ApiResource(
        name="document",
        url=f"{API_PREFIX}/documents/{{document_id}}",
        methods=["GET"],
        description="One document: its type, status, header and checks",
    ),
    ApiResource(
        name="rows",
        url=f"{API_PREFIX}/documents/{{document_id}}/rows",
        methods=["GET"],
        description="An ОСВ document's rows, a page at a time",
    ),
    ApiResource(
        name="normalized",
        url=f"{API_PREFIX}/documents/{{document_id}}/normalized",
        methods=["GET"],
        description="The whole document in the 2.0 shape",
    ),
    ApiResource(
        name="evidence",
        url=f"{API_PREFIX}/documents/{{document_id}}/evidence",
        methods=["GET"],
        description="A scan value's place on its page: a PNG crop around it (?ref=&column_index=)",
    ),
    ApiResource(
        name="corrected",
        url=f"{API_PREFIX}/documents/{{document_id}}/corrected",
        methods=["GET"],
        description="The document with an analyst's corrections applied, and its review",
    ),
    ApiResource(
        name="corrections",
        url=f"{API_PREFIX}/documents/{{document_id}}/corrections",
        methods=["GET", "POST"],
        description="An analyst's corrections of a document",
    ),
    ApiResource(
        name="export",
        url=f"{API_PREFIX}/documents/{{document_id}}/export",
        methods=["GET"],
        description="The corrected document as XLSX or CSV",
    ),
    ApiResource(
        name="organizations",
        url=f"{API_PREFIX}/organizations",
        methods=["GET"],
        description="Every organisation with current documents, the latest report first",
    ),
    ApiResource(
        name="dossier",
        url=f"{API_PREFIX}/organizations/{{key}}/dossier",
        methods=["GET"],
        description="An organisation's documents and the figures on which they disagree",
    ),
)


async def api_index() -> ApiIndex:
    """The API's resources and its documentation (the root of `/api/v1`)."""
    return ApiIndex(
        api=API_PREFIX, docs_url="/docs", openapi_url="/openapi.json", resources=list(RESOURCES)
    )


def install_index(router: APIRouter) -> None:
    """Put the index at the root of `router` (the `/api/v1` router itself: FastAPI refuses an
    empty path on an included router without a prefix)."""
    router.add_api_route(
        "",
        api_index,
        methods=["GET"],
        dependencies=READ,
        response_model=ApiIndex,
        tags=["index"],
        responses=problem_responses(UNAVAILABLE),
    )
