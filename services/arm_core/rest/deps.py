"""What the routes of the API and of the pages need: the core's services and who may call.

The services are found on the application state (`app.state.api_deps`, set by `create_app`);
the roles are `require` dependencies, one name for each set of roles a route asks for.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.params import Depends as DependsParam
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.auth import Principal, require
from services.arm_core.documents.official import OfficialFilings
from services.arm_core.jobs.evidence import EvidenceService
from services.arm_core.jobs.progress import ProgressReader
from services.arm_core.jobs.retention import FileRetention
from services.arm_core.jobs.uploads import UploadService

__all__ = ["READ", "UPLOAD", "Admin", "Analyst", "ApiDeps", "Deps", "Integrator", "Reader"]


class ApiDeps:
    """What the routes need, looked up on the application state (`app.state.api_deps`)."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        uploads: UploadService,
        retention: FileRetention,
        official: OfficialFilings | None = None,
        evidence: EvidenceService | None = None,
        progress: ProgressReader | None = None,
    ) -> None:
        self.sessions = sessions
        self.uploads = uploads
        self.retention = retention
        self.official = official  # the official filing's figures; None: comparison off
        self.evidence = evidence  # where scan values print; None: no evidence crops
        self.progress = progress  # a running scan's pages done; None: not shown


def _deps(request: Request) -> ApiDeps:
    deps: ApiDeps = request.app.state.api_deps  # set by create_app
    return deps


Deps = Annotated[ApiDeps, Depends(_deps)]

# Who may: read (integrator, analyst), upload and re-run (integrator), correct and export
# (analyst), delete (admin); admin passes every check.
Reader = Annotated[Principal, Depends(require("integrator", "analyst"))]
Integrator = Annotated[Principal, Depends(require("integrator"))]
Analyst = Annotated[Principal, Depends(require("analyst"))]
Admin = Annotated[Principal, Depends(require("admin"))]
READ: list[DependsParam] = [Depends(require("integrator", "analyst"))]
UPLOAD: list[DependsParam] = [Depends(require("integrator"))]
