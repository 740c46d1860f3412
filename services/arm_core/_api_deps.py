"""What the routes need, found on the application state (`app.state.api_deps`)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.retention import FileRetention
from services.arm_core.uploads import UploadService

__all__ = ["ApiDeps", "Deps"]


class ApiDeps:
    """What the routes need, looked up on the application state (`app.state.api_deps`)."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        uploads: UploadService,
        retention: FileRetention,
    ) -> None:
        self.sessions = sessions
        self.uploads = uploads
        self.retention = retention


def _deps(request: Request) -> ApiDeps:
    deps = request.app.state.api_deps
    assert isinstance(deps, ApiDeps)  # set by create_app
    return deps


Deps = Annotated[ApiDeps, Depends(_deps)]
